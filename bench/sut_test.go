package bench_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/bench"
)

// sendBody is the JSON-RPC SendMessage every load phase posts.
const sendBody = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"bench-1","role":"ROLE_USER","parts":[{"text":"hello from the benchmark"}]}}}`

// sut is an upstream and the bridge fronting it, both on loopback.
type sut struct {
	up, br *httptest.Server
	bridge *bench.Bridge
}

func newSUT(tb testing.TB) *sut {
	tb.Helper()
	s := &sut{}
	var upH http.Handler
	s.up = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { upH.ServeHTTP(w, r) }))
	up, err := bench.NewUpstream(s.up.URL, nil)
	if err != nil {
		tb.Fatal(err)
	}
	upH = up.Handler
	var brH http.Handler
	s.br = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { brH.ServeHTTP(w, r) }))
	br, err := bench.NewBridge(context.Background(), bench.BridgeConfig{
		UpstreamCardURL: s.up.URL + "/.well-known/agent-card.json", BaseURL: s.br.URL, HTTPClient: s.up.Client(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	brH, s.bridge = br.Handler, br
	tb.Cleanup(func() {
		s.br.Close()
		s.up.Close()
		br.Manager.Wait()
		up.Manager.Wait()
		br.Limiter.Close()
	})
	return s
}

func post(tb testing.TB, c *http.Client, url, token, body string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestBridgeRelaysSendMessage(t *testing.T) {
	s := newSUT(t)
	for _, tc := range []struct {
		name, url, token string
	}{
		{"direct", s.up.URL, ""},
		{"bridge", s.br.URL, s.bridge.Token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, http.DefaultClient, tc.url, tc.token, sendBody)
			if code != http.StatusOK || !strings.Contains(body, "TASK_STATE_COMPLETED") || !strings.Contains(body, "echo: hello from the benchmark") {
				t.Fatalf("got %d %s", code, body)
			}
		})
	}
}

// TestRejectsCallWithoutToken: the benchmarked bridge really has its checks
// on, so a caller without a valid token is refused before the upstream.
func TestRejectsCallWithoutToken(t *testing.T) {
	s := newSUT(t)
	for _, tc := range []struct{ name, token string }{
		{"no token", ""},
		{"forged token", s.bridge.Token[:len(s.bridge.Token)-4] + "AAAA"},
		{"api-key-looking token", "not-a-jwt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, http.DefaultClient, s.br.URL, tc.token, sendBody)
			if code != http.StatusUnauthorized || strings.Contains(body, "TASK_STATE_COMPLETED") {
				t.Fatalf("got %d %s", code, body)
			}
		})
	}
}

// TestPolicyDeniesUnlistedMethod: the policy is evaluated on the path (a
// method outside the allow rule is refused).
func TestPolicyDeniesUnlistedMethod(t *testing.T) {
	s := newSUT(t)
	code, body := post(t, http.DefaultClient, s.br.URL, s.bridge.Token,
		`{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`)
	if !strings.Contains(body, "denied by policy") {
		t.Fatalf("got %d %s", code, body)
	}
}

// BenchmarkSendMessage posts a blocking JSON-RPC SendMessage over loopback
// directly to the upstream and through the protected bridge. Client, bridge
// and upstream share the process, so allocs/op of "bridge" minus "direct" is
// the bridge's own cost per request (auth with a warm token cache, policy,
// rate limit, task store, relayed upstream call).
func BenchmarkSendMessage(b *testing.B) {
	s := newSUT(b)
	for _, tc := range []struct {
		name, url, token string
	}{
		{"direct", s.up.URL, ""},
		{"bridge", s.br.URL, s.bridge.Token},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			defer c.CloseIdleConnections()
			if code, body := post(b, c, tc.url, tc.token, sendBody); code != http.StatusOK {
				b.Fatalf("warm-up: %d %s", code, body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if code, body := post(b, c, tc.url, tc.token, sendBody); code != http.StatusOK || !strings.Contains(body, "TASK_STATE_COMPLETED") {
					b.Fatalf("%d %s", code, body)
				}
			}
		})
	}
}
