package endpoint_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// ownedSource serves a tool, two resources, a template and two prompts,
// each belonging to agent "files" (the hop describers say so).
type ownedSource struct{}

func (ownedSource) Tools() []server.ServerTool {
	return []server.ServerTool{{Tool: mcp.NewTool("files_read"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}}}
}

func (ownedSource) Resources() []server.ServerResource {
	var out []server.ServerResource
	for _, u := range []string{"file:///public.txt", "file:///secret.txt"} {
		out = append(out, server.ServerResource{Resource: mcp.NewResource(u, u), Handler: func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "body of " + req.Params.URI}}, nil
		}})
	}
	return out
}

func (ownedSource) ResourceTemplates() []server.ServerResourceTemplate {
	return []server.ServerResourceTemplate{{Template: mcp.NewResourceTemplate("notes://{id}", "notes"), Handler: func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "note"}}, nil
	}}}
}

func (ownedSource) Prompts() []server.ServerPrompt {
	var out []server.ServerPrompt
	for _, n := range []string{"files_summary", "files_leak"} {
		out = append(out, server.ServerPrompt{Prompt: mcp.NewPrompt(n), Handler: func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("p", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hi"))}), nil
		}})
	}
	return out
}

func (ownedSource) Hop(tool string) (request.Hop, bool) {
	return request.Hop{Agent: "files", Tool: tool}, tool == "files_read"
}

func (ownedSource) ResourceHop(uri string) (request.Hop, bool) {
	return request.Hop{Agent: "files"}, uri == "file:///public.txt" || uri == "file:///secret.txt" || uri == "notes://{id}"
}

func (ownedSource) PromptHop(name string) (request.Hop, bool) {
	// The served name is prefixed; the hop names the prompt as its server does.
	if name != "files_summary" && name != "files_leak" {
		return request.Hop{}, false
	}
	return request.Hop{Agent: "files", Prompt: name[len("files_"):]}, true
}

// recordingPolicy allows what allow says and remembers every hop it saw.
type recordingPolicy struct {
	allow func(request.Hop) bool
	mu    sync.Mutex
	seen  []request.Hop
}

func (r *recordingPolicy) Decide(_ context.Context, h request.Hop) policy.Decision {
	r.mu.Lock()
	r.seen = append(r.seen, h)
	r.mu.Unlock()
	return policy.Decision{Allow: h.Principal != nil && r.allow(h)}
}

func (r *recordingPolicy) hops() []request.Hop {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.seen)
}

// TestEveryHopNamesItsAgentAndObject: the face decides a resource, a
// template read and a prompt under the agent they belong to and the
// resource URI or prompt name itself, so a deny-by-default policy that
// allows agent "files" shows its resources and prompts, and a rule on
// hop.resource or hop.prompt hides exactly what it names, from the list and
// from reads alike.
func TestEveryHopNamesItsAgentAndObject(t *testing.T) {
	pol := &recordingPolicy{allow: func(h request.Hop) bool {
		return h.Agent == "files" && h.Resource != "file:///secret.txt" && h.Prompt != "leak"
	}}
	e := start(t, func(c *endpoint.Config) { c.Policy, c.Sources = pol, []endpoint.ToolSource{ownedSource{}} })
	c := connect(t, e.public+"/mcp", e.token(t, "alice", e.public+"/mcp", "agents"))
	ctx := context.Background()

	tl, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tl.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, tl)
	}
	rl, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Resources) != 1 || rl.Resources[0].URI != "file:///public.txt" {
		t.Errorf("resources/list: %+v, want file:///public.txt alone", rl.Resources)
	}
	tmpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tmpl.ResourceTemplates) != 1 {
		t.Errorf("resources/templates/list: %v %+v", err, tmpl)
	}
	pl, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Prompts) != 1 || pl.Prompts[0].Name != "files_summary" {
		t.Errorf("prompts/list: %+v, want files_summary alone", pl.Prompts)
	}

	read := func(uri string) error {
		_, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		return err
	}
	if err := read("file:///public.txt"); err != nil {
		t.Errorf("read of an allowed resource: %v", err)
	}
	if err := read("file:///secret.txt"); err == nil {
		t.Error("read of a resource the policy hides succeeded")
	}
	if err := read("notes://42"); err != nil {
		t.Errorf("read through an allowed template: %v", err)
	}
	if _, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "files_summary"}}); err != nil {
		t.Errorf("allowed prompt: %v", err)
	}
	if _, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "files_leak"}}); err == nil {
		t.Error("a prompt the policy hides was served")
	}

	var sawTemplateRead, sawPrompt bool
	for _, h := range pol.hops() {
		if h.Agent != "files" {
			t.Errorf("hop without its agent: %+v", h)
		}
		if h.Face != request.FaceMCP || h.Principal == nil || h.Principal.Subject != "alice" {
			t.Errorf("hop without face or caller: %+v", h)
		}
		switch h.Method {
		case "resources/read":
			if h.Resource == "" {
				t.Errorf("resource hop without its resource: %+v", h)
			}
			sawTemplateRead = sawTemplateRead || h.Resource == "notes://42"
		case "prompts/get":
			if h.Prompt != "summary" && h.Prompt != "leak" {
				t.Errorf("prompt hop names %q, want the prompt's own name", h.Prompt)
			}
			sawPrompt = true
		case "tools/call":
			if h.Tool != "files_read" {
				t.Errorf("tool hop names %q", h.Tool)
			}
		default:
			t.Errorf("hop with method %q", h.Method)
		}
	}
	if !sawTemplateRead || !sawPrompt {
		t.Errorf("template read decided on its URI: %v; prompt decided: %v", sawTemplateRead, sawPrompt)
	}
}

// TestCapabilitiesFollowTheNegotiatedRevision: a 2025-06-18 client is not
// declared tasks (2025-11-25) nor a server elicitation capability no
// revision defines; a 2025-11-25 client is declared tasks.
func TestCapabilitiesFollowTheNegotiatedRevision(t *testing.T) {
	e := start(t, nil)
	tok := e.token(t, "alice", e.public+"/mcp", "agents")
	for _, tt := range []struct {
		version   string
		wantTasks bool
	}{{"2025-06-18", false}, {"2025-11-25", true}} {
		t.Run(tt.version, func(t *testing.T) {
			resp := e.post(t, tok, "", strings.Replace(initBody, "2025-06-18", tt.version, 1))
			var m struct {
				Result struct {
					ProtocolVersion string                     `json:"protocolVersion"`
					Capabilities    map[string]json.RawMessage `json:"capabilities"`
				} `json:"result"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
				t.Fatal(err)
			}
			if m.Result.ProtocolVersion != tt.version {
				t.Fatalf("negotiated %q", m.Result.ProtocolVersion)
			}
			_, tasks := m.Result.Capabilities["tasks"]
			_, elicit := m.Result.Capabilities["elicitation"]
			if tasks != tt.wantTasks || (elicit && tt.version == "2025-06-18") {
				t.Fatalf("capabilities %s: tasks %v elicitation %v", mapKeys(m.Result.Capabilities), tasks, elicit)
			}
		})
	}
}

func mapKeys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
