package v03_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
)

// BenchmarkSend compares a blocking send to the demo agent as a 0.3
// request (translated at the edge) and as the 1.0 request it means.
func BenchmarkSend(b *testing.B) {
	cases := []struct{ name, version, method, params string }{
		{"1.0", "1.0", a2a.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hello"}]}}`},
		{"0.3", "", v03.MethodMessageSend, `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hello"}]}}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			a := newAgent(b, true)
			body := `{"jsonrpc":"2.0","id":1,"method":"` + c.method + `","params":` + c.params + `}`
			hc := a.srv.Client()
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, a.srv.URL, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if c.version != "" {
					req.Header.Set("A2A-Version", c.version)
				}
				resp, err := hc.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatal(err)
				}
				resp.Body.Close()
			}
		})
	}
}

// BenchmarkDecodeRPC is the edge translation of a message/send alone.
func BenchmarkDecodeRPC(b *testing.B) {
	d := &v03.Dialect{}
	params := []byte(`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hello"},{"kind":"data","data":{"a":1}}]},"configuration":{"blocking":true}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := d.DecodeRPC(v03.MethodMessageSend, params); err != nil {
			b.Fatal(err)
		}
	}
}
