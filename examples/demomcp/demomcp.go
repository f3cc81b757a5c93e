// Package demomcp is the MCP server behind `bridge demo`: a few small tools
// that `bridge demo` publishes as an A2A agent, so both directions of the
// bridge can be tried without installing anything.
package demomcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MaxSlowSeconds caps the slow tool.
const MaxSlowSeconds = 600

// New returns the demo MCP server: echo, add, upper and slow (which reports
// progress every second and stops when cancelled).
func New() *server.MCPServer {
	s := server.NewMCPServer("bridge-demo-tools", "1.0.0", server.WithToolCapabilities(true), server.WithRecovery())
	s.AddTool(mcp.NewTool("echo", mcp.WithToolTitle("Echo"), mcp.WithDescription("Returns the text it is given."),
		mcp.WithString("text", mcp.Required(), mcp.Description("the text to echo")),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("add", mcp.WithToolTitle("Add"), mcp.WithDescription("Adds two numbers and returns the sum as structured content."),
		mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			sum := req.GetFloat("a", 0) + req.GetFloat("b", 0)
			return mcp.NewToolResultStructured(map[string]any{"sum": sum}, fmt.Sprint(sum)), nil
		})
	s.AddTool(mcp.NewTool("upper", mcp.WithToolTitle("Upper case"), mcp.WithDescription("Returns the text in upper case."),
		mcp.WithString("text", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.ToUpper(req.GetString("text", ""))), nil
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithToolTitle("Slow work"), mcp.WithDescription("Works for N seconds, reporting progress each second; cancellable."),
		mcp.WithNumber("seconds", mcp.Required(), mcp.Min(0), mcp.Max(MaxSlowSeconds)),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := int(req.GetFloat("seconds", 0))
			if n < 0 || n > MaxSlowSeconds {
				return mcp.NewToolResultError(fmt.Sprintf("seconds must be between 0 and %d", MaxSlowSeconds)), nil
			}
			var token mcp.ProgressToken
			if req.Params.Meta != nil {
				token = req.Params.Meta.ProgressToken
			}
			for i := 1; i <= n; i++ {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Second):
				}
				if token != nil {
					if srv := server.ServerFromContext(ctx); srv != nil {
						_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
							"progressToken": token, "progress": float64(i), "total": float64(n), "message": fmt.Sprintf("%d/%d seconds", i, n),
						})
					}
				}
			}
			return mcp.NewToolResultText(fmt.Sprintf("worked for %d seconds", n)), nil
		})
	return s
}
