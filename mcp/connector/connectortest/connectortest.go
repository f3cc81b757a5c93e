// Package connectortest is a small MCP server for tests of the bridge's MCP
// side: tools that echo, add, return an image, structured content and
// resources, report progress, block until cancelled, elicit input and fail.
// It runs in process (NewServer) or as a stdio child (mcptestserver).
package connectortest

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// PNG is a 1×1 transparent PNG, the image tool's result.
var PNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

// Options choose the optional tools.
type Options struct {
	// Process adds tools that only make sense in a child process: crash
	// (exits mid-call) and env (lists the environment variable names).
	Process bool
	// ExtraTool, if set, adds an echo tool of this name (a server whose
	// tool list differs from another's, for list-change tests).
	ExtraTool string
}

// Server is the test server with a record of what it was asked.
type Server struct {
	// MCP is the mcp-go server.
	MCP *server.MCPServer

	mu        sync.Mutex
	calls     map[string]int
	cancelled chan string
	started   chan string
}

// NewServer builds the test server.
func NewServer(opts Options) *Server {
	s := &Server{calls: map[string]int{}, cancelled: make(chan string, 16), started: make(chan string, 16)}
	hooks := &server.Hooks{}
	hooks.AddBeforeCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest) {
		s.mu.Lock()
		s.calls[req.Params.Name]++
		s.mu.Unlock()
	})
	s.MCP = server.NewMCPServer("connectortest", "1.0.0",
		server.WithToolCapabilities(true), server.WithRecovery(), server.WithHooks(hooks), server.WithElicitation())

	s.MCP.AddTool(mcp.NewTool("echo", mcp.WithToolTitle("Echo"), mcp.WithDescription("Returns the text it is given."),
		mcp.WithString("text", mcp.Required(), mcp.Description("text to echo")),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	s.MCP.AddTool(mcp.NewTool("add", mcp.WithDescription("Adds two numbers."),
		mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprint(req.GetFloat("a", 0) + req.GetFloat("b", 0))), nil
		})
	s.MCP.AddTool(mcp.NewTool("image", mcp.WithDescription("Returns a tiny PNG.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultImage("a tiny image", base64.StdEncoding.EncodeToString(PNG), "image/png"), nil
		})
	s.MCP.AddTool(mcp.NewTool("structured", mcp.WithDescription("Returns structured content."),
		mcp.WithRawOutputSchema([]byte(`{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}`))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultStructured(map[string]any{"answer": 42}, `{"answer":42}`), nil
		})
	s.MCP.AddTool(mcp.NewTool("resources", mcp.WithDescription("Returns a resource link and embedded resources.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewResourceLink("https://example.com/report.pdf", "report.pdf", "the report", "application/pdf"),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///notes/readme.txt", MIMEType: "text/plain", Text: "read me"}),
				mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "file:///img/dot.png", MIMEType: "image/png", Blob: base64.StdEncoding.EncodeToString(PNG)}),
			}}, nil
		})
	s.MCP.AddTool(mcp.NewTool("slow", mcp.WithDescription("Counts to steps with a progress notification per step."),
		mcp.WithNumber("steps", mcp.Required(), mcp.Min(1), mcp.Max(1000))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := req.GetInt("steps", 3)
			for i := 1; i <= n; i++ {
				progress(ctx, req, float64(i), float64(n), fmt.Sprintf("step %d of %d", i, n))
			}
			return mcp.NewToolResultText(fmt.Sprintf("counted to %d", n)), nil
		})
	s.MCP.AddTool(mcp.NewTool("block", mcp.WithDescription("Reports one progress step, then waits until cancelled.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			progress(ctx, req, 1, 0, "started")
			s.started <- "block"
			select {
			case <-ctx.Done():
				s.cancelled <- "block"
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return mcp.NewToolResultText("not cancelled"), nil
			}
		})
	s.MCP.AddTool(mcp.NewTool("ask", mcp.WithDescription("Asks for a name, then greets.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ans := server.ElicitationResponse(req.Params.InputResponses, "name")
			if ans == nil {
				return server.NewInputRequestBuilder("ask-1").Elicit("name", mcp.ElicitationParams{
					Message:         "What is your name?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}},
				}).ToolResult(), nil
			}
			if ans.Action != mcp.ElicitationResponseActionAccept {
				return mcp.NewToolResultText("no name given (" + string(ans.Action) + ")"), nil
			}
			m, _ := ans.Content.(map[string]any)
			return mcp.NewToolResultText(fmt.Sprintf("Hello, %v!", m["name"])), nil
		})
	s.MCP.AddTool(mcp.NewTool("fail", mcp.WithDescription("Always fails."), mcp.WithDestructiveHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("it broke on purpose"), nil
		})
	if opts.ExtraTool != "" {
		s.MCP.AddTool(mcp.NewTool(opts.ExtraTool, mcp.WithDescription("Returns the text it is given (an extra tool)."),
			mcp.WithString("text", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true), mcp.WithDestructiveHintAnnotation(false)),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(req.GetString("text", "")), nil
			})
	}
	if opts.Process {
		s.MCP.AddTool(mcp.NewTool("crash", mcp.WithDescription("Exits the server process mid-call.")),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fmt.Fprintln(os.Stderr, "crashing on purpose")
				os.Exit(3)
				return nil, nil
			})
		s.MCP.AddTool(mcp.NewTool("env", mcp.WithDescription("Lists the names of the environment variables.")),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var names []string
				for _, kv := range os.Environ() {
					k, _, _ := strings.Cut(kv, "=")
					names = append(names, k)
				}
				sort.Strings(names)
				return mcp.NewToolResultText(strings.Join(names, "\n")), nil
			})
	}
	return s
}

func progress(ctx context.Context, req mcp.CallToolRequest, p, total float64, msg string) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return
	}
	params := map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": p, "message": msg}
	if total > 0 {
		params["total"] = total
	}
	_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
}

// Calls is how many times the named tool was called.
func (s *Server) Calls(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name]
}

// Started receives the name of a blocking tool once it runs.
func (s *Server) Started() <-chan string { return s.started }

// Cancelled receives the name of a blocking tool whose call was cancelled.
func (s *Server) Cancelled() <-chan string { return s.cancelled }
