// Package hub is the thin Go client of the kxm hub: one gRPC connection with the caller's identity
// and a default deadline applied to every call, errors decoded into *Error, a resuming inbox
// subscription and the workflow worker's assignment loop, over the generated stubs of
// kxm.dev/hub/clients/go/gen/kxm/v1 (kxmv1).
//
//	client, err := hub.New() // address and token from KXM_ADDR, KXM_TOKEN or the credentials file
//	if err != nil { ... }
//	defer client.Close()
//	if _, err := client.Register(ctx, "worker-1"); err != nil { ... }
//	sent, err := client.Send(ctx, "worker-2", "hello", hub.WithServerWait(10*time.Second))
//
// Every RPC of the eight services is reachable through the accessors (Messages, Agents, ...), which
// return the generated clients on the client's connection: they carry the same metadata, deadline
// and error decoding as the helpers.
package hub

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"

	kxmv1 "kxm.dev/hub/clients/go/gen/kxm/v1"
)

// Client is one connection to a hub and the identity of one caller (a project token, the admin
// token, a runtime key; an agent after Register or WithAgent). It is safe for concurrent use; Close
// it when done.
type Client struct {
	conn    *grpc.ClientConn
	config  Config
	timeout time.Duration

	mu       sync.RWMutex
	agentID  string
	agentKey string

	// closing is closed by Close (once, before the connection): a subscription then ends for good
	// instead of retrying the CANCELLED of every new stream on the closed connection.
	closing   chan struct{}
	closeOnce sync.Once

	agents    kxmv1.AgentServiceClient
	messages  kxmv1.MessageServiceClient
	leases    kxmv1.LeaseServiceClient
	runtimes  kxmv1.RuntimeServiceClient
	admin     kxmv1.AdminServiceClient
	workflows kxmv1.WorkflowServiceClient
	contexts  kxmv1.ContextServiceClient
	ops       kxmv1.OpsServiceClient
}

// Keepalive pings every 30 s (the hub closes connections that ping more often than every 10 s), and
// a reconnect backoff capped at 5 s, so a hub that restarts is found again within seconds of its
// return (gRPC's default cap is 120 s).
var (
	keepaliveParams = keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second, PermitWithoutStream: true}
	connectParams   = grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: time.Second, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 5 * time.Second},
		MinConnectTimeout: 20 * time.Second,
	}
)

// maxReceiveSize is the largest response accepted (the hub's own limit).
const maxReceiveSize = 16 << 20

// New resolves the options (see Resolve: everything not given comes from the environment or the
// credentials file) and makes a client. The connection is opened lazily, at the first call, and
// reopened by itself after a failure.
//
// New fails only on settings it cannot use: several comma-separated addresses (not supported by the
// Go client: give one), a TLS file that cannot be read or parsed, or a client certificate without
// its key (or the reverse). A missing token is not an error: the hub answers such calls
// UNAUTHENTICATED (ERROR_REASON_CREDENTIAL_MISSING, with a Hint naming where the token was looked for).
func New(opts ...Option) (*Client, error) {
	o := collect(opts)
	cfg := resolve(o)
	if strings.Contains(cfg.Address, ",") {
		return nil, fmt.Errorf("hub: several hub addresses (%q) are not supported by the Go client; give one", cfg.Address)
	}
	transport, err := transportCredentials(cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{config: cfg, timeout: cfg.Timeout, agentID: cfg.AgentID, agentKey: cfg.AgentKey, closing: make(chan struct{})}
	dial := append([]grpc.DialOption{
		grpc.WithTransportCredentials(transport),
		grpc.WithKeepaliveParams(keepaliveParams),
		grpc.WithConnectParams(connectParams),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxReceiveSize)),
		grpc.WithChainUnaryInterceptor(c.unaryInterceptor),
		grpc.WithChainStreamInterceptor(c.streamInterceptor),
	}, o.dialOptions...)
	conn, err := grpc.NewClient(cfg.Address, dial...)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	c.conn = conn
	c.agents = kxmv1.NewAgentServiceClient(conn)
	c.messages = kxmv1.NewMessageServiceClient(conn)
	c.leases = kxmv1.NewLeaseServiceClient(conn)
	c.runtimes = kxmv1.NewRuntimeServiceClient(conn)
	c.admin = kxmv1.NewAdminServiceClient(conn)
	c.workflows = kxmv1.NewWorkflowServiceClient(conn)
	c.contexts = kxmv1.NewContextServiceClient(conn)
	c.ops = kxmv1.NewOpsServiceClient(conn)
	return c, nil
}

// transportCredentials is TLS when a CA or a client certificate is configured, else plaintext.
func transportCredentials(cfg Config) (credentials.TransportCredentials, error) {
	if cfg.TLSCA == "" && cfg.TLSCert == "" && cfg.TLSKey == "" {
		return insecure.NewCredentials(), nil
	}
	config := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLSCA != "" {
		pem, err := os.ReadFile(cfg.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("hub: cannot read the TLS CA: %w", err)
		}
		config.RootCAs = x509.NewCertPool()
		if !config.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("hub: no PEM certificate in the TLS CA file %s", cfg.TLSCA)
		}
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("hub: a client certificate and its key go together (WithClientCertificate, or KXM_TLS_CERT and KXM_TLS_KEY)")
	}
	if cfg.TLSCert != "" {
		pair, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("hub: cannot load the client certificate: %w", err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return credentials.NewTLS(config), nil
}

// Close closes the connection; calls in flight and open streams end with CANCELLED, and so does
// every subscription of the client (its Events is closed, its Err is a CANCELLED *Error).
func (c *Client) Close() error {
	c.closeOnce.Do(func() { close(c.closing) })
	return c.conn.Close()
}

// isClosed is whether Close was called.
func (c *Client) isClosed() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// String shows the client without its secrets: the address, the project and the agent it acts
// as (never the token, the agent key or the tool-policy tokens), so a Client can be printed or logged.
func (c *Client) String() string {
	if c == nil {
		return "hub.Client(nil)"
	}
	return fmt.Sprintf("hub.Client{Address: %q, Project: %q, AgentID: %q}", c.config.Address, c.config.Project, c.AgentID())
}

// GoString is String, so %#v does not show the secrets either.
func (c *Client) GoString() string { return c.String() }

// Format prints String with every verb (GoString with %#v), so no verb shows the fields.
func (c *Client) Format(f fmt.State, verb rune) { format(f, verb, c.String()) }

// format writes text, the String of a value holding secrets, as fmt would for the verb: width,
// precision and flags apply to %v, %s and %q; any other verb is shown as fmt shows a bad verb, with
// text instead of the value's fields.
func format(f fmt.State, verb rune, text string) {
	switch verb {
	case 'v':
		if f.Flag('#') {
			_, _ = io.WriteString(f, text)
			return
		}
		fallthrough
	case 's', 'q':
		_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), text)
	default:
		_, _ = fmt.Fprintf(f, "%%!%c(%s)", verb, text)
	}
}

// Conn is the client's gRPC connection, for stubs of other services (health, reflection). Calls
// on it get the client's metadata, default deadline and error decoding too.
func (c *Client) Conn() *grpc.ClientConn { return c.conn }

// Config is the settings the client was made with (agent id and key as New resolved them; the
// current ones are AgentID and AgentKey).
func (c *Client) Config() Config { return c.config }

// Agents is AgentService (RegisterAgent, Heartbeat, ListAgents, GetCallerIdentity, OpenChannel, ...).
func (c *Client) Agents() kxmv1.AgentServiceClient { return c.agents }

// Messages is MessageService (SendMessage, WaitMessage, FanoutMessages, Subscribe, ...).
func (c *Client) Messages() kxmv1.MessageServiceClient { return c.messages }

// Leases is LeaseService (AcquireLease, RenewLease, ReleaseLease, CheckFence, ...).
func (c *Client) Leases() kxmv1.LeaseServiceClient { return c.leases }

// Runtimes is RuntimeService (RegisterRuntime, PushSyncEvents, ...).
func (c *Client) Runtimes() kxmv1.RuntimeServiceClient { return c.runtimes }

// Admin is AdminService (CreateProject, RotateProjectToken, MintSessionToken, ...; the admin token).
func (c *Client) Admin() kxmv1.AdminServiceClient { return c.admin }

// Workflows is WorkflowService (definitions, runs, journal, NextAssignment, CompleteAssignment, ...).
func (c *Client) Workflows() kxmv1.WorkflowServiceClient { return c.workflows }

// ContextService is ContextService (items, packets, recall, state, skills, memory); not named
// Context, which reads as a context.Context in Go.
func (c *Client) ContextService() kxmv1.ContextServiceClient { return c.contexts }

// Ops is OpsService (GetOpsSnapshot, WatchOps).
func (c *Client) Ops() kxmv1.OpsServiceClient { return c.ops }

// AgentID is the id of the agent the client acts as, or "".
func (c *Client) AgentID() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.agentID
}

// AgentKey is the key of the agent the client acts as, or "".
func (c *Client) AgentKey() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.agentKey
}

// UseAgent makes every later call act as this agent ("" for both: with the bearer token only).
func (c *Client) UseAgent(id, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.agentID, c.agentKey = id, key
}

// bearerOnly marks a context whose call carries no agent identity (RegisterAgent).
type bearerOnly struct{}

// withMetadata adds the client's credentials to the outgoing metadata: authorization, the agent's
// id and key (both known, and not a bearer-only call), the project, the tool-policy tokens (not on a
// bearer-only call: they are bound to the agent). A key the caller put in the context already is
// left as the caller set it.
func (c *Client) withMetadata(ctx context.Context) context.Context {
	present, _ := metadata.FromOutgoingContext(ctx)
	var pairs []string
	add := func(key, value string) {
		if value != "" && len(present.Get(key)) == 0 {
			pairs = append(pairs, key, value)
		}
	}
	if c.config.Token != "" {
		add("authorization", "Bearer "+c.config.Token)
	}
	agent := ctx.Value(bearerOnly{}) == nil
	if id, key := c.AgentID(), c.AgentKey(); agent && id != "" && key != "" {
		add("x-kxm-agent-id", id)
		add("x-kxm-agent-key", key)
	}
	add("x-kxm-project", c.config.Project)
	if agent {
		add("x-kxm-attempt-token", c.config.AttemptToken)
		add("x-kxm-session-token", c.config.SessionToken)
	}
	if len(pairs) == 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, pairs...)
}

// unaryInterceptor applies the metadata, the default deadline when the caller's context has none,
// and decodes the error.
func (c *Client) unaryInterceptor(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if _, ok := ctx.Deadline(); !ok && c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	return c.decode(invoker(c.withMetadata(ctx), method, req, reply, cc, opts...))
}

// streamInterceptor applies the metadata (no deadline: a stream lives as long as its context) and
// decodes the errors of the stream's calls.
func (c *Client) streamInterceptor(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	stream, err := streamer(c.withMetadata(ctx), desc, cc, method, opts...)
	if err != nil {
		return nil, c.decode(err)
	}
	return &decodedStream{ClientStream: stream, client: c}, nil
}

// decode is FromError, plus the hint of a CREDENTIAL_MISSING refusal while the client has no token.
func (c *Client) decode(err error) error {
	if err == nil {
		return nil
	}
	e := FromError(err)
	if e.HasReason(kxmv1.ErrorReason_ERROR_REASON_CREDENTIAL_MISSING) && c.config.Token == "" && e.Hint == "" {
		what := "project token"
		if c.config.Admin {
			what = "admin token"
		}
		e.Hint = "no " + what + " found; looked in the WithToken option, " + strings.Join(c.config.LookedIn, ", ")
	}
	return e
}

// decodedStream decodes the errors of a stream's calls; io.EOF (the stream ended OK, or the send side
// learned that it ended) stays io.EOF.
type decodedStream struct {
	grpc.ClientStream
	client *Client
}

func (s *decodedStream) passEOF(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	return s.client.decode(err)
}

func (s *decodedStream) Header() (metadata.MD, error) {
	md, err := s.ClientStream.Header()
	return md, s.passEOF(err)
}

func (s *decodedStream) SendMsg(m any) error { return s.passEOF(s.ClientStream.SendMsg(m)) }

func (s *decodedStream) RecvMsg(m any) error { return s.passEOF(s.ClientStream.RecvMsg(m)) }

func (s *decodedStream) CloseSend() error { return s.passEOF(s.ClientStream.CloseSend()) }
