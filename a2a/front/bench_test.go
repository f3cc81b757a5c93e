package front_test

import (
	"context"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
)

// BenchmarkSendMessage compares a blocking echo sent directly to the
// upstream with the same message through the bridge (relaying over a
// streaming or a blocking upstream call). The difference is the bridge's
// added latency and allocations (client, bridge and upstream all run in
// this process, so allocs/op counts all three).
func BenchmarkSendMessage(b *testing.B) {
	run := func(b *testing.B, cl *client.Client) {
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			resp, err := cl.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hello")})
			if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted {
				b.Fatalf("send = %+v, %v", resp, err)
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		up := newUpstream(b, true)
		cl, err := client.Dial(context.Background(), up.srv.URL+"/.well-known/agent-card.json", client.WithHTTPClient(up.srv.Client()))
		if err != nil {
			b.Fatal(err)
		}
		run(b, cl)
	})
	for _, tc := range []struct {
		name      string
		streaming bool
	}{{"proxy-streaming-upstream", true}, {"proxy-blocking-upstream", false}} {
		b.Run(tc.name, func(b *testing.B) {
			br := newBridge(b, tc.streaming)
			run(b, br.client(b, "alice"))
		})
	}
}
