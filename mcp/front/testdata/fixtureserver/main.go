// Command fixtureserver is an MCP server carrying the fixtures of the MCP
// conformance suite's server scenarios (@modelcontextprotocol/conformance
// 0.1.16): the test_* tools, the test:// resources and template, the test_*
// prompts, completion and logging. It speaks stdio by default, or
// streamable HTTP on a loopback address with -http (to run the suite
// against it directly, as the baseline for the bridge in front of it).
package main

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// png is a 1×1 red pixel.
var png = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
	0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
	0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
	0x44, 0xae, 0x42, 0x60, 0x82,
}

var pngB64 = base64.StdEncoding.EncodeToString(png)

// wav is 8 samples of silence, 8 kHz mono 16-bit PCM.
func wav() string {
	const samples = 8
	b := make([]byte, 44+2*samples)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*samples))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], 8000)
	binary.LittleEndian.PutUint32(b[28:], 16000)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], 2*samples)
	return base64.StdEncoding.EncodeToString(b)
}

func text(s string) *mcp.CallToolResult { return mcp.NewToolResultText(s) }

func pause(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

type completer struct{}

func (completer) CompletePromptArgument(_ context.Context, _ string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	var out []string
	for _, v := range []string{"paris", "park", "party"} {
		if strings.HasPrefix(v, arg.Value) {
			out = append(out, v)
		}
	}
	return &mcp.Completion{Values: out, Total: len(out)}, nil
}

func (completer) CompleteResourceArgument(context.Context, string, mcp.CompleteArgument, mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{}}, nil
}

// elicitTool answers a conformance elicitation tool: the first round asks
// (2026-07-28: an input request; older hosts get elicitation/create from
// mcp-go), the retry reports the answer.
func elicitTool(message string, schema map[string]any, prefix string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		msg := message
		if m := req.GetString("message", ""); m != "" {
			msg = m
		}
		ans := server.ElicitationResponse(req.Params.InputResponses, "answer")
		if ans == nil {
			return server.NewInputRequestBuilder("fixture").Elicit("answer", mcp.ElicitationParams{Message: msg, RequestedSchema: schema}).ToolResult(), nil
		}
		content, _ := json.Marshal(ans.Content)
		return text(fmt.Sprintf("%saction=%s, content=%s", prefix, ans.Action, content)), nil
	}
}

func build() *server.MCPServer {
	s := server.NewMCPServer("conformance-fixture", "1.0.0",
		server.WithToolCapabilities(true), server.WithResourceCapabilities(true, true), server.WithPromptCapabilities(true),
		server.WithLogging(), server.WithCompletions(), server.WithElicitation(), server.WithRecovery(),
		server.WithPromptCompletionProvider(completer{}), server.WithResourceCompletionProvider(completer{}))

	s.AddTool(mcp.NewTool("test_simple_text", mcp.WithDescription("Returns simple text.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("This is a simple text response for testing."), nil
		})
	s.AddTool(mcp.NewTool("test_image_content", mcp.WithDescription("Returns a PNG image.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(pngB64, "image/png")}}, nil
		})
	s.AddTool(mcp.NewTool("test_audio_content", mcp.WithDescription("Returns WAV audio.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent(wav(), "audio/wav")}}, nil
		})
	s.AddTool(mcp.NewTool("test_embedded_resource", mcp.WithDescription("Returns an embedded text resource.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(mcp.TextResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."})}}, nil
		})
	s.AddTool(mcp.NewTool("test_multiple_content_types", mcp.WithDescription("Returns text, an image and a resource.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("Multiple content types test:"),
				mcp.NewImageContent(pngB64, "image/png"),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`}),
			}}, nil
		})
	s.AddTool(mcp.NewTool("test_tool_with_logging", mcp.WithDescription("Sends three log messages while it runs.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			srv := server.ServerFromContext(ctx)
			for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := pause(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "fixture", m))
			}
			// mcp-go may drop a notification sent just before the result
			// (mark3labs/mcp-go#969); the pause lets the last one go out.
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
			return text("Tool with logging executed successfully"), nil
		})
	s.AddTool(mcp.NewTool("test_error_handling", mcp.WithDescription("Always fails.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("This tool intentionally returns an error for testing"), nil
		})
	s.AddTool(mcp.NewTool("test_tool_with_progress", mcp.WithDescription("Reports progress 0, 50, 100 of 100.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var tok mcp.ProgressToken
			if req.Params.Meta != nil {
				tok = req.Params.Meta.ProgressToken
			}
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					if err := pause(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				if tok != nil {
					_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress),
						map[string]any{"progressToken": tok, "progress": p, "total": float64(100)})
				}
			}
			if err := pause(ctx, 50*time.Millisecond); err != nil { // see test_tool_with_logging
				return nil, err
			}
			return text("Tool with progress executed successfully"), nil
		})
	s.AddTool(mcp.NewTool("test_sampling", mcp.WithDescription("Asks the client's model."), mcp.WithString("prompt", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ans := server.SamplingResponse(req.Params.InputResponses, "sample")
			if ans == nil {
				return server.NewInputRequestBuilder("fixture").Sample("sample", mcp.CreateMessageParams{
					Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(req.GetString("prompt", ""))}},
					MaxTokens: 100,
				}).ToolResult(), nil
			}
			if tc, ok := mcp.AsTextContent(ans.Content); ok {
				return text("LLM response: " + tc.Text), nil
			}
			return text("LLM response: (not text)"), nil
		})
	s.AddTool(mcp.NewTool("test_elicitation", mcp.WithDescription("Asks the user."), mcp.WithString("message", mcp.Required())),
		elicitTool("", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]any{"type": "string", "description": "User's response"},
				"email":    map[string]any{"type": "string", "description": "User's email address"},
			},
			"required": []any{"username", "email"},
		}, "User response: "))
	s.AddTool(mcp.NewTool("test_elicitation_sep1034_defaults", mcp.WithDescription("Asks with defaults for every primitive type.")),
		elicitTool("Please review and update the form fields with defaults", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			},
		}, "Elicitation completed: "))
	s.AddTool(mcp.NewTool("test_elicitation_sep1330_enums", mcp.WithDescription("Asks with the five enum forms.")),
		elicitTool("Please select options from the enum fields", map[string]any{
			"type": "object",
			"properties": map[string]any{
				"untitledSingle": map[string]any{"type": "string", "description": "Select one option", "enum": []any{"option1", "option2", "option3"}},
				"titledSingle": map[string]any{"type": "string", "description": "Select one option with titles", "oneOf": []any{
					map[string]any{"const": "value1", "title": "First Option"},
					map[string]any{"const": "value2", "title": "Second Option"},
					map[string]any{"const": "value3", "title": "Third Option"},
				}},
				"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)", "enum": []any{"opt1", "opt2", "opt3"},
					"enumNames": []any{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}}},
				"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"anyOf": []any{
						map[string]any{"const": "value1", "title": "First Choice"},
						map[string]any{"const": "value2", "title": "Second Choice"},
						map[string]any{"const": "value3", "title": "Third Choice"},
					}}},
			},
			"required": []any{},
		}, "Elicitation completed: "))
	s.AddTool(mcp.NewToolWithRawSchema("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
		"properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
		"additionalProperties": false
	}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("JSON Schema 2020-12 tool called"), nil
	})
	s.AddTool(mcp.NewTool("test_reconnection", mcp.WithDescription("Waits briefly, then answers (SSE polling scenario).")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := pause(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return text("Reconnection test completed"), nil
		})

	s.AddResource(mcp.NewResource("test://static-text", "Static text", mcp.WithResourceDescription("A static text resource"), mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://static-text", MIMEType: "text/plain", Text: "This is the content of the static text resource."}}, nil
		})
	s.AddResource(mcp.NewResource("test://static-binary", "Static binary", mcp.WithResourceDescription("A static PNG"), mcp.WithMIMEType("image/png")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: "test://static-binary", MIMEType: "image/png", Blob: pngB64}}, nil
		})
	s.AddResource(mcp.NewResource("test://watched-resource", "Watched", mcp.WithResourceDescription("A resource to subscribe to"), mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://watched-resource", MIMEType: "text/plain", Text: "Watched resource content"}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://template/{id}/data", "Template", mcp.WithTemplateDescription("Data by id"), mcp.WithTemplateMIMEType("application/json")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			b, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
		})

	s.AddPrompt(mcp.NewPrompt("test_simple_prompt", mcp.WithPromptDescription("A prompt without arguments")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("simple", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("This is a simple prompt for testing."))}), nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_arguments", mcp.WithPromptDescription("A prompt with two arguments"),
		mcp.WithArgument("arg1", mcp.ArgumentDescription("First test argument"), mcp.RequiredArgument()),
		mcp.WithArgument("arg2", mcp.ArgumentDescription("Second test argument"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return mcp.NewGetPromptResult("args", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser,
				mcp.NewTextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])))}), nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_embedded_resource", mcp.WithPromptDescription("A prompt embedding a resource"),
		mcp.WithArgument("resourceUri", mcp.ArgumentDescription("URI of the resource to embed"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("embedded", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Please process the embedded resource above.")),
			}), nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_image", mcp.WithPromptDescription("A prompt with an image")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("image", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(pngB64, "image/png")),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Please analyze the image above.")),
			}), nil
		})
	return s
}

func main() {
	addr := flag.String("http", "", "serve streamable HTTP at /mcp on this loopback address instead of stdio")
	flag.Parse()
	s := build()
	if *addr == "" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
	log.Fatal(http.ListenAndServe(*addr, mux))
}
