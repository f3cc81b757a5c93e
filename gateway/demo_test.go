package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
)

// startDemo builds `bridge demo`'s configuration (examples/demo.yaml, with
// a memory store) through Build, as the demo command does, on a loopback
// httptest server whose URL is its public URL. The logs (access log
// included) go to the returned buffer.
func startDemo(t *testing.T) (*httptest.Server, *syncbuf.Buffer) {
	t.Helper()
	var h atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*h.Load()).ServeHTTP(w, r) }))
	t.Cleanup(ts.Close)
	cfg, err := examples.Demo(func(c *config.Config) {
		c.Listen, c.PublicURL, c.Store = ts.Listener.Addr().String(), ts.URL, "memory:"
	})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	b, err := Build(context.Background(), cfg, Options{Logger: slog.New(slog.NewJSONHandler(logs, nil)), PublicURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	hd := b.Handler()
	h.Store(&hd)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	t.Cleanup(func() {
		ts.Close()
		cancel()
		<-done
		_ = b.Close()
	})
	return ts, logs
}

func post(t *testing.T, url string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	code, _, b := postH(t, url, hdr, body)
	return code, b
}

// postH is post with the response's headers.
func postH(t *testing.T, url string, hdr map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

var (
	a2aHdr = map[string]string{"A2A-Version": "1.0"}
	mcpHdr = map[string]string{"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
)

// callTool is the JSON-RPC SendMessage body that calls a tool of the demo
// MCP server published at /a2a/tools.
func callTool(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"` + id + `","role":"ROLE_USER","parts":[{"data":{"tool":"` + tool + `","arguments":` + args + `}}]}}}`
}

// mcpEcho calls the MCP tool echo at /mcp until the exposed agent's card
// is loaded (in the background, once the listener serves).
func mcpEcho(t *testing.T, base string) string {
	t.Helper()
	var body string
	bridgetest.Eventually(t, 10*time.Second, "the MCP tool echo answers", func() error {
		_, body = post(t, base+"/mcp", mcpHdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
		if !strings.Contains(body, "echo: hi") {
			return fmt.Errorf("tools/call: %s", body)
		}
		return nil
	})
	return body
}

func TestDemoServesBothDirections(t *testing.T) {
	ts, _ := startDemo(t)
	t.Run("the demo MCP server published as an agent", func(t *testing.T) {
		code, body := post(t, ts.URL+"/a2a/tools", a2aHdr, callTool("m", "add", `{"a":2,"b":3}`))
		if code != 200 || !strings.Contains(body, "TASK_STATE_COMPLETED") || !strings.Contains(body, `"sum":5`) {
			t.Fatalf("%d %s", code, body)
		}
	})
	t.Run("the demo agent", func(t *testing.T) {
		code, body := post(t, ts.URL+"/a2a/echo", a2aHdr, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"e","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`)
		if code != 200 || !strings.Contains(body, "echo: hello") {
			t.Fatalf("%d %s", code, body)
		}
	})
	t.Run("the demo agent's card, signed, at the root well-known path", func(t *testing.T) {
		resp, err := http.Get(ts.URL + "/.well-known/agent-card.json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var c struct {
			Name       string            `json:"name"`
			Signatures []json.RawMessage `json:"signatures"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.Name != "Echo demo agent" || len(c.Signatures) == 0 {
			t.Fatalf("root card: %d %+v %v", resp.StatusCode, c, err)
		}
	})
	t.Run("the demo agent exposed as an MCP tool", func(t *testing.T) {
		body := mcpEcho(t, ts.URL)
		var r struct {
			Result struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Result.IsError || r.Result.StructuredContent["state"] != "completed" {
			t.Fatalf("tools/call: %s", body)
		}
	})
}

// TestDemoEnforcesWhatServeEnforces: the demo is its configuration built
// as `bridge serve` builds a file, so its policy denies by default, its
// limits count, its metrics and its access log see every call.
func TestDemoEnforcesWhatServeEnforces(t *testing.T) {
	ts, logs := startDemo(t)
	t.Run("a tool no rule allows is denied", func(t *testing.T) {
		code, body := post(t, ts.URL+"/a2a/tools", a2aHdr, callTool("u", "upper", `{"text":"x"}`))
		if !strings.Contains(body, `"error"`) || !strings.Contains(body, "PERMISSION_DENIED") || strings.Contains(body, `"X"`) {
			t.Fatalf("upper: %d %s", code, body)
		}
		code, body = post(t, ts.URL+"/a2a/tools", a2aHdr, callTool("e", "echo", `{"text":"x"}`))
		if code != 200 || !strings.Contains(body, "TASK_STATE_COMPLETED") {
			t.Fatalf("echo (allowed): %d %s", code, body)
		}
	})
	t.Run("the slow tool is limited to 5 calls a minute per caller", func(t *testing.T) {
		for i := range 5 {
			code, body := post(t, ts.URL+"/a2a/tools", a2aHdr, callTool("s"+string(rune('0'+i)), "slow", `{"seconds":0}`))
			if code != 200 || !strings.Contains(body, "TASK_STATE_COMPLETED") {
				t.Fatalf("slow call %d: %d %s", i+1, code, body)
			}
		}
		code, hdr, body := postH(t, ts.URL+"/a2a/tools", a2aHdr, callTool("s6", "slow", `{"seconds":0}`))
		if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" || !strings.Contains(body, "slow-tool") {
			t.Fatalf("sixth slow call: %d Retry-After %q %s", code, hdr.Get("Retry-After"), body)
		}
	})
	t.Run("metrics count the calls and the refusals", func(t *testing.T) {
		resp, err := http.Get(ts.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		m := string(b)
		for _, want := range []string{"bridge_requests_total{", `bridge_policy_decisions_total{decision="deny"`, `bridge_rate_limited_total{`, `bridge_skill_calls_total{agent="tools"`} {
			if !strings.Contains(m, want) {
				t.Errorf("/metrics has no %s", want)
			}
		}
	})
	t.Run("the access log has a line per request", func(t *testing.T) {
		var found bool
		for line := range strings.SplitSeq(logs.String(), "\n") {
			var l struct {
				Msg, Path, Method, Tool string
				Status                  int
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" && l.Path == "/a2a/tools" && l.Tool == "upper" {
				found = true
			}
		}
		if !found {
			t.Fatalf("no access log line for the denied call:\n%s", logs.String())
		}
	})
}
