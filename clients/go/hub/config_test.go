package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
)

// hermetic clears every variable the client reads, points the profile at a temporary folder and
// runs the test from an empty folder; it returns the profile's credentials path.
func hermetic(t *testing.T) string {
	t.Helper()
	for _, name := range []string{
		"KXM_ADDR", "KXM_TOKEN", "KXM_ADMIN_TOKEN", "KXM_PROJECT", "KXM_AGENT_ID", "KXM_AGENT_KEY",
		"KXM_TLS_CA", "KXM_TLS_CERT", "KXM_TLS_KEY", "KXM_ATTEMPT_TOKEN", "KXM_SESSION_TOKEN",
		"KXM_CREDENTIALS", "KXM_DATA_DIR",
	} {
		t.Setenv(name, "")
	}
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("HOME", t.TempDir())
	t.Chdir(t.TempDir())
	return filepath.Join(config, "kxm", "credentials.json")
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

const fileJSON = `{"address": "10.0.0.1:7000", "admin_token": "file-admin",
	"projects": {"default": "file-default", "blue": "file-blue"}}`

func TestNothingGiven(t *testing.T) {
	hermetic(t)
	cfg := Resolve()
	if cfg.Address != DefaultAddress || cfg.Token != "" || cfg.TokenSource != "" || cfg.CredentialsFile != "" {
		t.Fatalf("got %+v", cfg)
	}
	if cfg.Timeout != 15*time.Second {
		t.Fatalf("timeout %v", cfg.Timeout)
	}
}

func TestOptionsBeforeEnvironmentBeforeFile(t *testing.T) {
	hermetic(t)
	file := filepath.Join(t.TempDir(), "c.json")
	write(t, file, fileJSON)
	t.Setenv("KXM_CREDENTIALS", file)

	cfg := Resolve()
	if cfg.Address != "10.0.0.1:7000" || cfg.Token != "file-default" || cfg.TokenSource != file || cfg.CredentialsFile != file {
		t.Fatalf("from the file: %+v", cfg)
	}
	t.Setenv("KXM_ADDR", "10.0.0.2:7000")
	t.Setenv("KXM_TOKEN", "env-token")
	cfg = Resolve()
	if cfg.Address != "10.0.0.2:7000" || cfg.Token != "env-token" || cfg.TokenSource != "KXM_TOKEN" {
		t.Fatalf("from the environment: %+v", cfg)
	}
	cfg = Resolve(WithAddress("10.0.0.3:7000"), WithToken("option-token"))
	if cfg.Address != "10.0.0.3:7000" || cfg.Token != "option-token" || cfg.TokenSource != "WithToken" {
		t.Fatalf("from the options: %+v", cfg)
	}
	if cfg := Resolve(WithToken("")); cfg.Token != "" || cfg.TokenSource != "WithToken" {
		t.Fatalf("an empty token given is used as given: %+v", cfg)
	}
}

func TestProjectAndAdminTokensFromTheFile(t *testing.T) {
	hermetic(t)
	file := filepath.Join(t.TempDir(), "c.json")
	write(t, file, fileJSON)
	t.Setenv("KXM_CREDENTIALS", file)
	t.Setenv("KXM_TOKEN", "project-env") // not read for the admin token

	if cfg := Resolve(WithProject("blue"), WithToken("x")); cfg.Project != "blue" || cfg.Token != "x" {
		t.Fatalf("%+v", cfg)
	}
	t.Setenv("KXM_TOKEN", "")
	if cfg := Resolve(WithProject("blue")); cfg.Token != "file-blue" {
		t.Fatalf("the project's token: %+v", cfg)
	}
	t.Setenv("KXM_PROJECT", "blue")
	if cfg := Resolve(); cfg.Project != "blue" || cfg.Token != "file-blue" {
		t.Fatalf("KXM_PROJECT: %+v", cfg)
	}
	if cfg := Resolve(WithProject("green")); cfg.Token != "" {
		t.Fatalf("no token for green: %+v", cfg)
	}
	if cfg := Resolve(WithAdmin()); cfg.Token != "file-admin" {
		t.Fatalf("admin from the file: %+v", cfg)
	}
	t.Setenv("KXM_ADMIN_TOKEN", "admin-env")
	if cfg := Resolve(WithAdmin()); cfg.Token != "admin-env" || cfg.TokenSource != "KXM_ADMIN_TOKEN" {
		t.Fatalf("admin from the environment: %+v", cfg)
	}
}

func TestTheOneCredentialsFile(t *testing.T) {
	profile := hermetic(t)
	write(t, profile, `{"projects": {"default": "profile-token"}}`)

	// The profile, for its own hub (no address: 127.0.0.1:7331) or when no address is given.
	if cfg := Resolve(); cfg.CredentialsFile != profile || cfg.Token != "profile-token" || cfg.Address != DefaultAddress {
		t.Fatalf("the profile: %+v", cfg)
	}
	if cfg := Resolve(WithAddress(DefaultAddress)); cfg.Token != "profile-token" {
		t.Fatalf("the profile's own hub: %+v", cfg)
	}
	if cfg := Resolve(WithAddress("10.9.9.9:1")); cfg.Token != "" || cfg.CredentialsFile != "" {
		t.Fatalf("the profile of another hub: %+v", cfg)
	}
	t.Setenv("KXM_ADDR", "10.9.9.9:1")
	if cfg := Resolve(); cfg.Token != "" {
		t.Fatalf("KXM_ADDR names another hub: %+v", cfg)
	}
	write(t, profile, `{"address": "10.9.9.9:1", "projects": {"default": "profile-token"}}`)
	if cfg := Resolve(); cfg.Token != "profile-token" {
		t.Fatalf("KXM_ADDR names the profile's hub: %+v", cfg)
	}
	t.Setenv("KXM_ADDR", "")

	// Local state (./.kxm/agents) wins, even without a credentials file: the profile is not read.
	if err := os.MkdirAll(filepath.Join(".kxm", "agents"), 0o700); err != nil {
		t.Fatal(err)
	}
	if cfg := Resolve(); cfg.Token != "" || cfg.CredentialsFile != "" {
		t.Fatalf("local state without a file: %+v", cfg)
	}
	write(t, filepath.Join(".kxm", "credentials.json"), `{"projects": {"default": "local-token"}}`)
	if cfg := Resolve(); cfg.Token != "local-token" || cfg.Address != DefaultAddress {
		t.Fatalf("local state: %+v", cfg)
	}

	// KXM_DATA_DIR, then KXM_CREDENTIALS, before both.
	dir := t.TempDir()
	write(t, filepath.Join(dir, "credentials.json"), `{"projects": {"default": "data-dir-token"}}`)
	t.Setenv("KXM_DATA_DIR", dir)
	if cfg := Resolve(); cfg.Token != "data-dir-token" {
		t.Fatalf("KXM_DATA_DIR: %+v", cfg)
	}
	t.Setenv("KXM_CREDENTIALS", filepath.Join(dir, "missing.json"))
	if cfg := Resolve(); cfg.Token != "" || cfg.CredentialsFile != "" {
		t.Fatalf("KXM_CREDENTIALS names a missing file: %+v", cfg)
	}
}

func TestAnUnreadableFileIsAbsent(t *testing.T) {
	hermetic(t)
	file := filepath.Join(t.TempDir(), "c.json")
	t.Setenv("KXM_CREDENTIALS", file)
	for _, content := range []string{`{not json`, `["a list"]`, `{"address": 7, "projects": ["x"]}`} {
		write(t, file, content)
		if cfg := Resolve(); cfg.Address != DefaultAddress || cfg.Token != "" {
			t.Fatalf("%s: %+v", content, cfg)
		}
	}
}

func TestMetadata(t *testing.T) {
	hermetic(t)
	t.Setenv("KXM_ATTEMPT_TOKEN", "attempt")
	c, err := New(WithToken("tok"), WithProject("blue"), WithAgent("agt_1", "key-1"), WithSessionToken("session"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sent := func(ctx context.Context) metadata.MD {
		md, _ := metadata.FromOutgoingContext(c.withMetadata(ctx))
		return md
	}
	want := metadata.Pairs("authorization", "Bearer tok", "x-kxm-agent-id", "agt_1", "x-kxm-agent-key", "key-1",
		"x-kxm-project", "blue", "x-kxm-attempt-token", "attempt", "x-kxm-session-token", "session")
	if got := sent(context.Background()); !reflect.DeepEqual(got, want) {
		t.Fatalf("agent call: %v", got)
	}
	bearer := metadata.Pairs("authorization", "Bearer tok", "x-kxm-project", "blue")
	if got := sent(context.WithValue(context.Background(), bearerOnly{}, true)); !reflect.DeepEqual(got, bearer) {
		t.Fatalf("bearer-only call: %v", got)
	}
	c.UseAgent("", "")
	if got := sent(context.Background()); len(got.Get("x-kxm-agent-id")) != 0 {
		t.Fatalf("no agent: %v", got)
	}
	own := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer mine")
	if got := sent(own).Get("authorization"); !reflect.DeepEqual(got, []string{"Bearer mine"}) {
		t.Fatalf("the caller's own authorization stays: %v", got)
	}
}

func TestNewRefuses(t *testing.T) {
	hermetic(t)
	if _, err := New(WithAddress("10.0.0.1:1,10.0.0.2:1")); err == nil || !strings.Contains(err.Error(), "several") {
		t.Fatalf("several addresses: %v", err)
	}
	if _, err := New(WithClientCertificate("cert.pem", "")); err == nil {
		t.Fatal("a certificate without its key")
	}
	if _, err := New(WithTLSCA("missing.pem")); err == nil {
		t.Fatal("a missing CA file")
	}
}

func TestConfigHidesSecrets(t *testing.T) {
	hermetic(t)
	cfg := Resolve(WithToken("secret-token"), WithAgent("agt_1", "secret-key"),
		WithAttemptToken("secret-attempt"), WithSessionToken("secret-session"))
	text := fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg)
	other := fmt.Sprintf("%s %q %d %x %v %+v %#v", cfg, cfg, cfg, cfg, &cfg, []Config{cfg}, struct{ C Config }{cfg})
	for _, shown := range []string{text, other} {
		if strings.Contains(shown, "secret") || !strings.Contains(shown, "agt_1") {
			t.Fatalf("shown as %s", shown)
		}
	}
	if cfg.GoString() != cfg.String() || !strings.Contains(text, `Token: (set) from "WithToken"`) {
		t.Fatal(text)
	}
	c, err := New(WithToken("secret-token"), WithAgent("agt_1", "secret-key"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if shown := fmt.Sprintf("%v %+v %#v", c.Config(), c.Config(), c.Config()); strings.Contains(shown, "secret") {
		t.Fatalf("the client's Config shows a secret: %s", shown)
	}
}
