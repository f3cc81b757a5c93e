package front_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/mcp/front"
	"github.com/a2a-mcp-bridge/bridge/request"
)

var quiet = slog.New(slog.DiscardHandler)

// failAfter bounds waits that only end early when the code under test works.
const failAfter = 20 * time.Second

// checker is a hand-written Checker: it records every hop and refuses the
// tools named in deny.
type checker struct {
	mu   sync.Mutex
	hops []request.Hop
	deny map[string]string // "agent/tool" → reason
}

func (c *checker) Check(_ context.Context, hop request.Hop) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hops = append(c.hops, hop)
	if reason, ok := c.deny[hop.Agent+"/"+hop.Tool]; ok {
		return a2a.ErrPermissionDenied.Withf("denied by policy: %s", reason)
	}
	return nil
}

func (c *checker) seen() []request.Hop {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]request.Hop(nil), c.hops...)
}

// env is two upstream test servers with the same tool names (alpha, beta)
// behind a Source, behind the face on a loopback listener.
type env struct {
	alpha, beta *connectortest.Server
	src         *front.Source
	face        *endpoint.Face
	url         string
	check       *checker
}

func newEnv(t *testing.T, deny map[string]string) *env {
	t.Helper()
	e := &env{alpha: connectortest.NewServer(connectortest.Options{}), beta: connectortest.NewServer(connectortest.Options{}), check: &checker{deny: deny}}
	ctx := context.Background()
	var servers []front.Server
	for _, s := range []struct {
		name string
		srv  *connectortest.Server
	}{{"alpha", e.alpha}, {"beta", e.beta}} {
		c, err := connector.InProcess(ctx, s.srv.MCP, connector.Config{Name: s.name, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		servers = append(servers, front.Server{Name: s.name, Upstream: c})
	}
	src, err := front.New(ctx, front.Config{Servers: servers, Check: e.check, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	e.src = src
	e.url, e.face = serve(t, src)
	return e
}

// serve puts src behind the face (no authentication) on a loopback
// listener and returns the base URL.
func serve(t *testing.T, src endpoint.ToolSource) (string, *endpoint.Face) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	f, err := endpoint.New(endpoint.Config{PublicURL: url, UnsafeNoAuth: true, Sources: []endpoint.ToolSource{src}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	f.Mount(mux)
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	hs.Start()
	t.Cleanup(hs.Close)
	return url, f
}

func (e *env) connect(t *testing.T) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(e.url + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	return start(t, tr)
}

func start(t *testing.T, tr transport.Interface) *client.Client {
	t.Helper()
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "front-test", Version: "1"},
	}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func listRaw(t *testing.T, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func firstText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			return tc.Text
		}
	}
	return ""
}

func TestCollidingToolNamesArePrefixedPerServer(t *testing.T) {
	e := newEnv(t, nil)
	tools := listRaw(t, e.connect(t))
	for _, name := range []string{"alpha_echo", "beta_echo", "alpha_add", "beta_add", "alpha_structured", "beta_slow"} {
		if _, ok := tools[name]; !ok {
			t.Errorf("tool %s not listed; got %d tools", name, len(tools))
		}
	}
	if _, ok := tools["echo"]; ok {
		t.Error("an unprefixed tool was listed")
	}
	echo := tools["alpha_echo"]
	if echo.Title != "Echo" || echo.Description != "Returns the text it is given." {
		t.Errorf("title/description not kept: %q %q", echo.Title, echo.Description)
	}
	if echo.Annotations.ReadOnlyHint == nil || !*echo.Annotations.ReadOnlyHint {
		t.Error("readOnlyHint not kept")
	}
	if srv, orig, ok := e.src.Lookup("beta_echo"); !ok || srv != "beta" || orig != "echo" {
		t.Errorf("Lookup(beta_echo) = %q %q %v", srv, orig, ok)
	}
	hop, ok := e.src.Hop("alpha_fail")
	if !ok || hop.Agent != "alpha" || hop.Tool != "fail" || hop.Direction != request.DirFrontMCP || hop.Face != request.FaceMCP || !hop.ToolDestructive {
		t.Errorf("Hop(alpha_fail) = %+v", hop)
	}
}

func TestSchemasAreServedRaw(t *testing.T) {
	const in = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}],"additionalProperties":false}`
	const out = `{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}`
	f := &fake{tools: []connector.Tool{{
		Name: "raw", Title: "Raw", Description: "keeps every keyword", InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
		Raw: json.RawMessage(`{"name":"raw","icons":[{"src":"https://example.com/i.png"}],"_meta":{"x.example/k":1}}`),
	}}}
	src, err := front.New(context.Background(), front.Config{Logger: quiet, Servers: []front.Server{{Name: "f", Upstream: f}}})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := serve(t, src)
	body := rawPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	for _, want := range []string{`"name":"f_raw"`, `"inputSchema":` + in, `"outputSchema":` + out, `"icons":[{"src":"https://example.com/i.png"}]`, `"x.example/k":1`, `"title":"Raw"`} {
		if !strings.Contains(body, want) {
			t.Errorf("tools/list lacks %s:\n%s", want, body)
		}
	}
}

// rawPost sends one handshake-era request to a stateless face and returns
// the response body (the JSON-RPC message, unwrapped from SSE if needed).
func rawPost(t *testing.T, url, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.ProtocolVersion20250618)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	out := string(b)
	for _, line := range strings.Split(out, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			return d
		}
	}
	return out
}

func TestCallIsRoutedWithTheOriginalName(t *testing.T) {
	e := newEnv(t, nil)
	c := e.connect(t)
	res := call(t, c, "beta_echo", map[string]any{"text": "to beta"})
	if res.IsError || firstText(res) != "to beta" {
		t.Fatalf("result %+v", res)
	}
	if e.beta.Calls("echo") != 1 || e.alpha.Calls("echo") != 0 {
		t.Fatalf("calls: alpha %d, beta %d", e.alpha.Calls("echo"), e.beta.Calls("echo"))
	}
	hops := e.check.seen()
	if len(hops) != 1 || hops[0].Agent != "beta" || hops[0].Tool != "echo" || hops[0].Principal == nil || hops[0].Method != "tools/call" {
		t.Fatalf("checked hops %+v", hops)
	}
}

func TestResultsPassThroughUnchanged(t *testing.T) {
	e := newEnv(t, nil)
	c := e.connect(t)
	s := call(t, c, "alpha_structured", nil)
	got, _ := json.Marshal(s.StructuredContent)
	if string(got) != `{"answer":42}` || firstText(s) != `{"answer":42}` || s.IsError {
		t.Errorf("structured result %s / %q", got, firstText(s))
	}
	f := call(t, c, "beta_fail", nil)
	if !f.IsError || firstText(f) != "it broke on purpose" {
		t.Errorf("isError result %+v", f)
	}
	img := call(t, c, "alpha_image", nil)
	if len(img.Content) != 2 {
		t.Fatalf("image result %+v", img)
	}
	if ic, ok := mcp.AsImageContent(img.Content[1]); !ok || ic.MIMEType != "image/png" || ic.Data != base64.StdEncoding.EncodeToString(connectortest.PNG) {
		t.Errorf("image content %+v", img.Content[1])
	}
	r := call(t, c, "beta_resources", nil)
	if len(r.Content) != 3 {
		t.Errorf("resources result has %d parts", len(r.Content))
	}
}

func TestPolicyDenialNeverReachesUpstream(t *testing.T) {
	e := newEnv(t, map[string]string{"alpha/add": "no adding on alpha"})
	c := e.connect(t)
	res := call(t, c, "alpha_add", map[string]any{"a": 1, "b": 2})
	if !res.IsError || !strings.Contains(firstText(res), "no adding on alpha") {
		t.Fatalf("denied call result %+v", res)
	}
	if e.alpha.Calls("add") != 0 {
		t.Fatal("a denied call reached the upstream")
	}
	if res := call(t, c, "beta_add", map[string]any{"a": 1, "b": 2}); res.IsError || firstText(res) != "3" {
		t.Fatalf("allowed call %+v", res)
	}
}

// stepper is an upstream MCP server, reached over streamable HTTP, whose
// tool "steps" sends progress 1..n in lockstep with the test: step i+1 is
// sent only once the caller acknowledged step i, so the order the caller
// sees is the relay's and not a race.
func stepper(t *testing.T, n int) (*connector.Conn, chan<- struct{}) {
	t.Helper()
	ack := make(chan struct{}, 1)
	s := server.NewMCPServer("stepper", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("steps", mcp.WithDescription("progress in lockstep")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := req.Params.Meta.ProgressToken
		for i := 1; i <= n; i++ {
			_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
				"progressToken": tok, "progress": float64(i), "total": float64(n), "message": fmt.Sprintf("step %d", i),
			})
			select {
			case <-ack:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return mcp.NewToolResultText("done"), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)
	c, err := connector.Dial(context.Background(), connector.Config{Name: "stepper", Logger: quiet,
		HTTP: &connector.HTTPConfig{URL: hs.URL, Client: &http.Client{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, ack
}

func TestProgressIsRelayedInOrder(t *testing.T) {
	const steps = 5
	up, ack := stepper(t, steps)
	src, err := front.New(context.Background(), front.Config{Logger: quiet, Servers: []front.Server{{Name: "s", Upstream: up}}})
	if err != nil {
		t.Fatal(err)
	}
	url, _ := serve(t, src)
	tr, err := transport.NewStreamableHTTP(url + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, tr)
	var mu sync.Mutex
	var got []float64
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != string(mcp.MethodNotificationProgress) {
			return
		}
		mu.Lock()
		p, _ := n.Params.AdditionalFields["progress"].(float64)
		if n.Params.AdditionalFields["progressToken"] == "caller-token" {
			got = append(got, p)
		}
		mu.Unlock()
		ack <- struct{}{}
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "s_steps"
	req.Params.Meta = &mcp.Meta{ProgressToken: "caller-token"}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || firstText(res) != "done" {
		t.Fatalf("result %+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(got) != "[1 2 3 4 5]" {
		t.Fatalf("progress relayed as %v, want [1 2 3 4 5] with the caller's token", got)
	}
}

func TestCancelReachesUpstream(t *testing.T) {
	e := newEnv(t, nil)
	c := e.connect(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "beta_block"
		_, err := c.CallTool(ctx, req)
		errc <- err
	}()
	select {
	case <-e.beta.Started():
	case <-time.After(failAfter):
		t.Fatal("the blocking tool never started upstream")
	}
	cancel()
	select {
	case <-e.beta.Cancelled():
	case <-time.After(failAfter):
		t.Fatal("the cancel never reached the upstream")
	}
	if err := <-errc; err == nil {
		t.Fatal("cancelled call returned no error")
	}
}

// TestListChangeIsFollowed serves the face over stdio, where hosts get
// notifications/tools/list_changed.
func TestListChangeIsFollowed(t *testing.T) {
	e := newEnv(t, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = e.face.ServeStdio(ctx, inR, outW)
	}()
	t.Cleanup(func() { cancel(); inW.Close(); outW.Close(); <-done })
	c := start(t, transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	changed := make(chan struct{}, 8)
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			changed <- struct{}{}
		}
	})
	before := listRaw(t, c)
	e.beta.MCP.AddTool(mcp.NewTool("zeta", mcp.WithDescription("new")), nil)
	for {
		select {
		case <-changed:
		case <-time.After(failAfter):
			t.Fatal("no notifications/tools/list_changed reached the host")
		}
		if _, ok := listRaw(t, c)["beta_zeta"]; ok {
			break
		}
	}
	after := listRaw(t, c)
	for name := range before {
		if _, ok := after[name]; !ok {
			t.Errorf("tool %s vanished after an unrelated change", name)
		}
	}
	if len(after) != len(before)+1 {
		t.Errorf("%d tools before, %d after", len(before), len(after))
	}
}

// fake is a hand-written Upstream whose list the test sets.
type fake struct {
	mu        sync.Mutex
	tools     []connector.Tool
	listeners []func([]connector.Tool)
	called    []string
}

func (f *fake) Tools(context.Context) ([]connector.Tool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tools, nil
}

func (f *fake) CallTool(_ context.Context, name string, _ json.RawMessage, _ connector.ProgressFunc, _ connector.ElicitFunc) (json.RawMessage, error) {
	f.mu.Lock()
	f.called = append(f.called, name)
	f.mu.Unlock()
	return json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`), nil
}

func (f *fake) OnToolsChanged(fn func([]connector.Tool)) {
	f.mu.Lock()
	f.listeners = append(f.listeners, fn)
	f.mu.Unlock()
}

func (f *fake) set(names ...string) {
	ts := make([]connector.Tool, len(names))
	for i, n := range names {
		ts[i] = connector.Tool{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`), Raw: json.RawMessage(`{"name":"` + n + `"}`)}
	}
	f.mu.Lock()
	f.tools = ts
	ls := append([]func([]connector.Tool){}, f.listeners...)
	f.mu.Unlock()
	for _, l := range ls {
		l(ts)
	}
}

func names(s *front.Source) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Tool.Name)
	}
	return out
}

func TestNameCollisionsGetDeterministicSuffixes(t *testing.T) {
	build := func() *front.Source {
		a, b := &fake{}, &fake{}
		a.set("y_z", "hello world", "hello_world", strings.Repeat("x", 200), "dotted.name")
		b.set("z")
		src, err := front.New(context.Background(), front.Config{Logger: quiet, Servers: []front.Server{
			{Name: "a", Prefix: "x_", Upstream: a},
			{Name: "b", Prefix: "x_y_", Upstream: b},
		}})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	first, second := names(build()), names(build())
	if strings.Join(first, ",") != strings.Join(second, ",") {
		t.Fatalf("names differ between two identical builds:\n%v\n%v", first, second)
	}
	seen := map[string]bool{}
	for _, n := range first {
		if seen[n] {
			t.Fatalf("duplicate name %q in %v", n, first)
		}
		seen[n] = true
		if !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`).MatchString(n) {
			t.Errorf("name %q breaks the function-name rule of major hosts", n)
		}
	}
	if first[0] != "x_y_z" || first[1] != "x_hello_world" || !strings.HasPrefix(first[2], "x_hello_world_") || !strings.HasPrefix(first[5], "x_y_z_") {
		t.Errorf("names %v", first)
	}
	if first[4] != "x_dotted_name" {
		t.Errorf("dotted upstream name served as %q, want x_dotted_name", first[4])
	}
	if len(first[3]) != front.MaxNameLen {
		t.Errorf("long name not clipped to %d: %d", front.MaxNameLen, len(first[3]))
	}
}

func TestNamesStayStableAcrossListChanges(t *testing.T) {
	a, b := &fake{}, &fake{}
	a.set("t")
	b.set("t")
	src, err := front.New(context.Background(), front.Config{Logger: quiet, Servers: []front.Server{
		{Name: "a", NoPrefix: true, Upstream: a},
		{Name: "b", NoPrefix: false, Prefix: "", Upstream: b},
	}})
	if err != nil {
		t.Fatal(err)
	}
	notified := 0
	src.OnChange(func() { notified++ })
	if got := strings.Join(names(src), ","); got != "t,b_t" {
		t.Fatalf("names %s", got)
	}
	// b's tool leaves and comes back; a gains a tool named like b's: the
	// returning tool keeps its name and the newcomer gets a suffix.
	b.set()
	a.set("t", "b_t")
	b.set("t")
	got := names(src)
	if notified != 3 || len(got) != 3 || got[0] != "t" || !strings.HasPrefix(got[1], "b_t_") || got[2] != "b_t" {
		t.Fatalf("after changes (%d notifications): %v", notified, got)
	}
	if srv, orig, _ := src.Lookup(got[1]); srv != "a" || orig != "b_t" {
		t.Errorf("suffixed name routes to %s/%s", srv, orig)
	}
	a.set("t", "b_t") // same list: no notification
	if notified != 3 {
		t.Errorf("an unchanged list notified")
	}
}

func TestConfigProblemsAreAllReported(t *testing.T) {
	f := &fake{}
	_, err := front.New(context.Background(), front.Config{Servers: []front.Server{
		{Name: "", Upstream: f},
		{Name: "a", Upstream: f},
		{Name: "a", Upstream: f},
		{Name: "b", Prefix: "a_", Upstream: f},
		{Name: "c"},
	}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"servers[0]: name is required", `servers[2]: name "a" is used twice`, `servers[3]: tool prefix "a_" is used twice`, "servers[4]: upstream is required"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestCallWithoutPrincipalIsRefused(t *testing.T) {
	f := &fake{}
	f.set("t")
	src, err := front.New(context.Background(), front.Config{Logger: quiet, Servers: []front.Server{{Name: "a", Upstream: f}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Tools()[0].Handler(context.Background(), mcp.CallToolRequest{})
	if err != nil || !res.IsError || len(f.called) != 0 {
		t.Fatalf("res %+v err %v called %v", res, err, f.called)
	}
	ctx := request.WithPrincipal(context.Background(), &request.Principal{Subject: "s", Issuer: "i"})
	res, err = src.Tools()[0].Handler(ctx, mcp.CallToolRequest{})
	if err != nil || res.IsError || len(f.called) != 1 || f.called[0] != "t" {
		t.Fatalf("res %+v err %v called %v", res, err, f.called)
	}
}
