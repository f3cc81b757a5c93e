//go:build interop

// Package interop holds cross-implementation tests: the bridge against the
// @a2a-js/sdk client, our Go client against an @a2a-js/sdk server. They need
// node (v20+) and npm and run with `go test -tags interop ./interop/...`
// (`make interop`). Every socket is on 127.0.0.1.
package interop

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
)

// jsDir is the node project with client-test.mjs and server.mjs.
const jsDir = "a2ajs"

// readyTimeout bounds how long a started server may take to answer /healthz.
// It is a liveness bound, not an assertion about speed.
const readyTimeout = 60 * time.Second

// requireNode skips the test when node is not installed and makes sure the
// pinned npm dependencies are present (npm ci when node_modules is missing).
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("interop: node not found on PATH; install Node.js 20+ to run the A2A interop tests")
	}
	if _, err := os.Stat(filepath.Join(jsDir, "node_modules", "@a2a-js", "sdk")); err == nil {
		return node
	}
	npmInstall.Do(func() {
		npm, err := exec.LookPath("npm")
		if err != nil {
			npmInstallErr = errors.New("npm not found on PATH and interop/a2ajs/node_modules is missing")
			return
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = jsDir
		if out, err := cmd.CombinedOutput(); err != nil {
			npmInstallErr = fmt.Errorf("npm ci in interop/a2ajs: %w\n%s", err, out)
		}
	})
	if npmInstallErr != nil {
		t.Fatalf("interop: %v", npmInstallErr)
	}
	return node
}

var (
	npmInstall    sync.Once
	npmInstallErr error
)

// freeAddr returns a 127.0.0.1 address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("interop: reserve port: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("interop: release port: %v", err)
	}
	return addr
}

// server is a child process serving HTTP on 127.0.0.1.
type server struct {
	cmd    *exec.Cmd
	out    *syncbuf.Buffer // the child's output, collected while it runs
	exited chan struct{}
}

// startServer starts cmd, stops it (SIGTERM, then SIGKILL) when the test ends,
// and waits until GET healthURL answers 200.
func startServer(t *testing.T, cmd *exec.Cmd, healthURL string) *server {
	t.Helper()
	s := &server{cmd: cmd, out: &syncbuf.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("interop: start %s: %v", cmd.Path, err)
	}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-s.exited
		}
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(cmd.Path), s.out.String())
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	hc := &http.Client{Timeout: 5 * time.Second}
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, healthURL, nil)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("interop: %s exited before %s answered:\n%s", filepath.Base(cmd.Path), healthURL, s.out.String())
		case <-ctx.Done():
			t.Fatalf("interop: %s did not answer within %s:\n%s", healthURL, readyTimeout, s.out.String())
		case <-tick.C:
		}
	}
}

// buildBridge compiles ./cmd/bridge into a temporary directory, or returns
// $INTEROP_BRIDGE_BIN when set (a prebuilt bridge binary).
func buildBridge(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("INTEROP_BRIDGE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "bridge")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/bridge")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("interop: go build ./cmd/bridge: %v\n%s", err, out)
	}
	return bin
}

// startBridgeDemo runs `bridge demo` on a free loopback port and returns the
// demo agent's base URL.
func startBridgeDemo(t *testing.T) string {
	t.Helper()
	bin := buildBridge(t)
	addr := freeAddr(t)
	// A store of its own: tasks of earlier runs neither linger in the
	// source tree nor meet this one.
	store := "sqlite:" + filepath.Join(t.TempDir(), "demo.db")
	startServer(t, exec.Command(bin, "demo", "--addr", addr, "--store", store), "http://"+addr+"/healthz")
	return "http://" + addr + "/a2a/echo"
}

// startJSServer runs server.mjs (the @a2a-js/sdk agent) on a free loopback
// port and returns its base URL; env adds variables (A2A_JS_GRPC=only: the
// agent on the SDK's gRPC server alone).
func startJSServer(t *testing.T, node string, env ...string) string {
	t.Helper()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(node, "server.mjs")
	cmd.Dir = jsDir
	cmd.Env = append(append(os.Environ(), "HOST=127.0.0.1", "PORT="+port), env...)
	startServer(t, cmd, "http://"+addr+"/healthz")
	return "http://" + addr
}

// runJSClientTests runs client-test.mjs against base (env adds variables:
// A2A_BINDINGS, A2A_TENANT) and fails t with the node output when any test
// fails.
func runJSClientTests(t *testing.T, node, base string, env ...string) {
	t.Helper()
	cmd := exec.Command(node, "--test", "--test-reporter=tap", "client-test.mjs")
	cmd.Dir = jsDir
	cmd.Env = append(append(os.Environ(), "A2A_BASE_URL="+base), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("interop: node --test client-test.mjs against %s: %v\n%s", base, err, out)
	}
	t.Logf("client-test.mjs against %s:\n%s", base, summaryLines(string(out)))
}

// summaryLines keeps node's "# tests/pass/fail/..." summary.
func summaryLines(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "# ") && !strings.HasPrefix(line, "# Subtest") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// TestJSClientAgainstJSServer checks the harness itself: the SDK client
// against the SDK agent. If this fails the other results mean nothing.
func TestJSClientAgainstJSServer(t *testing.T) {
	node := requireNode(t)
	runJSClientTests(t, node, startJSServer(t, node))
}

// TestJSClientAgainstBridgeDemo runs the @a2a-js/sdk client over JSON-RPC and
// HTTP+JSON against `bridge demo`.
func TestJSClientAgainstBridgeDemo(t *testing.T) {
	node := requireNode(t)
	runJSClientTests(t, node, startBridgeDemo(t))
}
