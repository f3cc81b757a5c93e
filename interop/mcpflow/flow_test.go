//go:build interop

// Package mcpflow drives the official MCP TypeScript client
// (@modelcontextprotocol/sdk, pinned in package.json) through the bridge's
// front-MCP face in front of @modelcontextprotocol/server-everything (a stdio
// child), on each of the face's transports: streamable HTTP stateless,
// streamable HTTP with sessions, and stdio. Every socket is on 127.0.0.1.
//
//	(cd interop/mcpflow && npm ci)
//	go test -tags interop -v ./interop/mcpflow/
package mcpflow

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/gateway/gatewaytest"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	front1 "github.com/a2a-mcp-bridge/bridge/mcp/front"
)

const everything = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// serveStdioEnv makes the test binary serve the fronted server-everything
// over stdio instead of running tests: the TypeScript client spawns it.
const serveStdioEnv = "BRIDGE_MCPFLOW_SERVE_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(serveStdioEnv) == "1" {
		os.Exit(serveStdio())
	}
	os.Exit(m.Run())
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// front connects to server-everything as a stdio child and fronts it, its
// tools under their own names.
func front(ctx context.Context, nodeBin, script string) (*connector.Conn, *front1.Source, error) {
	up, err := connector.Dial(ctx, connector.Config{Name: "everything", Stdio: &connector.StdioConfig{Command: nodeBin, Args: []string{script, "stdio"}}, Logger: quiet()})
	if err != nil {
		return nil, nil, err
	}
	src, err := front1.New(ctx, front1.Config{Servers: []front1.Server{{Name: "everything", NoPrefix: true, Upstream: up}}, Logger: quiet()})
	if err != nil {
		_ = up.Close()
		return nil, nil, err
	}
	return up, src, nil
}

// serveStdio is the child mode: the face over this process's stdio.
func serveStdio() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	up, src, err := front(ctx, os.Getenv("MCPFLOW_NODE"), os.Getenv("MCPFLOW_EVERYTHING"))
	if err != nil {
		quiet().Error("mcpflow: front server-everything", "err", err)
		return 1
	}
	defer up.Close()
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{src}, Logger: quiet()})
	if err != nil {
		return 1
	}
	if err := f.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

func requireNode(t *testing.T) string {
	t.Helper()
	return bridgetest.Node(t, ".", "@modelcontextprotocol/server-everything")
}

// serveHTTP fronts server-everything behind the face over streamable HTTP.
func serveHTTP(t *testing.T, node string, sessions bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script, _ := filepath.Abs(everything)
	up, src, err := front(ctx, node, script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = up.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	public := "http://" + ln.Addr().String()
	f, err := endpoint.New(endpoint.Config{PublicURL: public, UnsafeNoAuth: true, LegacySessions: sessions, Sources: []endpoint.ToolSource{src}, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	hs.Start()
	t.Cleanup(hs.Close)
	return public + "/mcp"
}

// faces are the transports the host reaches the bridge on; each returns
// the environment that points progress-test.mjs at it.
func faces(t *testing.T, node string) map[string]func(t *testing.T) []string {
	return map[string]func(t *testing.T) []string{
		"http-stateless": func(t *testing.T) []string {
			return []string{"MCP_MODE=http", "MCP_URL=" + serveHTTP(t, node, false)}
		},
		"http-sessions": func(t *testing.T) []string {
			return []string{"MCP_MODE=http", "MCP_URL=" + serveHTTP(t, node, true)}
		},
		"stdio": func(t *testing.T) []string {
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd, _ := json.Marshal([]string{self})
			script, _ := filepath.Abs(everything)
			return []string{"MCP_MODE=stdio", "MCP_STDIO=" + string(cmd), serveStdioEnv + "=1", "MCPFLOW_NODE=" + node, "MCPFLOW_EVERYTHING=" + script}
		},
	}
}

func runNode(t *testing.T, node, script string, env ...string) {
	t.Helper()
	bridgetest.RunNodeTest(t, node, "", script, env...)
}

// TestTSClientProgressPrecedesResult: 50 calls of server-everything's
// trigger-long-running-operation (5 steps, 10 ms apart, the result right
// after the last) per transport; at each result all 5 notifications must
// have arrived, in order. Through front.mcp the last one used to be lost in
// most runs.
func TestTSClientProgressPrecedesResult(t *testing.T) {
	node := requireNode(t)
	for name, env := range faces(t, node) {
		t.Run(name, func(t *testing.T) {
			e := append(env(t), "MCP_TOOL=trigger-long-running-operation", `MCP_ARGS={"duration":0.05,"steps":5}`, "MCP_STEPS=5", "RUNS=50")
			runNode(t, node, "progress-test.mjs", e...)
		})
	}
}

// serveExpose runs `bridge demo` in-process (its configuration through
// gateway.Build): the demo A2A agent exposed as MCP tools at /mcp
// (anonymous loopback callers, stateless); its "echo" tool declares task
// support.
func serveExpose(t *testing.T) string {
	t.Helper()
	_, base := gatewaytest.StartDemo(t, quiet())
	return base + "/mcp"
}

// TestTSClientTaskFlow: MCP tasks through the expose face, the 2025-11-25
// flow with the TypeScript client's task API and the 2026-07-28 flow
// (tasks extension) with the messages the script sends itself.
func TestTSClientTaskFlow(t *testing.T) {
	node := requireNode(t)
	runNode(t, node, "tasks-test.mjs", "MCP_URL="+serveExpose(t), "MCP_TOOL=echo")
}

// TestTSClientSamplingThroughFront: server-everything's sampling request
// reaches the host and its answer the server, through front.mcp on HTTP
// with sessions, on stateless HTTP (asked on the call's own event stream, as
// the host declared sampling at its initialize) and over stdio.
func TestTSClientSamplingThroughFront(t *testing.T) {
	node := requireNode(t)
	expect := map[string]string{"http-sessions": "answer", "stdio": "answer", "http-stateless": "answer"}
	for name, env := range faces(t, node) {
		t.Run(name, func(t *testing.T) {
			runNode(t, node, "sampling-test.mjs", append(env(t), "MCP_EXPECT="+expect[name])...)
		})
	}
}
