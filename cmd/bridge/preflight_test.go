package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// base is the smallest valid configuration; each case adds to it.
// (anonymous callers unless the case has its own auth section).
const base = "listen: 127.0.0.1:0\npolicy: {default: deny}\n"

func withAuth(yaml string) string {
	if strings.Contains(yaml, "auth:") {
		return base + yaml
	}
	return base + "auth: {anonymous: true}\n" + yaml
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func writeFile(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

// TestCheckConfigChecksThisMachine: check-config goes past the file: every
// key file, stdio command, store and Redis URL is checked where the bridge
// would use it, each problem with the file's line and column and the exact
// message.
func TestCheckConfigChecksThisMachine(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bin, "mcp-server"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(bin, "not-exec"), "#!/bin/sh\n", 0o644)
	writeFile(t, filepath.Join(dir, "garbage.pem"), "not a key\n", 0o600)
	writeFile(t, filepath.Join(dir, "garbage.json"), "{not json", 0o600)
	writeFile(t, filepath.Join(dir, "notdb.db"), "hello, this is not SQLite at all", 0o600)
	keyPEM, err := card.GenerateKey(card.ES256)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "good.pem"), string(keyPEM), 0o600)
	t.Setenv("PATH", bin)
	refused := closedPort(t)

	tests := []struct {
		name string
		yaml string // after base, with DIR for the temp dir and REFUSED for a closed port
		want string // the output, with FILE for the file's name and DIR
	}{
		{"ok", `store: "sqlite:DIR/new.db"
keys: {signing: DIR/good.pem}
publish:
  - {name: a, stdio: {command: mcp-server}}
`, "FILE: ok\n"},
		{"signing key missing", "store: \"memory:\"\nkeys:\n  signing: DIR/missing.pem\n",
			"FILE:6:3: keys.signing: cannot read DIR/missing.pem: no such file or directory: create it with bridge keys generate DIR/missing.pem\n"},
		{"signing key not a key", "store: \"memory:\"\nkeys:\n  signing: DIR/garbage.pem\n",
			"FILE:6:3: keys.signing: DIR/garbage.pem is not a signing key: invalid key: no PKCS#8 \"PRIVATE KEY\" PEM block\n"},
		{"signing key a directory", "store: \"memory:\"\nkeys:\n  signing: DIR\n",
			"FILE:6:3: keys.signing: DIR is a directory, not a file\n"},
		{"previous key missing", "store: \"memory:\"\nkeys:\n  signing: DIR/good.pem\n  previous: [DIR/old.pem]\n",
			"FILE:7:14: keys.previous[0]: cannot read DIR/old.pem: no such file or directory\n"},
		{"jwks file missing", "store: \"memory:\"\nauth:\n  jwks:\n    - {issuer: https://idp.example, file: DIR/jwks.json, audience: [x]}\n",
			"FILE:6:37: auth.jwks[0].file: cannot read DIR/jwks.json: no such file or directory\n"},
		{"card keys not a jwks", `store: "memory:"
expose:
  agents:
    - alias: billing
      url: https://billing.example/
      card: {keys: DIR/garbage.json}
`, "FILE:9:14: expose.agents[0].card.keys: DIR/garbage.json is not a JWKS document: invalid character 'n' looking for beginning of object key string\n"},
		{"command not on PATH", "store: \"memory:\"\npublish:\n  - name: a\n    stdio: {command: no-such-server}\n",
			"FILE:7:13: publish[0].stdio.command: \"no-such-server\" is not found on the bridge's PATH: install it, or write its absolute path\n"},
		{"command not on the child's PATH", "store: \"memory:\"\npublish:\n  - name: a\n    stdio: {command: mcp-server, env: {PATH: /nowhere}}\n",
			"FILE:7:13: publish[0].stdio.command: \"mcp-server\" is not found on the PATH set in stdio.env: install it, or write its absolute path\n"},
		{"command not executable", "store: \"memory:\"\nfront:\n  mcp:\n    - name: a\n      stdio: {command: DIR/bin/not-exec}\n",
			"FILE:8:15: front.mcp[0].stdio.command: DIR/bin/not-exec is not an executable file\n"},
		{"command path missing", "store: \"memory:\"\npublish:\n  - name: a\n    stdio: {command: ./server, dir: DIR}\n",
			"FILE:7:13: publish[0].stdio.command: DIR/server does not exist: install it, or fix the path\n"},
		{"stdio dir missing", "store: \"memory:\"\npublish:\n  - name: a\n    stdio: {command: mcp-server, dir: DIR/nowhere}\n",
			"FILE:7:34: publish[0].stdio.dir: directory DIR/nowhere does not exist: create it, or name another\n"},
		{"sqlite directory missing", "store: sqlite:DIR/nowhere/tasks.db\n",
			"FILE:4:1: store: directory DIR/nowhere does not exist: create it, or name a file in another one\n"},
		{"sqlite file not a database", "store: sqlite:DIR/notdb.db\n",
			"FILE:4:1: store: DIR/notdb.db is not a SQLite database: name another file\n"},
		{"CEL does not compile", "store: \"memory:\"\nlimits:\n  rules:\n    - {per: principal, rate: 10/s, when: 'hop.tool =='}\n",
			"FILE:7:54: limits.rules[0].when: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"},
		{"redis unreachable", "store: \"memory:\"\nredis: redis://REFUSED/0\nlimits: {on_redis_error: closed}\n",
			"FILE:5:1: redis: Redis does not answer within 3s: dial tcp REFUSED: connect: connection refused\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			writeFile(t, file, withAuth(strings.NewReplacer("DIR", dir, "REFUSED", refused).Replace(tt.yaml)), 0o600)
			var out bytes.Buffer
			err := runCheckConfig(context.Background(), []string{file}, &out, &bytes.Buffer{})
			want := strings.NewReplacer("FILE", file, "DIR", dir, "REFUSED", refused).Replace(tt.want)
			if out.String() != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
			}
			if (err == nil) != (tt.want == "FILE: ok\n") {
				t.Errorf("err = %v", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "new.db")); err == nil {
		t.Error("check-config created the SQLite database it checked")
	}
}

// TestCheckConfigPostgres: a PostgreSQL store must accept a connection;
// one that refuses is reported at store.
func TestCheckConfigPostgres(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{"refused": "postgres://bridge:s3cret@" + closedPort(t) + "/bridge"}
	if u := os.Getenv("BRIDGE_TEST_POSTGRES_URL"); u != "" {
		cases["reachable"] = u
	}
	for name, u := range cases {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, name+".yaml")
			writeFile(t, file, withAuth("store: "+u+"\n"), 0o600)
			var out bytes.Buffer
			err := runCheckConfig(context.Background(), []string{file}, &out, &bytes.Buffer{})
			got := out.String()
			if strings.Contains(got, "s3cret") {
				t.Fatalf("the store's password was printed: %s", got)
			}
			if name == "reachable" {
				if err != nil || got != file+": ok\n" {
					t.Fatalf("reachable store: %v\n%s", err, got)
				}
				return
			}
			prefix := file + ":4:1: store: cannot connect to PostgreSQL at 127.0.0.1: "
			if err == nil || !strings.HasPrefix(got, prefix) || !strings.Contains(got, "connection refused") {
				t.Fatalf("got %q, want %q…connection refused", got, prefix)
			}
		})
	}
}

// TestCheckConfigProbe: --probe reaches every upstream and issuer once; one
// that does not answer is reported at its entry, one that does passes.
func TestCheckConfigProbe(t *testing.T) {
	dir := t.TempDir()
	mcpSrv := httptest.NewServer(server.NewStreamableHTTPServer(connectortest.NewServer(connectortest.Options{}).MCP))
	t.Cleanup(mcpSrv.Close)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/good/.well-known/agent-card.json" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"name":"good"}`))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(agent.Close)
	refused := closedPort(t)
	const up = `store: "memory:"
auth: {anonymous: true}
netguard: {unsafe_allow_http: true}
publish:
  - name: good
    http: {url: "MCP/mcp"}
front:
  a2a:
    - {name: fronted, url: "AGENT/good/"}
`
	tests := []struct {
		name, yaml, want string
	}{
		{"all answer", up, "FILE: ok\n"},
		{"none answer", `store: "memory:"
netguard: {unsafe_allow_http: true}
auth:
  oidc:
    - {issuer: "AGENT/idp", audience: [x]}
publish:
  - name: down
    http: {url: "http://REFUSED/mcp"}
expose:
  agents:
    - {alias: missing, url: "AGENT/missing/"}
`, "FILE:7:8: auth.oidc[0].issuer: probe: the issuer's discovery failed: oidc discovery for AGENT/idp: 404 Not Found: OIDC_ERR\n" +
			"FILE:9:5: publish[0]: probe: the MCP server did not answer: MCP_ERR\n" +
			"FILE:13:24: expose.agents[0].url: probe: the agent card AGENT/missing/.well-known/agent-card.json answered HTTP 404\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := strings.NewReplacer("MCP", mcpSrv.URL, "AGENT", agent.URL, "REFUSED", refused)
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			writeFile(t, file, "listen: 127.0.0.1:0\npolicy: {default: deny}\n"+r.Replace(tt.yaml)+"\n", 0o600)
			var out bytes.Buffer
			err := runCheckConfig(context.Background(), []string{"--probe", file}, &out, &bytes.Buffer{})
			want := strings.NewReplacer("FILE", file, "AGENT", agent.URL).Replace(tt.want)
			got := out.String()
			if tt.want == "FILE: ok\n" {
				if err != nil || got != want {
					t.Fatalf("%v\n%s", err, got)
				}
				return
			}
			// The causes are the network's words; the rest is exact.
			lines, wantLines := strings.Split(got, "\n"), strings.Split(want, "\n")
			if len(lines) != len(wantLines) {
				t.Fatalf("stdout:\n%s\nwant:\n%s", got, want)
			}
			for i, w := range wantLines {
				pre, _, cut := strings.Cut(w, "OIDC_ERR")
				if !cut {
					pre, _, cut = strings.Cut(w, "MCP_ERR")
				}
				if cut && strings.HasPrefix(lines[i], pre) && len(lines[i]) > len(pre) || !cut && lines[i] == w {
					continue
				}
				t.Errorf("line %d:\n%s\nwant:\n%s", i, lines[i], w)
			}
		})
	}
}
