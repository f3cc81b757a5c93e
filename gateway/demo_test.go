package gateway

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/store"
)

// startDemo serves NewDemo on a loopback httptest server whose URL is the
// demo's public URL.
func startDemo(t *testing.T) *httptest.Server {
	t.Helper()
	var h atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*h.Load()).ServeHTTP(w, r) }))
	ctx, cancel := context.WithCancel(context.Background())
	demo, err := NewDemo(ctx, DemoOptions{PublicURL: ts.URL, Store: store.NewMemory(), ListenAddr: ts.Listener.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	h.Store(&demo.Handler)
	demo.Run(ctx)
	t.Cleanup(func() {
		ts.Close()
		cancel()
		demo.Close()
		demo.Manager.Wait()
		demo.Tools.Wait()
	})
	return ts
}

func post(t *testing.T, url string, hdr map[string]string, body string) (int, string) {
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
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b.String()
}

func TestDemoServesBothDirections(t *testing.T) {
	ts := startDemo(t)
	a2aHdr := map[string]string{"A2A-Version": "1.0"}
	t.Run("the demo MCP server published as an agent", func(t *testing.T) {
		code, body := post(t, ts.URL+DemoToolsBase, a2aHdr, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"tool":"add","arguments":{"a":2,"b":3}}}]}}}`)
		if code != 200 || !strings.Contains(body, "TASK_STATE_COMPLETED") || !strings.Contains(body, `"sum":5`) {
			t.Fatalf("%d %s", code, body)
		}
	})
	t.Run("the demo agent exposed as an MCP tool", func(t *testing.T) {
		mcpHdr := map[string]string{"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
		var body string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			_, body = post(t, ts.URL+"/mcp", mcpHdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
			if strings.Contains(body, "echo: hi") {
				break
			}
		}
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

func TestDemoServesNoAnonymousMCPOnANetworkListener(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := (&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}).String()
	demo, err := NewDemo(ctx, DemoOptions{PublicURL: "http://" + addr, Store: store.NewMemory(), ListenAddr: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer demo.Close()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{}`))
	req.Host = addr // the demo answers only to its own names
	demo.Handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Fatalf("/mcp on a network listener: %d", rec.Code)
	}
}
