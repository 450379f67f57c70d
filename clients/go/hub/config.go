package hub

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DefaultAddress is the hub address used when none is given anywhere.
const DefaultAddress = "127.0.0.1:7331"

// Config is a client's resolved connection settings: what Resolve found for each option.
type Config struct {
	// Address is the hub's host:port.
	Address string
	// Token is the bearer token ("" when none was found: the hub then answers UNAUTHENTICATED).
	Token string
	// TokenSource says where Token came from: "WithToken", a variable's name, or the credentials
	// file's path; "" when no token was found.
	TokenSource string
	// Admin is whether the admin token was looked for (WithAdmin).
	Admin bool
	// Project, AgentID, AgentKey, AttemptToken and SessionToken are sent as metadata when set.
	Project      string
	AgentID      string
	AgentKey     string
	AttemptToken string
	SessionToken string
	// TLSCA, TLSCert and TLSKey are PEM file paths; TLS is used when TLSCA or TLSCert is set.
	TLSCA   string
	TLSCert string
	TLSKey  string
	// Timeout is the default deadline of unary calls (0: none).
	Timeout time.Duration
	// CredentialsFile is the credentials file that was read, or "" when none applied or it did
	// not exist.
	CredentialsFile string
	// LookedIn lists where the token was looked for after the option, in order, each saying why it
	// gave none (the hint of a CREDENTIAL_MISSING error).
	LookedIn []string
}

// String shows the settings without the secrets (token, agent key, tool-policy tokens), so a Config
// can be printed or logged.
func (c Config) String() string {
	secret := func(v string) string {
		if v == "" {
			return `""`
		}
		return "(set)"
	}
	return fmt.Sprintf("hub.Config{Address: %q, Token: %s from %q, Admin: %t, Project: %q, AgentID: %q, AgentKey: %s, "+
		"AttemptToken: %s, SessionToken: %s, TLSCA: %q, TLSCert: %q, TLSKey: %q, Timeout: %s, CredentialsFile: %q}",
		c.Address, secret(c.Token), c.TokenSource, c.Admin, c.Project, c.AgentID, secret(c.AgentKey),
		secret(c.AttemptToken), secret(c.SessionToken), c.TLSCA, c.TLSCert, c.TLSKey, c.Timeout, c.CredentialsFile)
}

// GoString is String, so %#v does not show the secrets either.
func (c Config) GoString() string { return c.String() }

// Format prints String with every verb (GoString with %#v), so no verb shows the secrets.
func (c Config) Format(f fmt.State, verb rune) { format(f, verb, c.String()) }

// Resolve fills every setting the options leave out as the Python client's resolve does:
//
//   - address: WithAddress, KXM_ADDR, the credentials file's "address", 127.0.0.1:7331;
//   - token: WithToken, KXM_TOKEN (KXM_ADMIN_TOKEN with WithAdmin), the credentials file's
//     projects[<project or "default">] (its admin_token with WithAdmin);
//   - project: WithProject, KXM_PROJECT; agent: WithAgent, KXM_AGENT_ID and KXM_AGENT_KEY;
//   - TLS: WithTLSCA, KXM_TLS_CA; WithClientCertificate, KXM_TLS_CERT and KXM_TLS_KEY;
//   - tool-policy tokens: WithAttemptToken, KXM_ATTEMPT_TOKEN; WithSessionToken, KXM_SESSION_TOKEN.
//
// At most one credentials file is read (see CredentialsPath). An empty variable counts as unset. A
// missing token is not an error here. Resolve reads files but never fails: an unreadable or
// malformed credentials file counts as absent.
func Resolve(opts ...Option) Config { return resolve(collect(opts)) }

// collect applies the options.
func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func resolve(o options) Config {
	path := CredentialsPath(o.address)
	saved, found := readCredentials(path)
	cfg := Config{
		Admin:        o.admin,
		Project:      first(o.project, os.Getenv("KXM_PROJECT")),
		AgentID:      first(o.agentID, os.Getenv("KXM_AGENT_ID")),
		AgentKey:     first(o.agentKey, os.Getenv("KXM_AGENT_KEY")),
		AttemptToken: first(o.attemptToken, os.Getenv("KXM_ATTEMPT_TOKEN")),
		SessionToken: first(o.sessionToken, os.Getenv("KXM_SESSION_TOKEN")),
		TLSCA:        first(o.tlsCA, os.Getenv("KXM_TLS_CA")),
		TLSCert:      first(o.tlsCert, os.Getenv("KXM_TLS_CERT")),
		TLSKey:       first(o.tlsKey, os.Getenv("KXM_TLS_KEY")),
		Timeout:      DefaultTimeout,
	}
	if o.timeoutSet {
		cfg.Timeout = o.timeout
	}
	if found {
		cfg.CredentialsFile = path
	}
	fileAddress, _ := saved["address"].(string)
	cfg.Address = strings.TrimSpace(first(o.address, os.Getenv("KXM_ADDR"), fileAddress, DefaultAddress))

	variable, wanted := "KXM_TOKEN", "project token for project "+first(cfg.Project, "default")
	if o.admin {
		variable, wanted = "KXM_ADMIN_TOKEN", "admin token"
	}
	fromFile, _ := saved["admin_token"].(string)
	if !o.admin {
		projects, _ := saved["projects"].(map[string]any)
		fromFile, _ = projects[first(cfg.Project, "default")].(string)
	}
	switch {
	case o.tokenSet:
		cfg.Token, cfg.TokenSource = o.token, "WithToken"
	case os.Getenv(variable) != "":
		cfg.Token, cfg.TokenSource = os.Getenv(variable), variable
	case fromFile != "":
		cfg.Token, cfg.TokenSource = fromFile, absolute(path)
	}
	cfg.LookedIn = []string{variable}
	switch {
	case found:
		cfg.LookedIn = append(cfg.LookedIn, absolute(path)+" (no "+wanted+")")
	case path != "":
		cfg.LookedIn = append(cfg.LookedIn, absolute(path)+" (no such file)")
	default:
		cfg.LookedIn = append(cfg.LookedIn, "no credentials file (no local state, and no profile for this hub)")
	}
	return cfg
}

// CredentialsPath is the one credentials file a client reads (it may not exist), or "" when none
// applies. address is the address given as an option ("" when none; KXM_ADDR then counts as the
// address given). The order, as the Python client's state_for:
//
//  1. $KXM_CREDENTIALS, when set;
//  2. $KXM_DATA_DIR/credentials.json, when KXM_DATA_DIR is set;
//  3. ./.kxm/credentials.json, when it or ./.kxm/agents exists (local state);
//  4. the per-user profile ${XDG_CONFIG_HOME:-$HOME/.config}/kxm/credentials.json, when it exists
//     and either no address was given or the profile's "address" (default 127.0.0.1:7331) is the
//     address given.
func CredentialsPath(address string) string {
	if path := os.Getenv("KXM_CREDENTIALS"); path != "" {
		return path
	}
	if dir := os.Getenv("KXM_DATA_DIR"); dir != "" {
		return filepath.Join(dir, "credentials.json")
	}
	local := filepath.Join(".kxm", "credentials.json")
	if exists(local) || exists(filepath.Join(".kxm", "agents")) {
		return local
	}
	profile := ProfilePath()
	if profile == "" || !isFile(profile) {
		return ""
	}
	given := strings.TrimSpace(first(address, os.Getenv("KXM_ADDR")))
	if given != "" {
		saved, _ := readCredentials(profile)
		theirs, _ := saved["address"].(string)
		if strings.TrimSpace(first(theirs, DefaultAddress)) != given {
			return "" // the profile belongs to another hub
		}
	}
	return profile
}

// ProfilePath is the per-user profile's credentials file (written by `kxm profile save`):
// ${XDG_CONFIG_HOME:-$HOME/.config}/kxm/credentials.json, or "" when neither variable is set.
func ProfilePath() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "kxm", "credentials.json")
}

// readCredentials is the JSON object in the file ({"address": ..., "admin_token": ..., "projects":
// {...}}) and whether the file is a regular file; unreadable or not an object, it is empty.
func readCredentials(path string) (map[string]any, bool) {
	if path == "" || !isFile(path) {
		return nil, false
	}
	var saved map[string]any
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &saved) // unreadable means absent: saved stays empty
	}
	return saved, true
}

// first is the first non-empty value, or "".
func first(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
