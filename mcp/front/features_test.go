package front_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/front"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// library is an upstream MCP server with one prompt ("greet"), one
// resource (uri), one template (tmpl), completions and subscriptions; it
// counts the prompts/get and resources/read it served.
type library struct {
	srv        *server.MCPServer
	heard      chan struct{} // chatty waits for it after logging
	mu         sync.Mutex
	gets, read int
}

func newLibrary(name, uri, tmpl string) *library {
	l := &library{heard: make(chan struct{}, 1)}
	l.srv = server.NewMCPServer(name, "1", server.WithToolCapabilities(true), server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true), server.WithCompletions(), server.WithLogging(),
		server.WithPromptCompletionProvider(libCompleter{name}))
	l.srv.AddPrompt(mcp.NewPrompt("greet", mcp.WithArgument("who")), func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		l.mu.Lock()
		l.gets++
		l.mu.Unlock()
		return mcp.NewGetPromptResult("greeting", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(name+" greets "+req.Params.Arguments["who"]))}), nil
	})
	read := func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		l.mu.Lock()
		l.read++
		l.mu.Unlock()
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: name + ":" + req.Params.URI}}, nil
	}
	l.srv.AddResource(mcp.NewResource(uri, "doc"), read)
	l.srv.AddResourceTemplate(mcp.NewResourceTemplate(tmpl, "by id"), read)
	l.srv.AddTool(mcp.NewTool("chatty"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = server.ServerFromContext(ctx).SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelWarning, name, "careful"))
		select { // lockstep: the result never overtakes the log message
		case <-l.heard:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return mcp.NewToolResultText("said it"), nil
	})
	return l
}

func (l *library) counts() (gets, reads int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gets, l.read
}

type libCompleter struct{ name string }

func (c libCompleter) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	return &mcp.Completion{Values: []string{c.name + "/" + prompt + "/" + arg.Name + "=" + arg.Value}}, nil
}

// libraries puts two libraries (same prompt name, different URIs) behind a
// Source with the given checker.
func libraries(t *testing.T, check front.Checker) (*front.Source, *library, *library, []*connector.Conn) {
	t.Helper()
	a := newLibrary("alpha", "docs://alpha/readme", "docs://alpha/items/{id}")
	b := newLibrary("beta", "docs://beta/readme", "docs://beta/items/{id}")
	var servers []front.Server
	var conns []*connector.Conn
	for _, l := range []struct {
		name string
		lib  *library
	}{{"alpha", a}, {"beta", b}} {
		c, err := connector.InProcess(context.Background(), l.lib.srv, connector.Config{Name: l.name, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		conns = append(conns, c)
		servers = append(servers, front.Server{Name: l.name, Upstream: c})
	}
	src, err := front.New(context.Background(), front.Config{Servers: servers, Check: check, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return src, a, b, conns
}

func TestPromptsAndResourcesAreRoutedToTheirServer(t *testing.T) {
	src, a, b, _ := libraries(t, &checker{})
	url, _ := serve(t, src)
	e := &env{url: url}
	c := e.connect(t)
	ctx := context.Background()

	ps, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps.Prompts {
		names = append(names, p.Name)
	}
	if strings.Join(names, ",") != "alpha_greet,beta_greet" {
		t.Fatalf("prompts %v, want alpha_greet,beta_greet", names)
	}
	req := mcp.GetPromptRequest{}
	req.Params.Name, req.Params.Arguments = "beta_greet", map[string]string{"who": "you"}
	got, err := c.GetPrompt(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := mcp.AsTextContent(got.Messages[0].Content); !ok || tc.Text != "beta greets you" {
		t.Fatalf("prompt result %+v", got.Messages)
	}

	for uri, want := range map[string]string{
		"docs://alpha/readme":  "alpha:docs://alpha/readme",
		"docs://beta/readme":   "beta:docs://beta/readme",
		"docs://beta/items/42": "beta:docs://beta/items/42",
	} {
		rr := mcp.ReadResourceRequest{}
		rr.Params.URI = uri
		res, err := c.ReadResource(ctx, rr)
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if tc, ok := res.Contents[0].(mcp.TextResourceContents); !ok || tc.Text != want {
			t.Errorf("read %s = %+v, want %q", uri, res.Contents, want)
		}
	}
	tl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tl.ResourceTemplates) != 2 {
		t.Fatalf("templates %+v, %v", tl, err)
	}

	cr := mcp.CompleteRequest{}
	cr.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "alpha_greet"}
	cr.Params.Argument = mcp.CompleteArgument{Name: "who", Value: "wo"}
	comp, err := c.Complete(ctx, cr)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(comp.Completion.Values, ",") != "alpha/greet/who=wo" {
		t.Fatalf("completion %v: want the upstream's original prompt name", comp.Completion.Values)
	}
	if g, r := a.counts(); g != 0 || r != 1 {
		t.Errorf("alpha served %d gets and %d reads, want 0 and 1", g, r)
	}
	if g, r := b.counts(); g != 1 || r != 2 {
		t.Errorf("beta served %d gets and %d reads, want 1 and 2", g, r)
	}
}

func TestPolicyDenialOfPromptsAndReadsNeverReachesUpstream(t *testing.T) {
	check := &checker{deny: map[string]string{"alpha/": "alpha is off limits"}}
	src, a, _, _ := libraries(t, check)
	ctx := request.WithPrincipal(context.Background(), &request.Principal{Subject: "eve", Issuer: "test"})
	var prompt server.ServerPrompt
	for _, p := range src.Prompts() {
		if p.Prompt.Name == "alpha_greet" {
			prompt = p
		}
	}
	if _, err := prompt.Handler(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "alpha_greet"}}); err == nil || !strings.Contains(err.Error(), "alpha is off limits") {
		t.Fatalf("denied prompts/get: %v", err)
	}
	var readme server.ServerResource
	for _, r := range src.Resources() {
		if r.Resource.URI == "docs://alpha/readme" {
			readme = r
		}
	}
	rr := mcp.ReadResourceRequest{}
	rr.Params.URI = "docs://alpha/readme"
	if _, err := readme.Handler(ctx, rr); err == nil || !strings.Contains(err.Error(), "alpha is off limits") {
		t.Fatalf("denied resources/read: %v", err)
	}
	if err := src.SubscribeResource(ctx, "docs://alpha/readme"); err == nil {
		t.Fatal("a denied subscription was accepted")
	}
	if g, r := a.counts(); g != 0 || r != 0 {
		t.Fatalf("denied requests reached the upstream: %d gets, %d reads", g, r)
	}
	var methods []string
	for _, h := range check.seen() {
		methods = append(methods, h.Agent+" "+h.Method)
	}
	if strings.Join(methods, ",") != "alpha prompts/get,alpha resources/read,alpha resources/read" {
		t.Fatalf("hops checked: %v", methods)
	}
}

func TestUpdateAboutAnotherServersResourceIsDropped(t *testing.T) {
	src, a, b, _ := libraries(t, nil)
	got := make(chan string, 4)
	src.OnResourceUpdated(func(uri string) { got <- uri })
	// alpha claims beta's resource changed: a server must not be able to
	// make hosts re-read another server's resources.
	a.srv.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": "docs://beta/readme"})
	b.srv.SendNotificationToAllClients(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": "docs://beta/items/7"})
	select {
	case uri := <-got:
		if uri != "docs://beta/items/7" {
			t.Fatalf("relayed an update about %q from a server that does not serve it", uri)
		}
	case <-time.After(failAfter):
		t.Fatal("beta's own update was not relayed")
	}
	// Notifications of one in-process connection arrive in order, so had
	// alpha's been relayed it would have come first.
}

func TestLogMessagesAreRelayedToTheCall(t *testing.T) {
	_, a, _, conns := libraries(t, nil)
	var got []connector.LogMessage
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	raw, err := conns[0].CallToolWith(ctx, "chatty", nil, connector.CallHandlers{
		Log: func(m connector.LogMessage) { got = append(got, m); a.heard <- struct{}{} },
	})
	if err != nil || !strings.Contains(string(raw), "said it") {
		t.Fatalf("call: %s, %v", raw, err)
	}
	if len(got) != 1 || got[0].Level != "warning" || got[0].Logger != "alpha" || string(got[0].Data) != `"careful"` {
		t.Fatalf("log messages %+v", got)
	}
}

func TestPromptListChangeIsFollowed(t *testing.T) {
	src, a, _, _ := libraries(t, nil)
	changed := make(chan struct{}, 4)
	src.OnChange(func() { changed <- struct{}{} })
	a.srv.AddPrompt(mcp.NewPrompt("farewell"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("bye", nil), nil
	})
	deadline := time.After(failAfter)
	for {
		var names []string
		for _, p := range src.Prompts() {
			names = append(names, p.Prompt.Name)
		}
		if strings.Join(names, ",") == "alpha_farewell,alpha_greet,beta_greet" {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("prompts after the upstream added one: %v", names)
		}
	}
}
