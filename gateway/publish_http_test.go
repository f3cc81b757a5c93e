package gateway_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

// TestPublishedHTTPServerRelaysProgressThenResult: a published MCP
// server reached over streamable HTTP by the bridge's own client (the
// direct tools/call path, no in-process dial): a streamed call relays each
// progress notification of the call's event stream as a WORKING update, in
// order (the gateway's progress interval may keep back all but the latest
// of a burst, never the last), then the result as the artifact and
// COMPLETED; a blocking call answers the completed task with the artifact.
func TestPublishedHTTPServerRelaysProgressThenResult(t *testing.T) {
	mcpSrv := httptest.NewServer(server.NewStreamableHTTPServer(connectortest.NewServer(connectortest.Options{}).MCP))
	t.Cleanup(mcpSrv.Close) // after the bridge's cleanup: the bridge holds connections to it
	mu, _ := url.Parse(mcpSrv.URL)
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
listen: 127.0.0.1:8080
store: "memory:"
auth:
  api_keys: [{name: alice, sha256: %q}]
policy: {default: allow}
publish:
  - {name: tools, http: {url: %q}}
netguard:
  unsafe_allow: [127.0.0.1/32]
  unsafe_allow_http: true
  ports: [%s]
`, hash(aliceKey), mcpSrv.URL+"/mcp", mu.Port())), "http.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv := httptest.NewUnstartedServer(nil)
	pub := "http://" + srv.Listener.Addr().String()
	b, err := gateway.Build(ctx, cfg, gateway.Options{Logger: quiet, PublicURL: pub})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = b.Handler()
	srv.Start()
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { b.Run(rctx); close(done) }()
	t.Cleanup(func() { srv.Close(); cancel(); <-done; _ = b.Close() })
	e := &env{url: pub}
	c := e.client(t, aliceKey)

	s, err := c.SendStreamingMessage(ctx, toolMessage(t, "slow", map[string]any{"steps": 3}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var got []string
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.StatusUpdate != nil:
			line := string(ev.StatusUpdate.Status.State)
			if m := ev.StatusUpdate.Status.Message; m != nil && len(m.Parts) > 0 {
				line += " " + m.Parts[0].Text
			}
			got = append(got, line)
		case ev.ArtifactUpdate != nil:
			got = append(got, "artifact "+ev.ArtifactUpdate.Artifact.Parts[0].Text)
		case ev.Task != nil:
			got = append(got, "task "+string(ev.Task.Status.State))
		}
	}
	// The steps relayed: in order, the last one always.
	steps := map[string]int{
		"TASK_STATE_WORKING step 1 of 3 (1/3)": 1,
		"TASK_STATE_WORKING step 2 of 3 (2/3)": 2,
		"TASK_STATE_WORKING step 3 of 3 (3/3)": 3,
	}
	var want []string
	last := 0
	for _, g := range got {
		if n := steps[g]; n > last {
			want = append(want, g)
			last = n
		}
	}
	want = append([]string{"task TASK_STATE_SUBMITTED", "TASK_STATE_WORKING calling tool slow"}, want...)
	want = append(want, "artifact counted to 3", "TASK_STATE_COMPLETED")
	if last != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant the task, WORKING, the steps in order ending with 3 of 3, the artifact, COMPLETED", strings.Join(got, "\n"))
	}

	resp, err := c.SendMessage(ctx, toolMessage(t, "slow", map[string]any{"steps": 2}))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Task == nil || resp.Task.Status.State != a2a.TaskStateCompleted || len(resp.Task.Artifacts) != 1 ||
		resp.Task.Artifacts[0].Parts[0].Text != "counted to 2" {
		t.Fatalf("blocking call answered %+v", resp)
	}
}
