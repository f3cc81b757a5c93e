package connector_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// sampler is an in-process server whose tool "ask" asks the client's model.
func sampler(t *testing.T) *connector.Conn {
	t.Helper()
	s := server.NewMCPServer("sampler", "1", server.WithToolCapabilities(true), server.WithPromptCapabilities(false))
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("2+2?")}}, MaxTokens: 10,
		}})
		if err != nil {
			return mcp.NewToolResultError("no model: " + err.Error()), nil
		}
		tc, _ := mcp.AsTextContent(res.Content)
		return mcp.NewToolResultText("model said " + tc.Text), nil
	})
	s.AddPrompt(mcp.NewPrompt("p"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("d", nil), nil
	})
	c, err := connector.InProcess(context.Background(), s, connector.Config{Name: "sampler", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestSamplingIsRelayedToTheCall(t *testing.T) {
	c := sampler(t)
	raw, err := c.CallToolWith(context.Background(), "ask", nil, connector.CallHandlers{
		Sample: func(_ context.Context, p mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("4")}, Model: "m"}, nil
		},
	})
	if err != nil || !strings.Contains(string(raw), "model said 4") {
		t.Fatalf("call: %s, %v", raw, err)
	}
}

func TestSamplingRefusedWithoutARelay(t *testing.T) {
	c := sampler(t)
	raw, err := c.CallTool(context.Background(), "ask", nil, nil, nil)
	if err != nil || !strings.Contains(string(raw), "no model") {
		t.Fatalf("a call without a sampling relay got an answer: %s, %v", raw, err)
	}
}

func TestServerWithoutResourcesListsNone(t *testing.T) {
	c := sampler(t)
	ctx := context.Background()
	rs, err := c.Resources(ctx)
	if err != nil || rs != nil {
		t.Fatalf("resources %v, %v", rs, err)
	}
	ps, err := c.Prompts(ctx)
	if err != nil || len(ps) != 1 || ps[0].Name != "p" {
		t.Fatalf("prompts %v, %v", ps, err)
	}
}
