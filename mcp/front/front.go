// Package front aggregates existing MCP servers behind the bridge's MCP
// face (front MCP). Each upstream server's tools are served under a
// per-server prefix ("files_read", "tickets_read"), collision-free and stable
// across list changes; a call is checked (rate limits and policy, per tool),
// then routed to its server under the tool's original name. Progress and
// cancellation are relayed, elicitation is relayed to hosts that can answer
// it, and results pass through unchanged. Prompts are served under the same
// prefixes, resources and resource templates under their upstream URIs
// (the first server listing a URI serves it); prompts/get, resources/read,
// completions and subscriptions are checked as hops (Method "prompts/get"
// or "resources/read") and routed to their server. Upstream log messages
// reach the caller's session; upstream sampling requests reach callers that
// can answer them.
//
// A Source is a endpoint.ToolSource, endpoint.Notifier, endpoint.HopDescriber,
// endpoint.PromptSource, endpoint.ResourceSource, endpoint.ResourceTemplateSource,
// endpoint.ResourceHopDescriber and endpoint.ResourceSubscriber.
package front

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/elicitation"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Upstream is one MCP server as the source uses it. *connector.Conn
// implements it.
type Upstream interface {
	// Tools returns the server's tool list, raw, in the server's order.
	Tools(ctx context.Context) ([]connector.Tool, error)
	// CallTool calls a tool by its original name and returns the result
	// exactly as the server sent it; cancelling ctx cancels the call
	// upstream.
	CallTool(ctx context.Context, name string, args json.RawMessage, progress connector.ProgressFunc, elicit connector.ElicitFunc) (json.RawMessage, error)
	// OnToolsChanged registers f, called with the new list on every change.
	OnToolsChanged(f func([]connector.Tool))
}

var _ Upstream = (*connector.Conn)(nil)

// Checker applies rate limits and policy to one call (gateway/hops.Chain). A
// refusal's text is shown to the caller: for an *a2a.Error its Message,
// else the error's text.
type Checker interface {
	Check(ctx context.Context, hop request.Hop) error
}

// Server is one upstream MCP server behind the source.
type Server struct {
	// Name identifies the server in policy (hop.agent), logs and results.
	// Required, unique.
	Name string
	// Prefix is prepended to the server's tool names. Default Name + "_".
	// Unique among the servers (NoPrefix counts as the empty prefix).
	Prefix string
	// NoPrefix serves the tools under their own names (a sidecar fronting
	// one server). Collisions with other servers' tools still get a suffix.
	NoPrefix bool
	// Upstream is the connection to the server. Required.
	Upstream Upstream
}

// Config configures a Source.
type Config struct {
	// Servers are the upstream servers, in the order their tools are listed
	// and names are assigned (an earlier server keeps an unsuffixed name on
	// a collision).
	Servers []Server
	// Check is applied to every call before it is sent upstream. Nil allows
	// every call (the face's policy filter still applies).
	Check Checker
	// Logger receives name collisions, refusals and upstream failures
	// (default slog.Default()).
	Logger *slog.Logger
}

// Source serves the tools of several upstream MCP servers. It is safe for
// concurrent use.
type Source struct {
	log   *slog.Logger
	check Checker
	seq   atomic.Uint64
	turns *elicitation.Turns // one relayed question at a time per host session

	mu        sync.Mutex
	servers   []*entry // the served servers, in configuration order
	names     *namer
	pnames    *namer
	extras    extras
	lists     map[string][]connector.Tool
	tools     []server.ServerTool
	hops      map[string]binding
	listeners []func()

	resUpdated []func(uri string)
	extrasMu   sync.Mutex // serializes refreshExtras (and guards pnames)
}

type entry struct {
	name, prefix string
	up           Upstream
}

// binding is what a public tool name stands for.
type binding struct {
	entry *entry
	hop   request.Hop
}

var (
	_ endpoint.ToolSource   = (*Source)(nil)
	_ endpoint.Notifier     = (*Source)(nil)
	_ endpoint.HopDescriber = (*Source)(nil)
)

// New builds the source and reads each server's tool list. A server whose
// list cannot be read contributes no tools until it reports a change (or
// Refresh is called); the others are served.
func New(ctx context.Context, cfg Config) (*Source, error) {
	s := &Source{log: cfg.Logger, check: cfg.Check, names: newNamer(), pnames: newNamer(), lists: map[string][]connector.Tool{}, hops: map[string]binding{}, turns: elicitation.NewTurns()}
	if s.log == nil {
		s.log = slog.Default()
	}
	entries, err := newEntries(cfg.Servers)
	if err != nil {
		return nil, err
	}
	s.servers = entries
	for _, e := range s.servers {
		s.watch(e)
	}
	s.Refresh(ctx)
	return s, nil
}

// newEntries validates servers and returns their entries.
func newEntries(servers []Server) ([]*entry, error) {
	var problems []string
	var out []*entry
	seenName, seenPrefix := map[string]bool{}, map[string]bool{}
	for i, sv := range servers {
		prefix := sv.Prefix
		if sv.NoPrefix {
			prefix = ""
		} else if prefix == "" {
			prefix = sv.Name + "_"
		}
		switch {
		case sv.Name == "":
			problems = append(problems, fmt.Sprintf("servers[%d]: name is required", i))
		case seenName[sv.Name]:
			problems = append(problems, fmt.Sprintf("servers[%d]: name %q is used twice", i, sv.Name))
		case seenPrefix[prefix]:
			problems = append(problems, fmt.Sprintf("servers[%d]: tool prefix %q is used twice: servers would shadow each other's tools", i, prefix))
		case sv.Upstream == nil:
			problems = append(problems, fmt.Sprintf("servers[%d]: upstream is required", i))
		}
		seenName[sv.Name], seenPrefix[prefix] = true, true
		out = append(out, &entry{name: sv.Name, prefix: prefix, up: sv.Upstream})
	}
	if len(problems) > 0 {
		return nil, errors.New("front: " + strings.Join(problems, "; "))
	}
	return out, nil
}

// watch follows e's list changes while e is served.
func (s *Source) watch(e *entry) {
	e.up.OnToolsChanged(func(ts []connector.Tool) {
		if s.serves(e) {
			s.update(e, ts)
		}
	})
	if lu, ok := e.up.(ListUpstream); ok {
		lu.OnListChanged(func() {
			if s.serves(e) {
				s.extrasChanged()
			}
		})
	}
	if su, ok := e.up.(SubscribeUpstream); ok {
		su.OnResourceUpdated(func(uri string) { s.resourceUpdated(e, uri) })
	}
}

// serves reports whether e is one of the served servers.
func (s *Source) serves(e *entry) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.servers, e)
}

// entries is the served servers now.
func (s *Source) entries() []*entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.servers
}

// SetServers makes servers the served set, while serving: a server whose
// name is new is added (its lists read now), one no longer named is
// dropped with its tools, prompts and resources, and one whose Upstream or
// prefix changed is replaced; the others are kept as they are. Names stay
// stable: a tool keeps its public name across a replace. Listeners hear of
// a changed served set. On an invalid list nothing changes. Closing the
// dropped upstreams is the caller's.
func (s *Source) SetServers(ctx context.Context, servers []Server) error {
	next, err := newEntries(servers)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := map[string]*entry{}
	for _, e := range s.servers {
		old[e.name] = e
	}
	var added []*entry
	for i, e := range next {
		if o := old[e.name]; o != nil && o.up == e.up && o.prefix == e.prefix {
			next[i] = o
			delete(old, e.name)
			continue
		}
		added = append(added, e)
	}
	for name := range old {
		delete(s.lists, name)
	}
	for _, e := range added {
		delete(s.lists, e.name)
	}
	s.servers = next
	s.rebuild()
	s.mu.Unlock()
	for _, e := range added {
		s.watch(e)
		ts, err := e.up.Tools(ctx)
		if err != nil {
			s.log.Warn("front: reading a server's tool list failed; its tools are not served until it recovers", "server", e.name, "error", err.Error())
			continue
		}
		s.setList(e, ts)
	}
	s.refreshExtras(ctx)
	s.notify()
	return nil
}

// Refresh re-reads every server's tool list, prompts, resources and
// resource templates and rebuilds the served set, notifying listeners when
// it changed. A server whose tool list fails keeps its last list; its error
// is logged.
func (s *Source) Refresh(ctx context.Context) {
	changed := s.refreshExtras(ctx)
	for _, e := range s.entries() {
		ts, err := e.up.Tools(ctx)
		if err != nil {
			s.log.Warn("front: reading a server's tool list failed; its tools are not served until it recovers", "server", e.name, "error", err.Error())
			continue
		}
		if s.setList(e, ts) {
			changed = true
		}
	}
	if changed {
		s.notify()
	}
}

// update follows one server's list change.
func (s *Source) update(e *entry, ts []connector.Tool) {
	if s.setList(e, ts) {
		s.notify()
	}
}

// setList records a server's list and rebuilds; it reports whether the
// served set changed.
func (s *Source) setList(e *entry, ts []connector.Tool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.servers, e) {
		return false // dropped meanwhile
	}
	old, had := s.lists[e.name]
	if had && sameTools(old, ts) {
		return false
	}
	s.lists[e.name] = ts
	s.rebuild()
	return true
}

func sameTools(a, b []connector.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if string(a[i].Raw) != string(b[i].Raw) || a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// rebuild recomputes the served tools from the recorded lists; s.mu is held.
func (s *Source) rebuild() {
	var tools []server.ServerTool
	hops := map[string]binding{}
	for _, e := range s.servers {
		for _, t := range s.lists[e.name] {
			name, collided := s.names.name(key{e.name, t.Name}, e.prefix)
			if collided {
				s.log.Warn("front: tool name collision; served with a suffix", "server", e.name, "tool", t.Name, "name", name)
			}
			hop := request.Hop{
				Face: request.FaceMCP, Direction: request.DirFrontMCP, Agent: e.name, Tool: t.Name,
				ToolDestructive: t.Annotations.Destructive(), ToolReadOnly: t.Annotations.ReadOnly(), Method: "tools/call",
			}
			hops[name] = binding{entry: e, hop: hop}
			tools = append(tools, server.ServerTool{Tool: mcpTool(name, t), Handler: s.handler(e, t.Name, name, hop)})
		}
	}
	s.tools, s.hops = tools, hops
}

// mcpTool is t as served under name: schemas raw, title, description,
// annotations, icons and _meta kept.
func mcpTool(name string, t connector.Tool) mcp.Tool {
	out := mcp.Tool{
		Name: name, Title: t.Title, Description: t.Description,
		RawInputSchema: t.InputSchema,
		Annotations: mcp.ToolAnnotation{
			Title: t.Annotations.Title, ReadOnlyHint: t.Annotations.ReadOnlyHint, DestructiveHint: t.Annotations.DestructiveHint,
			IdempotentHint: t.Annotations.IdempotentHint, OpenWorldHint: t.Annotations.OpenWorldHint,
		},
	}
	if len(t.OutputSchema) > 0 {
		out.RawOutputSchema = t.OutputSchema
	}
	var extra struct {
		Meta  *mcp.Meta  `json:"_meta"`
		Icons []mcp.Icon `json:"icons"`
	}
	if len(t.Raw) > 0 && json.Unmarshal(t.Raw, &extra) == nil {
		out.Meta, out.Icons = extra.Meta, extra.Icons
	}
	return out
}

func (s *Source) notify() {
	s.mu.Lock()
	ls := append([]func(){}, s.listeners...)
	s.mu.Unlock()
	for _, f := range ls {
		f()
	}
}

// Tools implements endpoint.ToolSource: every server's tools, servers in
// configuration order, each server's tools in its order.
func (s *Source) Tools() []server.ServerTool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]server.ServerTool(nil), s.tools...)
}

// OnChange implements endpoint.Notifier: fn is called after the served set
// changed (the face then re-reads Tools and tells hosts the list changed).
func (s *Source) OnChange(fn func()) {
	s.mu.Lock()
	s.listeners = append(s.listeners, fn)
	s.mu.Unlock()
}

// Hop implements endpoint.HopDescriber: the policy hop of a served tool, with
// Agent the server's name and Tool the tool's original name.
func (s *Source) Hop(tool string) (request.Hop, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.hops[tool]
	return b.hop, ok
}

// Lookup returns the server and original tool name a served name routes to.
func (s *Source) Lookup(tool string) (serverName, original string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.hops[tool]
	if !ok {
		return "", "", false
	}
	return b.entry.name, b.hop.Tool, true
}

// handler calls original on e for the served tool public.
func (s *Source) handler(e *entry, original, public string, hop request.Hop) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		h := hop
		h.Principal = request.PrincipalFrom(ctx)
		if h.Principal == nil {
			return errResult("%s: no authenticated caller", public), nil
		}
		if s.check != nil {
			if err := s.check.Check(ctx, h); err != nil {
				s.log.Info("front: call refused", "who", h.Principal.String(), "server", e.name, "tool", original, "reason", err.Error())
				return errResult("%s: refused: %s", public, refusal(err)), nil
			}
		}
		args := req.Params.RawArguments
		if args == nil && req.Params.Arguments != nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return errResult("%s: arguments are not JSON", public), nil
			}
			args = b
		}
		rl := newRelay(ctx, req)
		uctx, stop := detach(ctx)
		var raw json.RawMessage
		var err error
		if ru, ok := e.up.(RelayUpstream); ok {
			raw, err = ru.CallToolWith(uctx, original, args, withLog(ctx, rl.log, connector.CallHandlers{
				Progress: rl.progress, Elicit: s.elicit(ctx), Sample: s.sample(ctx),
			}))
		} else {
			raw, err = e.up.CallTool(uctx, original, args, rl.progress, s.elicit(ctx))
		}
		stop()
		rl.finish()
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.log.Warn("front: upstream call failed", "server", e.name, "tool", original, "error", err.Error())
			return callFailure(public, e.name, err), nil
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			s.log.Warn("front: upstream result is not a tool result", "server", e.name, "tool", original, "error", err.Error())
			return errResult("%s: the %s server sent a malformed result", public, e.name), nil
		}
		// The result type and the protocol's own _meta keys describe the
		// upstream hop; the face sets its own for the caller's era.
		res.ResultType = ""
		if res.Meta != nil {
			for k := range res.Meta.AdditionalFields {
				if strings.HasPrefix(k, "io.modelcontextprotocol/") {
					delete(res.Meta.AdditionalFields, k)
				}
			}
			if len(res.Meta.AdditionalFields) == 0 && res.Meta.ProgressToken == nil {
				res.Meta = nil
			}
		}
		return &res, nil
	}
}

// callFailure is the result of a call that failed on the server's side of
// the hop: what the caller may know (unavailable, went away, the server's
// own error message), never the bridge's side (URLs, addresses, dial
// errors), which the log has.
func callFailure(public, server string, err error) *mcp.CallToolResult {
	var se *connector.ServerError
	switch {
	case errors.Is(err, connector.ErrDied):
		return errResult("%s: the %s server went away during the call; it is being reconnected, retry", public, server)
	case connector.Unreachable(err):
		return errResult("%s: the %s server is unavailable: it cannot be reached; retry later", public, server)
	case errors.As(err, &se):
		return errResult("%s: the %s server answered: %s", public, server, clean(se.Message, 500))
	}
	return errResult("%s: the %s server failed", public, server)
}

// detach returns a context for the upstream call that ends when ctx ends
// but carries none of ctx's values except the principal: the inbound
// request's headers, session and protocol state belong to the caller's hop
// and must not leak into the upstream's (an in-process upstream would read
// them as its own request's).
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	// The trace context goes along: the upstream call joins the caller's
	// trace (traceparent in the request's _meta).
	base := trace.ContextWithSpanContext(context.Background(), trace.SpanContextFromContext(ctx))
	uctx, cancel := context.WithCancel(request.WithPrincipal(base, request.PrincipalFrom(ctx)))
	stop := context.AfterFunc(ctx, cancel)
	return uctx, func() { stop(); cancel() }
}

// refusal is the caller-visible text of a Checker error.
func refusal(err error) string {
	if e := a2a.AsError(err); e != nil && e.Message != "" {
		return e.Message
	}
	return clean(err.Error(), 300)
}

func errResult(format string, args ...any) *mcp.CallToolResult {
	return mcp.NewToolResultError(fmt.Sprintf(format, args...))
}

// clean caps s and drops control characters.
func clean(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// elicit relays an upstream's elicitation to the caller when the caller can
// answer it now (a handshake-era host that declared elicitation: on stdio,
// an HTTP session, or a stateless HTTP call whose response streams);
// otherwise it refuses with an error, which the upstream sees as a failed
// request, never as the user's answer. 2026-07-28 callers would need the
// upstream call parked across requests, which the source does not do. The
// caller's answer is held to the upstream's schema: one that does not fit is
// asked again with what was wrong (elicitation.AskAgain), never passed on.
// Questions to one session take turns.
func (s *Source) elicit(ctx context.Context) connector.ElicitFunc {
	return func(_ context.Context, e connector.Elicitation) (connector.ElicitResult, error) {
		srv := server.ServerFromContext(ctx)
		if srv == nil || server.IsModernRequest(ctx) || !canElicit(ctx) {
			return connector.ElicitResult{}, errors.New("front: the caller cannot be asked during this call")
		}
		release, err := s.turns.Acquire(ctx, server.ClientSessionFromContext(ctx))
		if err != nil {
			return connector.ElicitResult{}, err
		}
		defer release()
		schema, serr := elicitation.Parse(e.RequestedSchema)
		p := mcp.ElicitationParams{Message: e.Message}
		if e.Mode == "url" {
			p.Mode, p.URL = "url", e.URL
			p.ElicitationID = "bridge-elicit-" + strconv.FormatUint(s.seq.Add(1), 10)
		}
		if len(e.RequestedSchema) > 0 {
			p.RequestedSchema = e.RequestedSchema
		}
		res, err := elicitation.AskAgain(e.Message, func(text string) (*mcp.ElicitationResult, error) {
			p.Message = text
			res, err := endpoint.Elicit(ctx, mcp.ElicitationRequest{
				Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
				Params:  p,
			})
			if err != nil {
				return nil, fmt.Errorf("front: relay elicitation: %w", err)
			}
			return res, nil
		}, func(res *mcp.ElicitationResult) error {
			if res.Action != mcp.ElicitationResponseActionAccept || e.Mode == "url" || serr != nil {
				return nil
			}
			return schema.Validate(answerContent(res))
		})
		if err != nil {
			return connector.ElicitResult{}, err
		}
		out := connector.ElicitResult{Action: string(res.Action)}
		if res.Action == mcp.ElicitationResponseActionAccept {
			out.Content = answerContent(res)
		}
		return out, nil
	}
}

// answerContent is an accepted answer's content (an empty object when it
// has none).
func answerContent(res *mcp.ElicitationResult) map[string]any {
	if m, _ := res.Content.(map[string]any); m != nil {
		return m
	}
	return map[string]any{}
}

// sample relays an upstream's sampling request to the caller when the
// caller can answer it now (a handshake-era host that declared sampling, as
// for elicit); otherwise it refuses.
func (s *Source) sample(ctx context.Context) connector.SampleFunc {
	return func(_ context.Context, p mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		srv := server.ServerFromContext(ctx)
		if srv == nil || server.IsModernRequest(ctx) || !canSample(ctx) || !endpoint.SamplingAvailable(ctx) {
			return nil, errors.New("front: the caller cannot answer sampling requests")
		}
		// Sampling asks the user too (hosts show it for approval): it takes
		// its turn with the session's questions.
		release, err := s.turns.Acquire(ctx, server.ClientSessionFromContext(ctx))
		if err != nil {
			return nil, err
		}
		defer release()
		res, err := srv.RequestSampling(ctx, mcp.CreateMessageRequest{
			Request:             mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)},
			CreateMessageParams: p,
		})
		if err != nil {
			return nil, fmt.Errorf("front: relay sampling: %w", err)
		}
		return res, nil
	}
}

// canSample reports whether the caller's host declared sampling (its
// session, or a stateless host at its initialize: endpoint.HostCapabilities).
func canSample(ctx context.Context) bool {
	c, ok := endpoint.HostCapabilities(ctx)
	return ok && c.Sampling != nil
}

// canElicit reports whether the caller's host declared elicitation.
func canElicit(ctx context.Context) bool {
	c, ok := endpoint.HostCapabilities(ctx)
	return ok && c.Elicitation != nil
}

// relay forwards one call's upstream progress to the caller: only when the
// caller asked (progress token), strictly increasing, and never after the
// call's result (finish is called before the handler returns).
type relay struct {
	ctx     context.Context
	srv     *server.MCPServer
	token   mcp.ProgressToken
	mu      sync.Mutex
	done    bool
	started bool
	last    float64
}

func newRelay(ctx context.Context, req mcp.CallToolRequest) *relay {
	r := &relay{ctx: ctx, srv: server.ServerFromContext(ctx)}
	if req.Params.Meta != nil {
		r.token = req.Params.Meta.ProgressToken
	}
	return r
}

func (r *relay) progress(p, total float64, msg string) {
	if r.token == nil || r.srv == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done || (r.started && p <= r.last) {
		return
	}
	r.started, r.last = true, p
	params := map[string]any{"progressToken": r.token, "progress": p}
	if total > 0 {
		params["total"] = total
	}
	if msg != "" {
		params["message"] = msg
	}
	// Written on the call's own stream before this returns, so that it
	// precedes the result (endpoint.Notify).
	_ = endpoint.Notify(r.ctx, string(mcp.MethodNotificationProgress), params)
}

// log forwards one upstream log message to the caller's session (mcp-go
// applies the level the caller set, or the request's level from
// 2026-07-28 on).
func (r *relay) log(m connector.LogMessage) {
	if r.srv == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	var data any
	if len(m.Data) > 0 && json.Unmarshal(m.Data, &data) != nil {
		return
	}
	_ = endpoint.NotifyLog(r.ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevel(m.Level), m.Logger, data))
}

func (r *relay) finish() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
}
