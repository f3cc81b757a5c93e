package connector_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// TestConcurrentElicitationsOverStdioReachTheirOwnCallers: over stdio in a
// handshake era a server's elicitation/create names no call. Two calls that
// ask at once each get their own caller's answer: the second is not
// declined for want of knowing whose question it is.
func TestConcurrentElicitationsOverStdioReachTheirOwnCallers(t *testing.T) {
	bin, err := testServerBin()
	if err != nil {
		t.Fatalf("build test server: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := connector.Dial(ctx, connector.Config{
		Name: "child", Stdio: &connector.StdioConfig{Command: bin, StopGrace: time.Second},
		ProtocolVersion: connector.Era20251125, Logger: quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if c.ProtocolVersion() != connector.Era20251125 {
		t.Fatalf("era %s", c.ProtocolVersion())
	}
	var wg sync.WaitGroup
	got := make([]string, 2)
	errs := make([]error, 2)
	for i := range got {
		name := fmt.Sprintf("caller%d", i)
		wg.Go(func() {
			raw, err := c.CallToolWith(ctx, "ask", nil, connector.CallHandlers{Elicit: func(context.Context, connector.Elicitation) (connector.ElicitResult, error) {
				return connector.ElicitResult{Action: connector.ActionAccept, Content: map[string]any{"name": name}}, nil
			}})
			errs[i] = err
			if err == nil {
				got[i] = text(t, raw)
			}
		})
	}
	wg.Wait()
	for i := range got {
		if want := fmt.Sprintf("Hello, caller%d!", i); errs[i] != nil || got[i] != want {
			t.Errorf("call %d: %q, %v; want %q", i, got[i], errs[i], want)
		}
	}
}

// TestCapabilitiesDeclaredOnlyForWhatIsRelayed: NoSampling and
// NoElicitation keep the capabilities out of initialize, so the server does
// not offer what would always fail.
func TestCapabilitiesDeclaredOnlyForWhatIsRelayed(t *testing.T) {
	for _, tt := range []struct {
		name                   string
		noElicit, noSample     bool
		wantElicit, wantSample bool
	}{
		{"both", false, false, true, true},
		{"no sampling", false, true, true, false},
		{"neither", true, true, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var caps mcp.ClientCapabilities
			var mu sync.Mutex
			hooks := &server.Hooks{}
			hooks.AddAfterInitialize(func(_ context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
				mu.Lock()
				caps = req.Params.Capabilities
				mu.Unlock()
			})
			s := server.NewMCPServer("caps", "1", server.WithHooks(hooks))
			s.AddTool(mcp.NewTool("noop"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			c, err := connector.InProcess(context.Background(), s, connector.Config{Name: "caps", ProtocolVersion: connector.Era20251125, NoElicitation: tt.noElicit, NoSampling: tt.noSample, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			mu.Lock()
			defer mu.Unlock()
			if (caps.Elicitation != nil) != tt.wantElicit || (caps.Sampling != nil) != tt.wantSample {
				t.Fatalf("declared elicitation %v sampling %v; want %v %v", caps.Elicitation != nil, caps.Sampling != nil, tt.wantElicit, tt.wantSample)
			}
		})
	}
}
