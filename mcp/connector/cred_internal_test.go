package connector

import (
	"net/http"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/auth"
)

type recordTrip struct{ got *http.Request }

func (r *recordTrip) RoundTrip(req *http.Request) (*http.Response, error) {
	r.got = req
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: req}, nil
}

// TestNoCredentialsStripInboundAuthorization: with no credentials
// configured (auth.None), a request carrying Authorization or
// Proxy-Authorization (a configured header) leaves without them, on a copy;
// one without them leaves as it is, uncopied.
func TestNoCredentialsStripInboundAuthorization(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header map[string]string
		copied bool
	}{
		{"none", nil, false},
		{"other headers", map[string]string{"X-Api": "1"}, false},
		{"authorization", map[string]string{"Authorization": "Bearer inbound"}, true},
		{"empty authorization", map[string]string{"Authorization": ""}, true},
		{"proxy authorization", map[string]string{"Proxy-Authorization": "Basic x"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := &recordTrip{}
			tr := credTransport{base: base, creds: auth.None{}}
			req, _ := http.NewRequest(http.MethodPost, "http://mcp.test/mcp", http.NoBody)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if copied := base.got != req; copied != tc.copied {
				t.Errorf("request copied: %v, want %v", copied, tc.copied)
			}
			for _, h := range []string{"Authorization", "Proxy-Authorization"} {
				if _, ok := base.got.Header[h]; ok {
					t.Errorf("%s reached the server", h)
				}
			}
			for k := range tc.header {
				if _, ok := req.Header[k]; !ok {
					t.Errorf("the caller's request lost %s", k)
				}
			}
			if v := base.got.Header.Get("X-Api"); tc.header["X-Api"] != "" && v != "1" {
				t.Errorf("X-Api = %q", v)
			}
		})
	}
}
