package hub

import (
	"time"

	"google.golang.org/grpc"
)

// DefaultTimeout is the deadline New gives every unary call whose context has none (WithTimeout
// changes it).
const DefaultTimeout = 15 * time.Second

// An Option sets one thing New would otherwise resolve from the environment or the credentials
// file (see Resolve for the order).
type Option func(*options)

// options are what the caller gave New; an empty string is "not given".
type options struct {
	address      string
	token        string
	tokenSet     bool // WithToken was used, even with "": the token is then never looked up
	admin        bool
	project      string
	agentID      string
	agentKey     string
	attemptToken string
	sessionToken string
	tlsCA        string
	tlsCert      string
	tlsKey       string
	timeout      time.Duration
	timeoutSet   bool
	dialOptions  []grpc.DialOption
}

// WithAddress is the hub's address, host:port (else KXM_ADDR, the credentials file's address,
// 127.0.0.1:7331). One address: a comma-separated list of replicas is refused by New.
func WithAddress(address string) Option { return func(o *options) { o.address = address } }

// WithToken is the bearer token (a project token, a runtime key, or the admin token), used as given
// even when empty: KXM_TOKEN and the credentials file are then not consulted.
func WithToken(token string) Option {
	return func(o *options) { o.token, o.tokenSet = token, true }
}

// WithAdmin makes the client look for the admin token instead of a project token: KXM_ADMIN_TOKEN,
// then the credentials file's admin_token (a token given with WithToken is used as is).
func WithAdmin() Option { return func(o *options) { o.admin = true } }

// WithProject names the project (else KXM_PROJECT): it picks the project's token from the credentials
// file (default "default") and is sent as x-kxm-project on every call.
func WithProject(name string) Option { return func(o *options) { o.project = name } }

// WithAgent makes the client act as an agent registered earlier (else KXM_AGENT_ID and
// KXM_AGENT_KEY): x-kxm-agent-id and x-kxm-agent-key on every call. Register replaces both.
func WithAgent(id, key string) Option {
	return func(o *options) { o.agentID, o.agentKey = id, key }
}

// WithAttemptToken is the workflow attempt token presented as x-kxm-attempt-token (else
// KXM_ATTEMPT_TOKEN; docs/tool-policy.md).
func WithAttemptToken(token string) Option { return func(o *options) { o.attemptToken = token } }

// WithSessionToken is the session token presented as x-kxm-session-token (else KXM_SESSION_TOKEN).
func WithSessionToken(token string) Option { return func(o *options) { o.sessionToken = token } }

// WithTLSCA connects over TLS, trusting only the CA certificate(s) in this PEM file (else KXM_TLS_CA).
func WithTLSCA(pemFile string) Option { return func(o *options) { o.tlsCA = pemFile } }

// WithClientCertificate presents this client certificate and key (PEM files) to a hub that requires
// one (mTLS; else KXM_TLS_CERT and KXM_TLS_KEY). It implies TLS; without WithTLSCA the system's CAs
// verify the hub.
func WithClientCertificate(certFile, keyFile string) Option {
	return func(o *options) { o.tlsCert, o.tlsKey = certFile, keyFile }
}

// WithTimeout is the deadline of every unary call whose context has none (default 15 s); 0 gives
// such calls no deadline. Streams never get one.
func WithTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout, o.timeoutSet = d, true }
}

// WithDialOptions adds gRPC dial options after the client's own (a custom dialer, a user agent, more
// interceptors: those of grpc.WithChainUnaryInterceptor run inside the client's, so they see its
// metadata and deadline).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dialOptions = append(o.dialOptions, opts...) }
}
