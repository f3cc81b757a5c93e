package expose_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// authAgent asks for authorization with a URL part, then completes once the
// client says the user authorized.
type authAgent struct{}

func (authAgent) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	if req.Task != nil && req.Task.Status.State == a2a.TaskStateAuthRequired {
		for _, p := range req.Message.Parts {
			if p.Kind == a2a.PartText && p.Text == expose.AuthorizedMessage {
				if err := u.Artifact(ctx, a2a.Artifact{Name: "r", Parts: []a2a.Part{a2a.TextPart("authorized, done")}}, false, true); err != nil {
					return err
				}
				return u.Complete(ctx, "")
			}
		}
	}
	return u.Status(ctx, a2a.TaskStateAuthRequired, u.NewAgentMessage(a2a.TextPart("Please sign in to the billing system."), a2a.URLPart("https://auth.example/consent?task=1", "text/html", "")))
}

func (authAgent) Cancel(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	return nil
}

func startAuthAgent(t *testing.T) string {
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: authAgent{}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	c := demoagent.Card(ts.URL)
	c.Capabilities.Streaming = a2a.Ptr(false)
	srv, err := server.New(server.Config{Manager: mgr, Card: c})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", srv)
	return ts.URL + "/.well-known/agent-card.json"
}

type urlConsent struct {
	calls atomic.Int64
	url   atomic.Value
}

func (u *urlConsent) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	u.calls.Add(1)
	u.url.Store(req.Params.URL)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}}, nil
}

func authClient(t *testing.T, h client.ElicitationHandler, caps mcp.ClientCapabilities) (*client.Client, context.Context) {
	t.Helper()
	tools, err := expose.New(expose.Config{Agents: []expose.AgentConfig{{Alias: "billing", CardURL: startAuthAgent(t)}}, HTTPClient: guardedClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	f, err := endpoint.New(endpoint.Config{Sources: []endpoint.ToolSource{tools}})
	if err != nil {
		t.Fatal(err)
	}
	opts := []client.ClientOption{client.WithLegacyProtocolOnly()}
	if h != nil {
		opts = append(opts, client.WithElicitationHandler(h))
	}
	c, err := client.NewInProcessClientWithOptions(f.MCPServer(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithPrincipal(context.Background(), &request.Principal{Subject: "local", Issuer: "local"})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: mcp.ProtocolVersion20251125, Capabilities: caps, ClientInfo: mcp.Implementation{Name: "t", Version: "1"}}}); err != nil {
		t.Fatal(err)
	}
	return c, ctx
}

func TestAuthRequiredBecomesURLElicitation(t *testing.T) {
	h := &urlConsent{}
	c, ctx := authClient(t, h, mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{URL: &struct{}{}}})
	res := call(t, c, ctx, "billing", map[string]any{"message": "pay invoice 7"}, nil)
	if res.IsError || !strings.Contains(texts(res), "authorized, done") {
		t.Fatalf("result %q", texts(res))
	}
	if h.calls.Load() != 1 || h.url.Load() != "https://auth.example/consent?task=1" {
		t.Fatalf("url elicitation: %d calls, url %v", h.calls.Load(), h.url.Load())
	}
}

func TestAuthRequiredWithoutURLElicitationIsErrorWithLink(t *testing.T) {
	c, ctx := authClient(t, nil, mcp.ClientCapabilities{})
	res := call(t, c, ctx, "billing", map[string]any{"message": "pay invoice 7"}, nil)
	if !res.IsError || !strings.Contains(texts(res), "needs authorization") {
		t.Fatalf("result %q", texts(res))
	}
	var link bool
	for _, ct := range res.Content {
		b, _ := json.Marshal(ct)
		link = link || strings.Contains(string(b), `"resource_link"`) && strings.Contains(string(b), "auth.example/consent")
	}
	if !link || structured(t, res)["state"] != "auth_required" {
		t.Fatalf("no resource link or state: %+v", res)
	}
}
