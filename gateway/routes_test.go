package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/gateway"
)

// TestA2AAgentPathsRoute pins how the paths under /a2a/ reach the mounted
// agents, whether the agent's own path (/a2a/{name}, where calls go)
// matches a pattern of its own or only the /a2a/ prefix: an unknown
// agent's path must be refused, never answered by another agent's routes,
// and an unclean path redirected to its clean form, never served as is.
func TestA2AAgentPathsRoute(t *testing.T) {
	up := startFrontUpstream(t)
	e := startFront(t, frontYAML(up.srv.URL+"/.well-known/agent-card.json", ""), gateway.Options{})
	const send = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		name, method, path string
		want               int
		location           string
	}{
		{"call on the agent's own path", http.MethodPost, "/a2a/agent", http.StatusOK, ""},
		{"call under the agent's path", http.MethodPost, "/a2a/agent/", http.StatusOK, ""},
		{"card under the agent's path", http.MethodGet, "/a2a/agent/.well-known/agent-card.json", http.StatusOK, ""},
		{"call on an unknown agent's path", http.MethodPost, "/a2a/nosuch", http.StatusNotFound, ""},
		{"call under an unknown agent's path", http.MethodPost, "/a2a/nosuch/", http.StatusNotFound, ""},
		{"agent name that is a prefix of a mounted one", http.MethodPost, "/a2a/agen", http.StatusNotFound, ""},
		{"empty agent name", http.MethodPost, "/a2a/", http.StatusNotFound, ""},
		{"dot-dot into the agent's path", http.MethodPost, "/a2a/nosuch/../agent", http.StatusTemporaryRedirect, "/a2a/agent"},
		{"doubled slash before the agent's name", http.MethodPost, "/a2a//agent", http.StatusTemporaryRedirect, "/a2a/agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body *strings.Reader
			if tc.method == http.MethodPost {
				body = strings.NewReader(send)
			} else {
				body = strings.NewReader("")
			}
			req, err := http.NewRequest(tc.method, e.url, body)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Path = tc.path // as sent: NewRequest would not clean it, nor would the client
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("A2A-Version", "1.0")
			req.Header.Set("Authorization", "Bearer "+aliceKey)
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("%s %s: status %d, want %d", tc.method, tc.path, resp.StatusCode, tc.want)
			}
			if got := resp.Header.Get("Location"); tc.location != "" && got != tc.location {
				t.Fatalf("%s %s: Location %q, want %q", tc.method, tc.path, got, tc.location)
			}
		})
	}
}
