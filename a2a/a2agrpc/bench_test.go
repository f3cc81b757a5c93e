package a2agrpc_test

import (
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// BenchmarkSendMessage is one blocking SendMessage to the demo agent on
// each binding, in process over loopback, through client.Client.
func BenchmarkSendMessage(b *testing.B) {
	for _, binding := range []string{a2a.BindingJSONRPC, a2a.BindingGRPC} {
		b.Run(binding, func(b *testing.B) {
			h := newHarness(b, nil)
			c := h.client(binding, "bench")
			ctx := ctxT(b)
			b.ReportAllocs()
			for b.Loop() {
				res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hello", "")})
				if err != nil || res.Task == nil {
					b.Fatal(res, err)
				}
			}
		})
	}
}
