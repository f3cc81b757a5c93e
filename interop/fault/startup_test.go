//go:build interop

package fault

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// TestFault_UpstreamDownAtBridgeStart: every kind of upstream is down when
// the bridge starts (a sidecar's containers start in any order). The bridge
// starts anyway: /healthz answers, /readyz and bridge_upstream_up name the
// upstream as down, and callers are told it is unavailable in their
// protocol (an exposed agent's tool is listed under its alias and says the
// agent is unreachable). Once the upstream comes up, the bridge connects by
// itself and serves it.
func TestFault_UpstreamDownAtBridgeStart(t *testing.T) {
	type peer struct {
		section string                  // the config section naming addr (or marker)
		start   func() *bridgetest.Proc // brings the upstream up (nil: marker file)
	}
	for _, tt := range []struct {
		kind, name string
		setup      func(t *testing.T, addr, marker string) peer
		// whileDown checks what a caller sees while the upstream is down.
		whileDown func(t *testing.T, b *bridgetest.Bridge, addr string)
		// works returns nil once a call through the bridge works.
		works func(t *testing.T, b *bridgetest.Bridge) error
	}{
		{"publish", "stdio", func(t *testing.T, addr, marker string) peer {
			// A child that cannot start until the marker file exists.
			script := filepath.Join(t.TempDir(), "server.sh")
			body := fmt.Sprintf("#!/bin/sh\n[ -f %q ] || { echo 'not ready' >&2; exit 1; }\nexec %q\n", marker, bridgetest.MCPTestServerBinary(t))
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			return peer{section: fmt.Sprintf("publish:\n  - {name: stdio, stdio: {command: %q}}\n", script)}
		}, publishDown("stdio"), publishWorks("stdio", "echo", map[string]any{"text": "up"})},
		{"publish", "http", func(t *testing.T, addr, _ string) peer {
			return peer{section: fmt.Sprintf("publish:\n  - {name: http, http: {url: \"http://%s/mcp\"}}\n", addr),
				start: func() *bridgetest.Proc { return startMCPTestServerHTTP(t, addr) }}
		}, publishDown("http"), publishWorks("http", "echo", map[string]any{"text": "up"})},
		{"publish", "sse", func(t *testing.T, addr, _ string) peer {
			return peer{section: fmt.Sprintf("publish:\n  - {name: sse, sse: {url: \"http://%s/sse\"}}\n", addr),
				start: func() *bridgetest.Proc { return startEverythingSSE(t, addr) }}
		}, publishDown("sse"), publishWorks("sse", "echo", map[string]any{"message": "up"})},
		{"front.mcp", "files", func(t *testing.T, addr, _ string) peer {
			return peer{section: fmt.Sprintf("front:\n  mcp:\n    - {name: files, http: {url: \"http://%s/mcp\"}}\n", addr),
				start: func() *bridgetest.Proc { return startEverythingHTTP(t, addr) }}
		}, func(t *testing.T, b *bridgetest.Bridge, addr string) {
			host := dialMCP(t, b.URL+"/mcp")
			for _, tool := range host.Tools(t) {
				if strings.HasPrefix(tool, "files_") {
					t.Errorf("tool %s listed before the server was ever reached", tool)
				}
			}
		}, func(t *testing.T, b *bridgetest.Bridge) error {
			return dialMCP(t, b.URL+"/mcp").callOK(t, "files_echo", map[string]any{"message": "up"}, "up")
		}},
		{"front.a2a", "research", func(t *testing.T, addr, _ string) peer {
			return peer{section: fmt.Sprintf("front:\n  a2a:\n    - {name: research, url: \"http://%s\"}\n", addr),
				start: func() *bridgetest.Proc { return startA2AJS(t, addr) }}
		}, func(t *testing.T, b *bridgetest.Bridge, addr string) {
			status, _, rpcErr := a2aCall(t, b.URL+"/a2a/research", "SendMessage", textMessage("hi"))
			if rpcErr == nil || rpcErr.Code != -32603 || rpcErr.Reason() != "AGENT_UNAVAILABLE" || status != http.StatusOK {
				t.Errorf("JSON-RPC while down: HTTP %d %+v", status, rpcErr)
			} else {
				noAddress(t, "the error", rpcErr.Message, addr, "connection refused")
			}
			code, body := bridgetest.Get(t, b.URL+"/a2a/research/.well-known/agent-card.json")
			if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "AGENT_UNAVAILABLE") {
				t.Errorf("card while down: %d %s", code, body)
			}
		}, func(t *testing.T, b *bridgetest.Bridge) error {
			return a2aOK(t, b.URL+"/a2a/research", textMessage("up"), "echo: up")
		}},
		{"expose", "research", func(t *testing.T, addr, _ string) peer {
			return peer{section: fmt.Sprintf("expose:\n  agents:\n    - {alias: research, url: \"http://%s\"}\n", addr),
				start: func() *bridgetest.Proc { return startA2AJS(t, addr) }}
		}, func(t *testing.T, b *bridgetest.Bridge, addr string) {
			host := dialMCP(t, b.URL+"/mcp")
			if !host.HasTool(t, "research") {
				t.Errorf("the exposed agent's tool is not listed while it is down: %v", host.Tools(t))
			}
			res, text, err := host.Call(t, "research", map[string]any{"message": "hi"})
			// The error names the agent and the kind of failure, never the
			// address dialled.
			if err != nil || !res.IsError || !strings.HasPrefix(text, "agent research unreachable: fetching its card failed: connection refused") {
				t.Errorf("call while down: %v %q", err, text)
			}
			noAddress(t, "the result", text, addr)
		}, func(t *testing.T, b *bridgetest.Bridge) error {
			return dialMCP(t, b.URL+"/mcp").callOK(t, "research", map[string]any{"message": "up"}, "echo: up")
		}},
	} {
		t.Run(tt.kind+"/"+tt.name, func(t *testing.T) {
			addr := bridgetest.FreeAddr(t)
			marker := filepath.Join(t.TempDir(), "ready")
			p := tt.setup(t, addr, marker)
			start := time.Now()
			b := startBridge(t, baseConfig()+p.section)
			t.Logf("%s/%s: the bridge started in %s with the upstream down", tt.kind, tt.name, time.Since(start).Round(time.Millisecond))
			bridgetest.Eventually(t, recoverBound, "readyz names the upstream as down", func() error {
				return upstreamIs(t, b, tt.kind, tt.name, "down")
			})
			code, r, body := bridgetest.Readyz(t, b.URL)
			if code != http.StatusServiceUnavailable || len(r.NotReady) != 1 || !strings.HasPrefix(r.NotReady[0], tt.kind+" "+tt.name+": down: ") {
				t.Errorf("readyz %d: %s", code, body)
			}
			noAddress(t, "/readyz", body, addr)
			if err := upMetric(t, b, tt.kind, tt.name, 0); err != nil {
				t.Error(err)
			}
			tt.whileDown(t, b, addr)

			up := time.Now()
			if p.start != nil {
				p.start()
			} else if err := os.WriteFile(marker, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			took := bridgetest.Eventually(t, recoverBound, "a call works once the upstream is up", func() error { return tt.works(t, b) })
			bridgetest.Eventually(t, recoverBound, "readyz", func() error {
				if code, _, body := bridgetest.Readyz(t, b.URL); code != http.StatusOK {
					return fmt.Errorf("readyz %d: %s", code, body)
				}
				return nil
			})
			if err := upMetric(t, b, tt.kind, tt.name, 1); err != nil {
				t.Error(err)
			}
			t.Logf("%s/%s: down at start: calls work %s after the upstream came up (ready %s)",
				tt.kind, tt.name, took.Round(time.Millisecond), time.Since(up).Round(time.Millisecond))
		})
	}
}

// publishDown checks a published agent whose server is down: a message is
// answered AGENT_UNAVAILABLE naming the agent, in both bindings.
func publishDown(agent string) func(t *testing.T, b *bridgetest.Bridge, addr string) {
	return func(t *testing.T, b *bridgetest.Bridge, addr string) {
		status, _, rpcErr := a2aCall(t, b.URL+"/a2a/"+agent, "SendMessage", toolMessage("echo", map[string]any{"text": "x"}))
		if rpcErr == nil || rpcErr.Code != -32603 || rpcErr.Reason() != "AGENT_UNAVAILABLE" || status != http.StatusOK ||
			!strings.Contains(rpcErr.Message, "agent "+agent+" is unavailable") {
			t.Errorf("JSON-RPC while down: HTTP %d %+v", status, rpcErr)
			return
		}
		noAddress(t, "the error", rpcErr.Message, addr, "connection refused")
	}
}

// publishWorks calls tool on a published agent.
func publishWorks(agent, tool string, args map[string]any) func(t *testing.T, b *bridgetest.Bridge) error {
	return func(t *testing.T, b *bridgetest.Bridge) error {
		return a2aOK(t, b.URL+"/a2a/"+agent, toolMessage(tool, args), "up")
	}
}
