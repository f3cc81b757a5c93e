package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckConfigMessages pins the exact messages `bridge check-config`
// prints for deliberately broken files.
func TestCheckConfigMessages(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"unknown_key.yaml", []string{
			`testdata/unknown_key.yaml:6:7: policy.rules[0].allow: set exactly one of allow or deny`,
			`testdata/unknown_key.yaml:6:17: policy.rules[0].alow: unknown key: did you mean "allow"?`,
			`testdata/unknown_key.yaml:10:5: publish[0].tool_timout: unknown key: did you mean "tool_timeout"?`,
		}},
		{"missing_required.yaml", []string{
			`testdata/missing_required.yaml: auth: no authentication method configured: set oidc, jwks, api_keys, or anonymous (loopback only)`,
			`testdata/missing_required.yaml:5:5: publish[0].stdio.command: required: the MCP server's executable, such as npx`,
			`testdata/missing_required.yaml:9:7: expose.agents[0].alias: required: the name MCP tools carry for this agent, such as billing`,
		}},
		{"bad_cel.yaml", []string{
			`testdata/bad_cel.yaml:5:31: policy.rules[0].allow: undefined field 'agnet'`,
			`testdata/bad_cel.yaml:7:13: policy.rules[1].deny: expression returns list(string), want bool`,
			`testdata/bad_cel.yaml:10:52: limits.rules[0].when: Syntax error: token recognition error at: '= '`,
			`testdata/bad_cel.yaml:10:54: limits.rules[0].when: Syntax error: extraneous input '"search"' expecting <EOF>`,
		}},
		{"bad_url.yaml", []string{
			`testdata/bad_url.yaml:2:1: public_url: "bridge.example.com" is not an absolute http(s) URL: write it as https://bridge.example.com`,
			`testdata/bad_url.yaml:6:12: publish[0].http.url: "ftp://mcp.internal.example.com/mcp" is not an absolute http(s) URL: write it as https://host/path`,
			`testdata/bad_url.yaml:10:7: expose.agents[0].url: "billing.example.com/a2a" is not an absolute http(s) URL: write it as https://host/path`,
			`testdata/bad_url.yaml:11:39: expose.agents[0].card.keys: "http://keys.example.com/jwks.json": a JWKS URL must be https (or give a file path)`,
			`testdata/bad_url.yaml:12:3: expose.tool_name_separator: "." is not a valid separator: use 1 to 8 letters, digits, '-' or '_' (hosts refuse tool names with other characters, dots among them)`,
		}},
		{"unsafe_nonloopback.yaml", []string{
			`testdata/unsafe_nonloopback.yaml:4:3: auth.anonymous: refused on the non-loopback listener 0.0.0.0:8080: anyone who can reach it would be a caller; listen on 127.0.0.1, configure oidc/jwks/api_keys, or confirm with auth.unsafe_anonymous_non_loopback: true`,
			`testdata/unsafe_nonloopback.yaml:7:3: netguard.unsafe_allow: weakens SSRF protection on the non-loopback listener 0.0.0.0:8080: remove it, listen on 127.0.0.1, or confirm with netguard.unsafe_allow_confirm: true`,
		}},
		{"unset_env.yaml", []string{
			`testdata/unset_env.yaml:3:8: redis: environment variable BRIDGE_TEST_UNSET_REDIS_URL is not set: set it, or write $${BRIDGE_TEST_UNSET_REDIS_URL} to keep the text as it is`,
			`testdata/unset_env.yaml:9:28: publish[0].http.headers.X-Api-Key: environment variable BRIDGE_TEST_UNSET_KEY is not set: set it, or write $${BRIDGE_TEST_UNSET_KEY} to keep the text as it is`,
		}},
		{"bad_duration.yaml", []string{
			`testdata/bad_duration.yaml:3:32: push.timeout: invalid duration "5 minutes": write a Go duration such as "30s", "5m" or "1h30m"`,
		}},
		{"bad_values.yaml", []string{
			`testdata/bad_values.yaml: public_url: required when listen is not loopback: the https URL clients use to reach the bridge (cards and token audiences carry it)`,
			`testdata/bad_values.yaml:1:8: auth.anonymous: refused on the non-loopback listener localhost: anyone who can reach it would be a caller; listen on 127.0.0.1, configure oidc/jwks/api_keys, or confirm with auth.unsafe_anonymous_non_loopback: true`,
			`testdata/bad_values.yaml:2:1: listen: "localhost" is not HOST:PORT: write an address such as 127.0.0.1:8080`,
			`testdata/bad_values.yaml:3:1: store: unsupported store: use memory:, sqlite:PATH or postgres://USER@HOST/DB`,
			`testdata/bad_values.yaml:6:5: publish[0].name: "Tickets" is not a valid name: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit`,
			`testdata/bad_values.yaml:6:5: publish[0]: set only one of stdio, http, sse or builtin`,
			`testdata/bad_values.yaml:11:5: publish[2].name: "dup" is already used by publish[1]: agent names must be unique`,
			`testdata/bad_values.yaml:13:5: publish[2].credentials: a stdio server gets no HTTP credentials: pass secrets in stdio.env instead`,
			`testdata/bad_values.yaml:14:19: publish[2].tool_timeout: invalid duration "5 minutes": write a Go duration such as "30s", "5m" or "1h30m"`,
			`testdata/bad_values.yaml:15:10: server.a2a_error_table: "2.0" is not a known table: use "1.0.1" or "1.0.0"`,
		}},
		{"bad_security.yaml", []string{
			`testdata/bad_security.yaml:5:8: auth.oidc[0].issuer: "http://idp.example.com" is plain http: whoever can read or change the traffic could serve their own keys and mint tokens; use https, an IdP on loopback, or set unsafe_allow_http: true`,
			`testdata/bad_security.yaml:5:40: auth.oidc[0].audience: "https://bridge.example.com/mcp" is the MCP endpoint's resource (public_url + expose.mcp.path): A2A agents would accept tokens issued for the MCP endpoint; list A2A audiences here (such as https://bridge.example.com), the MCP endpoint accepts its own by itself (expose.mcp.audience)`,
			`testdata/bad_security.yaml:6:42: auth.oidc[1].discovery_url: "http://idp2.example.com/.well-known/openid-configuration" is plain http: whoever can read or change the traffic could serve their own keys and mint tokens; use https, an IdP on loopback, or set unsafe_allow_http: true`,
			`testdata/bad_security.yaml:11:40: publish[0].audience: "https://bridge.example.com/mcp" is the MCP endpoint's resource (public_url + expose.mcp.path): A2A agents would accept tokens issued for the MCP endpoint; list A2A audiences here (such as https://bridge.example.com), the MCP endpoint accepts its own by itself (expose.mcp.audience)`,
			`testdata/bad_security.yaml:16:5: expose.mcp.audience: "https://bridge.example.com" is also an A2A audience (auth.oidc[1].audience): the MCP endpoint would accept tokens issued for the A2A agents; give it its own, such as https://bridge.example.com/mcp`,
			`testdata/bad_security.yaml:17:62: expose.mcp.rate_limited_methods[3]: "tools call" is not a method pattern: write a method such as tools/call, a family such as resources/*, or *`,
			`testdata/bad_security.yaml:17:76: expose.mcp.rate_limited_methods[4]: "/x" is not a method pattern: write a method such as tools/call, a family such as resources/*, or *`,
			`testdata/bad_security.yaml:19:36: server.allowed_hosts[1]: "https://x.example" is not a host name: write a name such as bridge.internal, without scheme, port or wildcard`,
			`testdata/bad_security.yaml:19:57: server.allowed_hosts[2]: "*.example.com" is not a host name: write a name such as bridge.internal, without scheme, port or wildcard`,
			`testdata/bad_security.yaml:20:21: server.allowed_origins[0]: "*" would let any web page call the bridge from a browser: list the origins, such as https://app.example.com`,
			`testdata/bad_security.yaml:20:51: server.allowed_origins[2]: "app.example.com" is not an origin: write scheme://host[:port]`,
		}},
		{"bad_health.yaml", []string{
			`testdata/bad_health.yaml:7:44: front.a2a[0].credential_hosts[1]: "https://agent.example.com" is not a host: write host or host:port, exact (no scheme, path or wildcard), such as billing.svc:8443`,
			`testdata/bad_health.yaml:7:73: front.a2a[0].credential_hosts[2]: "agent:99999" has an invalid port: write host or host:port, such as billing.svc:8443`,
			`testdata/bad_health.yaml:7:88: front.a2a[0].credential_hosts[3]: "*.svc" is not a host: write host or host:port, exact (no scheme, path or wildcard), such as billing.svc:8443`,
			`testdata/bad_health.yaml:9:3: health.readiness: "everything" is not a readiness: use "upstreams" (every upstream must be up: a sidecar) or "bridge" (the bridge itself: a shared gateway)`,
			`testdata/bad_health.yaml:11:3: health.check_timeout: 5s is longer than check_interval (2s): checks would overlap`,
			`testdata/bad_health.yaml:13:3: health.reconnect_max: 100ms is less than reconnect_min (1s)`,
			`testdata/bad_health.yaml:14:3: health.card_refresh_min: must be positive, such as 30s`,
		}},
		{"bad_admin.yaml", []string{
			`testdata/bad_admin.yaml:5:3: admin.listen: 0.0.0.0:9090 is not a loopback address: the admin view shows the running configuration and every upstream, so it needs admin.auth (api_keys, jwks or oidc; callers also need admin.scope); or listen on 127.0.0.1`,
			`testdata/bad_admin.yaml:6:10: admin.auth.anonymous: refused: the admin view shows the running configuration and every upstream; remove it and configure admin.auth.api_keys, jwks or oidc`,
			`testdata/bad_admin.yaml:7:3: admin.scope: must not be empty: the scope admin callers must carry, such as bridge:admin`,
			`testdata/bad_admin.yaml:8:3: admin.refresh: 500ms is out of range: from 1s to 1h, such as 10s`,
		}},
		{"syntax.yaml", []string{
			`testdata/syntax.yaml:2:12: mapping value is not allowed in this context`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := Load(filepath.Join("testdata", tt.file))
			if c != nil {
				t.Errorf("Load returned a config along with problems")
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Load error = %v (%T), want Problems", err, err)
			}
			got := strings.Split(ps.Error(), "\n")
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestLoadFull(t *testing.T) {
	t.Setenv("BRIDGE_TEST_REDIS", "redis://127.0.0.1:6379/0")
	t.Setenv("BRIDGE_TEST_SECRET", "exchange-secret")
	c, err := Load("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"listen", c.Listen, "127.0.0.1:8443"},
		{"redis fills limits.redis", c.Limits.Redis, "redis://127.0.0.1:6379/0"},
		{"file secret, trailing newline trimmed", c.Publish[1].Credentials.ClientCredentials.ClientSecret, "s3cr3t-from-file"},
		{"env secret", c.Expose.Agents[0].Credentials.TokenExchange.ClientSecret, "exchange-secret"},
		{"tool timeout", c.Publish[0].ToolTimeout.D(), 2 * time.Minute},
		{"tool timeout default", c.Publish[1].ToolTimeout.D(), 60 * time.Second},
		{"stdio env", c.Publish[0].Stdio.Env["LOG_LEVEL"], "warn"},
		{"per as a list", len(c.Limits.Rules[1].Per), 2},
		{"auth duration", c.Auth.OIDC[0].ClockSkew, time.Minute},
		{"byte size", c.Server.MaxBodyBytes, ByteSize(4 << 20)},
		{"card default size", c.Expose.Agents[0].Card.MaxCardBytes, ByteSize(256 << 10)},
		{"tool prefix default", c.Front.MCP[0].ToolPrefix, "files_"},
		{"tool prefix set", c.Front.MCP[1].ToolPrefix, "kb_"},
		{"metrics", c.Observability.MetricsEnabled(), true},
		{"write timeout 0", c.Server.WriteTimeout, Duration(0)},
		{"mcp sessions", c.Expose.MCP.Sessions, true},
	}
	for _, ck := range checks {
		if ck.got != ck.want {
			t.Errorf("%s = %v, want %v", ck.name, ck.got, ck.want)
		}
	}
	if pos, ok := c.Position("publish[1].http.url"); !ok || pos != (Position{Line: 47, Column: 7}) {
		t.Errorf("Position(publish[1].http.url) = %v %v, want 47:7", pos, ok)
	}
	g, err := c.Netguard.Config()
	if err != nil || len(g.UnsafeAllow) != 1 || g.MaxBodyBytes != 2<<20 || g.Timeout != 20*time.Second {
		t.Errorf("Netguard.Config() = %+v, %v", g, err)
	}
	vo := c.Front.A2A[0].Card.VerifyOptions(nil)
	if vo.JKU == nil || vo.JKU.TrustedHosts[0] != "keys.example.com" || vo.MaxCardBytes != 256<<10 {
		t.Errorf("VerifyOptions() = %+v", vo)
	}
}

func TestExamplesAreValid(t *testing.T) {
	t.Setenv("REDIS_URL", "redis://127.0.0.1:6379/0")
	t.Setenv("BILLING_CLIENT_SECRET", "s")
	files, err := filepath.Glob("../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Errorf("%v", err)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c, err := Parse([]byte("auth: {anonymous: true}\npolicy: {default: deny}\n"), "min.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8080" || c.Store != "sqlite:./bridge.db" || c.PublicURL != "http://127.0.0.1:8080" ||
		c.Expose.MCP.Path != "/mcp" || c.Server.A2AErrorTable != "1.0.1" || c.Server.MaxBodyBytes != 1<<20 ||
		c.Retention.FinishedTasks.D() != 168*time.Hour || !c.Observability.MetricsEnabled() || c.Push.MaxAttempts != 5 ||
		c.Expose.MCP.Sessions {
		t.Errorf("defaults not applied: %+v", c)
	}
	off, err := Parse([]byte("auth: {anonymous: true}\npolicy: {default: deny}\nobservability: {metrics: false}\n"), "off.yaml")
	if err != nil || off.Observability.MetricsEnabled() {
		t.Errorf("metrics: false not kept: %v", err)
	}
}

func TestExpansion(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("tok\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BRIDGE_TEST_PORT", "9090")
	t.Setenv("BRIDGE_TEST_CONFIRM", "true")
	t.Setenv("BRIDGE_TEST_INJECT", "x\nlisten: 0.0.0.0:1")
	src := `
listen: 127.0.0.1:${BRIDGE_TEST_PORT}
auth: {anonymous: true}
policy: {default: deny}
push:
  max_attempts: ${BRIDGE_TEST_PORT}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_confirm: ${BRIDGE_TEST_CONFIRM}
publish:
  - name: a
    http: {url: https://a.example.com/mcp, headers: {A: "$${LITERAL}", B: "${file:token}", C: "${BRIDGE_TEST_INJECT}"}}
# ${NOT_EXPANDED_IN_COMMENTS}
`
	_, err := Parse([]byte(src), filepath.Join(dir, "c.yaml"))
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 || ps[0].Path != "push.max_attempts" {
		t.Fatalf("want only the push.max_attempts problem (9090 > 20), got %v", err)
	}
	src = strings.Replace(src, "max_attempts: ${BRIDGE_TEST_PORT}", "max_attempts: 3", 1)
	c, err := Parse([]byte(src), filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h := c.Publish[0].HTTP.Headers
	if c.Listen != "127.0.0.1:9090" || !c.Netguard.UnsafeAllowConfirm || h["A"] != "${LITERAL}" || h["B"] != "tok" || h["C"] != "x\nlisten: 0.0.0.0:1" {
		t.Errorf("expansion: listen %q confirm %v headers %q", c.Listen, c.Netguard.UnsafeAllowConfirm, h)
	}
}

// TestEnvValueCannotInjectKeys: a secret holding YAML must stay a string.
func TestEnvValueCannotInjectKeys(t *testing.T) {
	t.Setenv("BRIDGE_TEST_EVIL", "{anonymous: true}")
	c, err := Parse([]byte("listen: 0.0.0.0:8080\npublic_url: https://b.example.com\nauth: {api_key_header: X-Key, api_keys: [{name: k, sha256: \"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\"}]}\npolicy: {default: deny}\nobservability:\n  service_name: ${BRIDGE_TEST_EVIL}\n"), "e.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Auth.Anonymous || c.Observability.ServiceName != "{anonymous: true}" {
		t.Errorf("env value changed the structure: anonymous=%v service=%q", c.Auth.Anonymous, c.Observability.ServiceName)
	}
}

func TestFileSecretErrorsDoNotLeakContent(t *testing.T) {
	_, err := Parse([]byte("auth: {anonymous: true}\npolicy: {default: deny}\nredis: ${file:missing}\n"), filepath.Join(t.TempDir(), "c.yaml"))
	if err == nil || !strings.Contains(err.Error(), "redis: ${file:missing}: cannot read") {
		t.Errorf("err = %v", err)
	}
}

func TestRedisPasswordNotInProblems(t *testing.T) {
	_, err := Parse([]byte("auth: {anonymous: true}\npolicy: {default: deny}\nredis: \"redis://:hunter2@[bad\"\nlimits: {on_redis_error: open}\nstore: \"postgres://u:hunter2@%zz\"\n"), "c.yaml")
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v", err)
	}
}

func TestValidateBuiltInGo(t *testing.T) {
	c := Defaults()
	c.Auth.Anonymous = true
	c.Policy.Default = "deny"
	if ps := c.Validate(); ps.Err() != nil {
		t.Fatalf("defaults + anonymous + deny: %v", ps)
	}
	c.Listen = "[::]:8080"
	c.PublicURL = "https://b.example.com"
	ps := c.Validate()
	if len(ps) != 1 || ps[0].Path != "auth.anonymous" || ps[0].Line != 0 {
		t.Errorf("problems = %v", ps)
	}
	c.Auth.UnsafeAnonymousNonLoopback = true
	if ps := c.Validate(); ps.Err() != nil {
		t.Errorf("confirmed: %v", ps)
	}
}

func TestUnsafeAllowConfirmed(t *testing.T) {
	src := "listen: 0.0.0.0:8080\npublic_url: https://b.example.com\nauth: {oidc: [{issuer: https://idp.example.com, audience: [x]}]}\npolicy: {default: deny}\nnetguard: {unsafe_allow: [10.0.0.0/8], unsafe_allow_http: true, unsafe_allow_confirm: true}\n"
	c, err := Parse([]byte(src), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if w := c.Warnings(); len(w) != 2 {
		t.Errorf("warnings = %q", w)
	}
}

// TestSessionsWarnWhenReplicasShareState: MCP sessions are per process, so
// a configuration that shares state between replicas (PostgreSQL store,
// Redis) is accepted with a warning that asks for sticky routing; a single
// process gets no warning, and without sessions nothing is said.
func TestSessionsWarnWhenReplicasShareState(t *testing.T) {
	const base = "auth: {anonymous: true}\npolicy: {default: deny}\n"
	tests := []struct {
		name string
		src  string
		warn bool
	}{
		{"sessions, sqlite store", "expose: {mcp: {sessions: true}}\n", false},
		{"sessions, memory store", "store: \"memory:\"\nexpose: {mcp: {sessions: true}}\n", false},
		{"sessions, postgres store", "store: postgres://bridge@db.internal/bridge\nexpose: {mcp: {sessions: true}}\n", true},
		{"sessions, postgresql store", "store: postgresql://bridge@db.internal/bridge\nexpose: {mcp: {sessions: true}}\n", true},
		{"sessions, redis", "redis: redis://127.0.0.1:6379/0\nlimits: {on_redis_error: closed}\nexpose: {mcp: {sessions: true}}\n", true},
		{"sessions, limits.redis", "limits: {redis: redis://127.0.0.1:6379/0, on_redis_error: closed}\nexpose: {mcp: {sessions: true}}\n", true},
		{"no sessions, postgres store and redis", "store: postgres://bridge@db.internal/bridge\nredis: redis://127.0.0.1:6379/0\nlimits: {on_redis_error: closed}\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(base+tt.src), "c.yaml")
			if err != nil {
				t.Fatalf("a configuration with sessions must be accepted: %v", err)
			}
			var got []string
			for _, w := range c.Warnings() {
				if strings.Contains(w, "expose.mcp.sessions") {
					got = append(got, w)
				}
			}
			if tt.warn != (len(got) == 1) || len(got) > 1 {
				t.Fatalf("sessions warnings = %q, want one: %v", got, tt.warn)
			}
			if tt.warn && !strings.Contains(got[0], "sticky routing") {
				t.Errorf("warning %q does not ask for sticky routing", got[0])
			}
		})
	}
}

func TestProblemsErr(t *testing.T) {
	var ps Problems
	if ps.Err() != nil {
		t.Error("empty Problems must be a nil error")
	}
	p := Problem{Path: "listen", Message: "required"}
	if p.Error() != "listen: required" {
		t.Errorf("%q", p.Error())
	}
}

func TestUnits(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want ByteSize
		ok   bool
	}{
		{"1MiB", 1 << 20, true}, {"512KiB", 512 << 10, true}, {"10MB", 10e6, true}, {"42", 42, true}, {"7B", 7, true},
		{"1.5MiB", 0, false}, {"-1", 0, false}, {"MiB", 0, false}, {"99999999999GiB", 0, false},
	} {
		got, err := ParseByteSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseByteSize(%q) = %v, %v", tt.in, got, err)
		}
	}
	if ByteSize(1<<20).String() != "1MiB" || ByteSize(1000).String() != "1000" {
		t.Error("ByteSize.String")
	}
}

// TestBenchConfigIsValid: bench/bridge.yaml, which make bench starts
// bridge serve with, parses with the variables bench/run.sh sets.
func TestBenchConfigIsValid(t *testing.T) {
	for k, v := range map[string]string{
		"BENCH_LISTEN": "127.0.0.1:18080", "BENCH_KEYS": t.TempDir(), "BENCH_UPSTREAM": "http://127.0.0.1:18081",
		"BENCH_MCP": "http://127.0.0.1:18082/mcp", "BENCH_PORTS_UP": "18081", "BENCH_PORTS_MCP": "18082", "BENCH_RETAIN": "60s",
	} {
		t.Setenv(k, v)
	}
	if _, err := Load("../bench/bridge.yaml"); err != nil {
		t.Fatalf("%v", err)
	}
}

// TestStoreSQLiteSynchronousOption: a sqlite: store URL takes one option,
// synchronous=full or synchronous=normal; any other is refused with the
// choices named.
func TestStoreSQLiteSynchronousOption(t *testing.T) {
	const base = "auth: {anonymous: true}\npolicy: {default: deny}\n"
	tests := []struct {
		store   string
		wantErr string
	}{
		{"sqlite:./bridge.db", ""},
		{"sqlite:./bridge.db?synchronous=full", ""},
		{"sqlite:./bridge.db?synchronous=normal", ""},
		{"sqlite:./bridge.db?synchronous=off", `c.yaml:3:1: store: sqlite: URL option "synchronous=off" is not known: the only one is synchronous=full (the default) or synchronous=normal (docs/stores.md)`},
		{"sqlite:?synchronous=normal", "c.yaml:3:1: store: sqlite: names no file: write sqlite:./bridge.db"},
	}
	for _, tt := range tests {
		t.Run(tt.store, func(t *testing.T) {
			_, err := Parse([]byte(base+"store: \""+tt.store+"\"\n"), "c.yaml")
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
