package bench

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MCPTool is the bench MCP server's one tool: it echoes its "text" argument.
const MCPTool = "echo"

// NewMCPServer is the fast MCP server of the translation benchmarks:
// streamable HTTP on mcp-go, stateless (every POST stands alone, as the
// bridge's own MCP face), one read-only tool that answers at once. A call
// that carries a progress token first gets one progress notification, so
// its answer is an event stream (the streaming variant of the benchmark).
func NewMCPServer(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := server.NewMCPServer("bench-mcp", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool(MCPTool, mcp.WithDescription("Returns the text it is given."),
		mcp.WithString("text", mcp.Required(), mcp.Description("text to echo")),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if m := req.Params.Meta; m != nil && m.ProgressToken != nil {
				if srv := server.ServerFromContext(ctx); srv != nil {
					_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
						"progressToken": m.ProgressToken, "progress": 1.0, "total": 1.0, "message": "echoing",
					})
				}
			}
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		})
	return server.NewStreamableHTTPServer(s, server.WithStateLess(true), server.WithStreamableHTTPLogger(log))
}
