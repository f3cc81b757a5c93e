//go:build interop

// Package a2a03 runs A2A 0.3 software we did not write against the bridge,
// and the bridge against it: the @a2a-js/sdk 0.3.14 client (installed
// under the npm alias "a2a03") against `bridge demo`, a published MCP
// server (@modelcontextprotocol/server-everything) and a fronted 1.0
// agent. Run with `go test -tags interop ./interop/a2a03/`; needs node 20+.
package a2a03

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
)

var npmOnce sync.Once

// requireNode skips without node and runs npm ci when node_modules is missing.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("interop: node not found on PATH; install Node.js 20+")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "a2a03")); err != nil {
		npmOnce.Do(func() {
			cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("npm ci in interop/a2a03: %v\n%s", err, out)
			}
		})
	}
	return node
}

// freeAddr returns a 127.0.0.1 address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// startServer starts cmd, stops it when the test ends, and waits until GET
// healthURL answers 200.
func startServer(t *testing.T, cmd *exec.Cmd, healthURL string) {
	t.Helper()
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(cmd.Path), out.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, healthURL, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before %s answered:\n%s", filepath.Base(cmd.Path), healthURL, out.String())
		case <-ctx.Done():
			t.Fatalf("%s did not answer:\n%s", healthURL, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// buildBridge compiles ./cmd/bridge, or returns $INTEROP_BRIDGE_BIN.
func buildBridge(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("INTEROP_BRIDGE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "bridge")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/bridge")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/bridge: %v\n%s", err, out)
	}
	return bin
}

// startPushReceiver runs push-receiver.mjs and returns its base URL.
func startPushReceiver(t *testing.T, node string) string {
	t.Helper()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(node, "push-receiver.mjs")
	cmd.Env = append(os.Environ(), "HOST=127.0.0.1", "PORT="+port)
	startServer(t, cmd, "http://"+addr+"/healthz")
	return "http://" + addr
}

// runNode runs a node test file with env and fails t with its output.
func runNode(t *testing.T, node, file string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=tap", file)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %s (%s): %v\n%s", file, strings.Join(env, " "), err, out)
	}
	t.Logf("node --test %s (%s):\n%s", file, strings.Join(env, " "), summary(string(out)))
}

func summary(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "# Subtest") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// TestA2A03ClientAgainstBridgeDemo: the 0.3 client against `bridge demo`:
// echo, streaming with final, /interview, get, cancel, resubscribe, push
// config set/get/list/delete and a delivery to a loopback receiver.
func TestA2A03ClientAgainstBridgeDemo(t *testing.T) {
	node := requireNode(t)
	bin := buildBridge(t)
	addr := freeAddr(t)
	store := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	startServer(t, exec.Command(bin, "demo", "--addr", addr, "--store", store, "--unsafe-allow-loopback-push"), "http://"+addr+"/healthz")
	push := startPushReceiver(t, node)
	runNode(t, node, "client03-test.mjs", "A2A_BASE_URL=http://"+addr+"/a2a/echo", "A2A_BINDINGS="+bindings, "A2A_PUSH_URL="+push)
}

// TestLegacyCompatClientAgainstBridge03View: the legacyCompat layer of
// @a2a-js/sdk 1.3.0 reads the bridge's 0.3 card view with its own card
// translation and speaks 0.3 JSON-RPC to `bridge demo`.
func TestLegacyCompatClientAgainstBridge03View(t *testing.T) {
	node := requireNode(t)
	bin := buildBridge(t)
	addr := freeAddr(t)
	startServer(t, exec.Command(bin, "demo", "--addr", addr, "--store", "memory:"), "http://"+addr+"/healthz")
	runNode(t, node, "legacycompat-test.mjs", "A2A_BASE_URL=http://"+addr+"/a2a/echo")
}

// bindings are the bindings of the 0.3 client the tests run.
const bindings = "JSONRPC,HTTP+JSON"
