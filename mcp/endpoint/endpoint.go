// Package endpoint is the bridge's MCP server face: one mcp-go server, served
// over streamable HTTP (all protocol eras on one endpoint, stateless) and over
// stdio, with the security mcp-go lacks in front of it: bearer validation per
// the MCP authorization spec, the RFC 9728 protected resource metadata,
// Origin validation, a request body cap, one strict view of every message
// (view.go) and rate limits at the front door (limits.go). Tools come from
// pluggable ToolSources and are listed and callable per principal through a
// policy filter.
package endpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/relay"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/stdio"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/view"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// DefaultPath is where the face is mounted.
const DefaultPath = "/mcp"

// DefaultMaxBodyBytes caps a request body when Config.MaxBodyBytes is zero.
const DefaultMaxBodyBytes = 1 << 20

// MetadataPrefix is the RFC 9728 well-known prefix; the face's document is at
// MetadataPrefix + Path.
const MetadataPrefix = "/.well-known/oauth-protected-resource"

// Authenticator turns a request into the caller's principal, or an error the
// face answers with auth.SetHeaders (401, 403 or 429). It must accept only
// tokens whose audience is the face's canonical resource URL (Face.Resource);
// with auth.Chain, pass chain.ForAudience(face resource), as the gateway
// does, so that tokens for the A2A agents are refused here.
type Authenticator interface {
	Authenticate(r *http.Request) (*request.Principal, error)
}

var (
	_ Authenticator = (*auth.Chain)(nil)
	_ Authenticator = (*auth.Audienced)(nil)
)

// ToolSource supplies tools with their call handlers. Tools is called when
// the face starts and again whenever the source reports a change.
type ToolSource interface {
	Tools() []server.ServerTool
}

// ResourceSource is implemented by sources that also publish resources.
type ResourceSource interface {
	Resources() []server.ServerResource
}

// PromptSource is implemented by sources that also publish prompts; their
// handlers apply the source's own per-request checks.
type PromptSource interface {
	Prompts() []server.ServerPrompt
}

// ResourceTemplateSource is implemented by sources that also publish
// resource templates; reads of a matching URI are filtered like resources
// (ResourceHopDescriber is asked with the template's URI template).
type ResourceTemplateSource interface {
	ResourceTemplates() []server.ServerResourceTemplate
}

// ResourceSubscriber is implemented by sources whose resources change: the
// face declares resources.subscribe, asks the source for updates on a URI
// while at least one session is subscribed to it, and sends
// notifications/resources/updated to those sessions.
type ResourceSubscriber interface {
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
	OnResourceUpdated(fn func(uri string))
}

// Notifier is implemented by sources whose tool set changes at run time
// (card refreshes); the face registers its resync function with it.
type Notifier interface {
	OnChange(fn func())
}

// HopDescriber is implemented by sources that can say which agent or
// upstream a tool belongs to, for policy rules.
type HopDescriber interface {
	Hop(tool string) (request.Hop, bool)
}

// ResourceHopDescriber is implemented by sources whose resources belong to
// an agent or upstream, so that the policy decides who may list and read
// them (Method "resources/read").
type ResourceHopDescriber interface {
	ResourceHop(uri string) (request.Hop, bool)
}

// Decider is the policy engine (policy.Engine).
type Decider interface {
	Decide(ctx context.Context, hop request.Hop) policy.Decision
}

var _ Decider = (*policy.Engine)(nil)

// Config configures a Face. The zero value is not usable: Authenticator (or
// UnsafeNoAuth) and PublicURL are required for HTTP.
type Config struct {
	// Name and Version are the server info sent to hosts.
	Name, Version string
	// Instructions is the optional server instructions text.
	Instructions string
	// PublicURL is the bridge's external base URL (scheme://host[:port]),
	// without the path. The canonical resource URL, which tokens must name as
	// their audience, is PublicURL + Path. Required for HTTP.
	PublicURL string
	// Path is where the face is mounted (default DefaultPath).
	Path string
	// Authenticator validates bearer tokens. Without it (and without
	// UnsafeNoAuth) the face serves stdio only and its HTTP endpoint answers
	// 503.
	Authenticator Authenticator
	// UnsafeNoAuth serves HTTP without authentication: every caller is the
	// StdioPrincipal. For loopback tests only; never in production.
	UnsafeNoAuth bool
	// Metadata is the RFC 9728 document served at MetadataPrefix + Path;
	// build it with auth.Chain.ResourceMetadata(face.Resource()). Its
	// Resource is forced to the canonical resource URL.
	Metadata auth.ResourceMetadata
	// RequiredScopes must all be granted to a caller, else 403
	// insufficient_scope.
	RequiredScopes []string
	// AllowedOrigins lists the origins (scheme://host[:port]) browsers may
	// call from. Requests without Origin and same-origin requests (the
	// PublicURL's origin) are always allowed; any other Origin gets 403.
	AllowedOrigins []string
	// AllowLoopbackOrigins also allows http(s) origins on localhost,
	// 127.0.0.0/8 and [::1] (desktop hosts and inspectors on this machine).
	AllowLoopbackOrigins bool
	// MaxBodyBytes caps request bodies (default DefaultMaxBodyBytes); larger
	// bodies get 413.
	MaxBodyBytes int64
	// Policy, if set, decides per principal and tool which tools are listed
	// and callable (deny hides the tool). Nil allows every tool.
	Policy Decider
	// Sources supply the tools.
	Sources []ToolSource
	// StdioPrincipal is the principal of stdio sessions (default subject
	// "local", issuer "local", method "stdio").
	StdioPrincipal *request.Principal
	// Logger receives the face's logs (default slog.Default()).
	Logger *slog.Logger
	// LegacySessions gives 2025-era hosts an Mcp-Session-Id bound to the
	// principal that initialized it (idle sessions expire after
	// SessionIdleTTL), so that elicitation/create and sampling/createMessage
	// work over streamable HTTP (both go out on the tools/call's own response
	// stream; the host's answer is routed by session and principal); the
	// standalone GET stream is refused (405). Default false: every era is
	// served statelessly (any replica can serve any request); a 2025-era
	// host over HTTP gets a continuation result instead of an exposed
	// agent's elicitation, and is asked a fronted server's questions
	// (Elicit, sampling) on a tools/call's own event stream when it declared
	// them at initialize (HostCapabilities).
	// Sessions live in this process: behind several replicas without sticky
	// routing, keep it off.
	LegacySessions bool
	// TaskListPageSize is the tasks/list page size (default
	// DefaultTaskPageSize).
	TaskListPageSize int
	// SamplingTimeout bounds how long a sampling/createMessage sent to an
	// HTTP host waits for its answer (default DefaultSamplingTimeout).
	SamplingTimeout time.Duration
	// ServerOptions are appended to the mcp-go server options (tests).
	ServerOptions []server.ServerOption
	// Limiter, if set, counts every request whose method LimitedMethods
	// lists against the rate limits, at the front door, before mcp-go or a
	// tool sees it; a refusal is HTTP 429 (503 when the limit store is
	// unavailable) with Retry-After, RateLimit and RateLimit-Policy and a
	// JSON-RPC error body. Stdio is not limited.
	Limiter Limiter
	// LimitedMethods are the methods Limiter counts: exact method names,
	// "prefix/*" for a family, "*" for every request. Notifications and
	// responses are never counted. Default DefaultLimitedMethods.
	LimitedMethods []string
	// OnRequest, if set, is told of every JSON-RPC request (not responses or
	// notifications) the face reads over HTTP, before the limits: its hop
	// (method; for tools/call the tool, its agent and hints) and, for
	// resources/read, the resource URI (caller-chosen: never a metrics
	// label). Metrics and access logs name what was called from it.
	OnRequest func(ctx context.Context, hop request.Hop, resource string)
}

// Face is the MCP server face. It is an http.Handler for the MCP endpoint.
type Face struct {
	cfg      Config
	mcp      *server.MCPServer
	http     *server.StreamableHTTPServer
	resource string
	prmURL   string
	prm      atomic.Pointer[[]byte] // the RFC 9728 document; SetMetadata replaces it
	origins  map[string]bool
	self     string
	log      *slog.Logger
	sess     *sessions
	tasks    *taskStore
	syncMu   sync.Mutex
	toolDefs []byte // the served tool definitions, as last set
	handlers atomic.Pointer[map[string]server.ToolHandlerFunc]
	// defs are the definitions of the tools of the last Sync, by name, for
	// the hops (toolDef).
	defs    atomic.Pointer[map[string]*mcp.Tool]
	resURIs []string
	// templates are the served resource templates (syncTemplates).
	templates atomic.Pointer[[]*mcp.URITemplate]
	prompts   []string
	subs      *subscriptions
	samples   *relay.Relay
	// caps are what stateless hosts declared at initialize (no sessions).
	caps *hostCaps
}

// New builds the face and registers the sources' tools.
func New(cfg Config) (*Face, error) {
	if cfg.Path == "" {
		cfg.Path = DefaultPath
	}
	if !strings.HasPrefix(cfg.Path, "/") {
		return nil, fmt.Errorf("endpoint: path %q must start with /", cfg.Path)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Name == "" {
		cfg.Name = "a2a-mcp-bridge"
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StdioPrincipal == nil {
		cfg.StdioPrincipal = &request.Principal{Subject: "local", Issuer: "local", Method: "stdio"}
	}
	f := &Face{cfg: cfg, log: cfg.Logger, origins: map[string]bool{}, tasks: newTaskStore(time.Now, cfg.TaskListPageSize)}
	if cfg.PublicURL != "" {
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("endpoint: public_url %q must be an absolute http(s) URL", cfg.PublicURL)
		}
		f.self = strings.ToLower(u.Scheme + "://" + u.Host)
		base := strings.TrimRight(cfg.PublicURL, "/")
		f.resource = base + cfg.Path
		f.prmURL = base + MetadataPrefix + cfg.Path
		if err := f.SetMetadata(cfg.Metadata); err != nil {
			return nil, err
		}
	} else if cfg.Authenticator != nil {
		return nil, errors.New("endpoint: public_url is required: it is the token audience and the resource metadata URL")
	}
	for _, o := range cfg.AllowedOrigins {
		f.origins[strings.ToLower(strings.TrimRight(o, "/"))] = true
	}
	if cfg.UnsafeNoAuth {
		f.log.Warn("endpoint: UnsafeNoAuth is set: the MCP endpoint is served without authentication")
	}

	for _, s := range cfg.Sources {
		if rs, ok := s.(ResourceSubscriber); ok {
			if f.subs == nil {
				f.subs = newSubscriptions(f)
			}
			f.subs.sources = append(f.subs.sources, rs)
		}
	}
	opts := []server.ServerOption{
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(f.subs != nil, true),
		server.WithPromptCapabilities(true),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(completer{f}),
		server.WithResourceCompletionProvider(completer{f}),
		server.WithRecovery(),
		server.WithElicitation(),
		server.WithLogging(),
		server.WithToolFilter(f.filter),
		server.WithToolHandlerMiddleware(view.CheckedCall),
	}
	if cfg.Instructions != "" {
		opts = append(opts, server.WithInstructions(cfg.Instructions))
	}
	httpOpts := []server.StreamableHTTPOption{server.WithStateLess(true)}
	hooks := &server.Hooks{}
	f.listHooks(hooks)
	hooks.AddAfterInitialize(declareTasks)
	hooks.AddAfterDiscover(declareTasksExtension)
	if f.subs != nil {
		f.subs.hook(hooks)
	}
	opts = append(opts, server.WithHooks(hooks))
	if cfg.LegacySessions {
		f.sess = newSessions(time.Now)
		hooks.AddAfterInitialize(f.sess.remember)
		httpOpts = []server.StreamableHTTPOption{
			server.WithSessionIdManagerResolver(f.sess),
			server.WithHTTPContextFunc(f.sess.restore),
		}
	}
	if !cfg.LegacySessions {
		f.caps = newHostCaps(time.Now)
		hooks.AddAfterInitialize(f.caps.remember)
	}
	f.samples = relay.New(cfg.SamplingTimeout, f.log, liveSessions(f.sess))
	opts = append(opts, cfg.ServerOptions...)
	f.mcp = server.NewMCPServer(cfg.Name, cfg.Version, opts...)
	f.http = server.NewStreamableHTTPServer(f.mcp, httpOpts...)
	for _, s := range cfg.Sources {
		if n, ok := s.(Notifier); ok {
			n.OnChange(f.Sync)
		}
	}
	f.Sync()
	return f, nil
}

// MCPServer returns the underlying mcp-go server (in-process clients, tests).
func (f *Face) MCPServer() *server.MCPServer { return f.mcp }

// Resource is the canonical resource URL: the audience tokens must carry.
func (f *Face) Resource() string { return f.resource }

// SetMetadata replaces the RFC 9728 document (after a reload of the
// accepted issuers and scopes); its resource stays the face's.
func (f *Face) SetMetadata(md auth.ResourceMetadata) error {
	md.Resource = f.resource
	if md.BearerMethodsSupported == nil {
		md.BearerMethodsSupported = []string{"header"}
	}
	b, err := jsonMarshal(md)
	if err != nil {
		return fmt.Errorf("endpoint: encode resource metadata: %w", err)
	}
	f.prm.Store(&b)
	return nil
}

// ResourceMetadataURL is the URL of the RFC 9728 document.
func (f *Face) ResourceMetadataURL() string { return f.prmURL }

// Sync re-reads every source's tools and resources and replaces the served
// set (hosts get notifications/tools/list_changed).
func (f *Face) Sync() {
	f.syncMu.Lock()
	defer f.syncMu.Unlock()
	var tools []server.ServerTool
	var res []server.ServerResource
	var prompts []server.ServerPrompt
	var templates []server.ServerResourceTemplate
	for _, s := range f.cfg.Sources {
		tools = append(tools, s.Tools()...)
		if rs, ok := s.(ResourceSource); ok {
			res = append(res, rs.Resources()...)
		}
		if ps, ok := s.(PromptSource); ok {
			prompts = append(prompts, ps.Prompts()...)
		}
		if ts, ok := s.(ResourceTemplateSource); ok {
			templates = append(templates, ts.ResourceTemplates()...)
		}
	}
	f.syncPrompts(prompts)
	f.syncTemplates(templates)
	f.syncTools(tools)
	if len(f.resURIs) > 0 {
		f.mcp.DeleteResources(f.resURIs...)
	}
	f.resURIs = f.resURIs[:0]
	for i, r := range res {
		f.resURIs = append(f.resURIs, r.Resource.URI)
		h, uri := r.Handler, r.Resource.URI
		res[i].Handler = func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			if !f.allowResource(ctx, uri, uri) {
				return nil, fmt.Errorf("endpoint: resource %s not found", uri)
			}
			return h(ctx, req)
		}
	}
	if len(res) > 0 {
		f.mcp.AddResources(res...)
	}
}

// syncTools serves tools. The handlers are swapped at once; the tool set
// is replaced (and hosts get notifications/tools/list_changed) only when
// the definitions changed, so a source that reports a change of something
// else (its prompts, a reconnect that found the same tools) sends no
// spurious list change. f.syncMu is held.
func (f *Face) syncTools(tools []server.ServerTool) {
	handlers := make(map[string]server.ToolHandlerFunc, len(tools))
	defs := make([]mcp.Tool, len(tools))
	byName := make(map[string]*mcp.Tool, len(tools))
	for i, t := range tools {
		handlers[t.Tool.Name] = t.Handler
		defs[i] = t.Tool
		byName[t.Tool.Name] = &defs[i]
	}
	f.handlers.Store(&handlers)
	f.defs.Store(&byName)
	b, err := json.Marshal(defs)
	if err == nil && f.toolDefs != nil && bytes.Equal(b, f.toolDefs) {
		return
	}
	f.toolDefs = b
	served := make([]server.ServerTool, len(tools))
	for i, t := range tools {
		served[i] = server.ServerTool{Tool: t.Tool, Handler: f.dispatch(t.Tool.Name)}
	}
	f.mcp.SetTools(served...)
}

// toolDef is the definition of the served tool name, nil if none: the
// last Sync's, else mcp-go's (a tool added to MCPServer directly). mcp-go's
// GetTool copies the whole ServerTool, which the hops of a tools/call (its
// limits and the access log's) made twice per call in the allocation
// profile of the expose path; the definitions are not changed once synced.
func (f *Face) toolDef(name string) *mcp.Tool {
	if d := f.defs.Load(); d != nil {
		if t, ok := (*d)[name]; ok {
			return t
		}
	}
	if st := f.mcp.GetTool(name); st != nil {
		return &st.Tool
	}
	return nil
}

// dispatch is the handler mcp-go holds for a tool: it calls the tool's
// handler of the last Sync.
func (f *Face) dispatch(name string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		h := (*f.handlers.Load())[name]
		if h == nil {
			return mcp.NewToolResultError(fmt.Sprintf("tool %s is not available", name)), nil
		}
		defer settleStdio(ctx)
		return h(ctx, req)
	}
}

// filter is the per-principal tool filter; mcp-go applies it on tools/list
// and on tools/call, so a hidden tool cannot be called either.
func (f *Face) filter(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return nil
	}
	if f.cfg.Policy == nil {
		return tools
	}
	if listing(ctx, len(tools)) {
		// One decision for the listing, whose audit line says tools/list,
		// not one line per tool each saying tools/call.
		lctx, l := policy.WithListing(ctx, string(mcp.MethodToolsList))
		defer l.Audit(ctx)
		ctx = lctx
	}
	// tools is mcp-go's and is not changed; a copy is made at the first
	// tool the policy hides, so the one tool of an allowed tools/call costs
	// no allocation here.
	var out []mcp.Tool
	for i := range tools {
		allow := f.cfg.Policy.Decide(ctx, f.toolHop(p, tools[i].Name, &tools[i])).Allow
		switch {
		case !allow && out == nil:
			out = append(make([]mcp.Tool, 0, len(tools)-1), tools[:i]...)
		case allow && out != nil:
			out = append(out, tools[i])
		}
	}
	if out == nil {
		return tools
	}
	return out
}

// listing reports whether the tool filter, given n tools, is filtering a
// tools/list (mcp-go runs the same filter over the one tool of a
// tools/call). Over HTTP the request's view says; over stdio, where
// mcp-go reads the lines itself, a filter over more than one tool is a
// listing.
func listing(ctx context.Context, n int) bool {
	if m := view.From(ctx); m != nil {
		return m.Method != string(mcp.MethodToolsCall)
	}
	return n > 1
}

// Mount registers the MCP endpoint and its resource metadata document on mux.
func (f *Face) Mount(mux *http.ServeMux) {
	mux.Handle(f.cfg.Path, f)
	if f.prm.Load() != nil {
		mux.HandleFunc(MetadataPrefix+f.cfg.Path, f.ServeMetadata)
	}
}

// ServeMetadata writes the RFC 9728 protected resource metadata document.
func (f *Face) ServeMetadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !f.originAllowed(r) {
		writeJSONError(w, http.StatusForbidden, "forbidden", "origin not allowed")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodGet {
		_, _ = w.Write(*f.prm.Load())
	}
}

// ServeHTTP serves the MCP endpoint: Origin check, body cap,
// authentication, scopes, then mcp-go with the principal in the context.
func (f *Face) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if dnsRebinding(r) {
		// mcp-go applies the same rule, but the task methods are served
		// before mcp-go sees the request.
		writeJSONError(w, http.StatusForbidden, "forbidden", "invalid Host header for a loopback listener")
		return
	}
	if !f.originAllowed(r) {
		f.log.Warn("endpoint: refused a request from a foreign origin", "origin", relay.SanitizeLog(r.Header.Get("Origin")))
		writeJSONError(w, http.StatusForbidden, "forbidden", "origin not allowed")
		return
	}
	if r.ContentLength > f.cfg.MaxBodyBytes {
		writeJSONError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body too large")
		return
	}
	var p *request.Principal
	if f.cfg.Authenticator == nil && !f.cfg.UnsafeNoAuth {
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the MCP endpoint has no authenticator configured")
		return
	}
	if f.cfg.UnsafeNoAuth && f.cfg.Authenticator == nil {
		p = f.cfg.StdioPrincipal
	} else {
		var err error
		p, err = f.cfg.Authenticator.Authenticate(r)
		if err == nil && p == nil {
			err = errors.New("endpoint: authenticator returned no principal")
		}
		if err == nil {
			err = auth.RequireScopes(p, f.cfg.RequiredScopes...)
		}
		if err != nil {
			status := auth.SetHeaders(w.Header(), "", err, f.prmURL)
			code, desc := "invalid_token", "authentication required"
			var ae *auth.Error
			if errors.As(err, &ae) {
				if ae.Code != "" {
					code = ae.Code
				}
				desc = ae.Message
			}
			writeJSONError(w, status, code, desc)
			return
		}
	}
	// The request's context, built once: the principal, then the view.
	ctx := request.WithPrincipal(r.Context(), p)
	var sampler *relay.Sampler
	var direct *relay.Stream
	var stateless bool // a session-less tools/call whose response can stream
	var vm *view.Message
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, f.cfg.MaxBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				writeJSONError(w, http.StatusRequestEntityTooLarge, "request_too_large", "request body too large")
				return
			}
			writeJSONError(w, http.StatusBadRequest, "invalid_request", "could not read the request body")
			return
		}
		if len(body) > 0 || r.Method == http.MethodPost {
			m, verr := view.Parse(body)
			if verr != nil {
				view.WriteError(w, nil, verr)
				return
			}
			vm = m
		}
	}
	if vm != nil {
		if id, ok := relay.ReplyID(vm); ok {
			// A host's answer to a sampling request the face sent on a
			// tools/call stream: routed here, never to mcp-go.
			rep := view.Reply{ID: vm.ID}
			if err := json.Unmarshal(body, &rep); err != nil || !f.samples.Deliver(p.Key(), r.Header.Get(server.HeaderKeySessionID), id, rep) {
				// Unknown here (answered, expired, another caller's, or sent
				// by another replica: pending requests live in the process
				// that sent them), and nothing changes.
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Cache-Control", "no-store")
				w.WriteHeader(http.StatusNotFound)
				_, _ = w.Write(rpcError(vm.ID, mcp.INVALID_REQUEST, "no pending request with this id for this caller on this replica (an answer goes to the replica that asked)"))
				return
			}
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if vm.Method == string(mcp.MethodNotificationCancelled) && (f.sess == nil || r.Header.Get("Mcp-Session-Id") == "") {
			// mcp-go keys in-flight requests of session-less callers by the
			// request id alone, so this notification could cancel another
			// caller's call with the same id. Session-less callers cancel by
			// closing their stream, which the spec makes the cancel for
			// streamable HTTP from 2026-07-28 on.
			w.WriteHeader(http.StatusAccepted)
			return
		}
		ctx = view.With(ctx, vm)
		// The request's hop, for the access log and the limits: built once.
		var hop request.Hop
		var hopped bool
		if f.cfg.OnRequest != nil && !vm.Response && vm.ID != nil {
			var uri string
			if vm.Method == string(mcp.MethodResourcesRead) {
				uri = vm.Params.URI
			}
			hop, hopped = f.hop(p, vm, clientIP(r)), true
			f.cfg.OnRequest(ctx, hop, uri)
		}
		if f.limited(vm) {
			if !hopped {
				hop = f.hop(p, vm, clientIP(r))
			}
			if res, err := f.cfg.Limiter.Allow(ctx, hop); err != nil {
				f.writeLimited(w, vm, res, err)
				return
			}
		}
		if listensForTasks(vm) && r.Method == http.MethodPost {
			f.serveTaskListen(w, r, p, vm)
			return
		}
		resp, pass, handled := f.interceptTask(ctx, vm, body)
		if handled {
			if resp != nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(resp)
			}
			return
		}
		body = pass
		if fl, ok := w.(http.Flusher); ok && r.Method == http.MethodPost && vm.Method == string(mcp.MethodToolsCall) {
			ps := relay.NewStream(w, fl)
			defer ps.Finish()
			w = ps
			ps.Sampler = relay.Sampler{Relay: f.samples, Stream: ps, Principal: p, Session: r.Header.Get(server.HeaderKeySessionID)}
			sampler, direct = &ps.Sampler, ps
			stateless = ps.Sampler.Session == "" && acceptsEventStream(r)
		}
	}
	if f.sess != nil && r.Method == http.MethodGet {
		// The standalone stream would compete with POST streams for a
		// session's notifications; hosts fall back to POST streams on 405.
		w.Header().Set("Allow", "POST, DELETE")
		writeJSONError(w, http.StatusMethodNotAllowed, "method_not_allowed", "no standalone event stream; use POST")
		return
	}
	if direct != nil {
		ctx = withDirect(ctx, direct)
	}
	if stateless {
		ctx = context.WithValue(ctx, statelessAskKey{}, sampler)
		if f.caps != nil {
			if c, ok := f.caps.lookup(p.Key()); ok {
				ctx = context.WithValue(ctx, hostCapsKey{}, c)
			}
		}
	}
	if sampler != nil {
		ctx = server.WithInProcessSamplingHandler(ctx, sampler)
	} else {
		ctx = context.WithValue(ctx, noSamplingKey{}, true)
	}
	if vm != nil && r.Method == http.MethodPost && f.sess == nil && handleBuffered {
		// A POST whose body the face has read goes to mcp-go's entry point
		// for buffered bodies (Handle), which runs the same handlePost as
		// ServeHTTP without reading the body a second time (ServeHTTP's
		// io.ReadAll of a reader over the face's copy) and without a copy
		// of the request to carry ctx: four allocations per call in the
		// expose path's allocation profile (BenchmarkFaceToolsCall). What
		// ServeHTTP does before handlePost is the face's already: its
		// DNS-rebinding rule refuses every request mcp-go's would
		// (TestRebindingAtLeastMCPGo), and the face configures neither
		// CORS nor mcp-go's protected resource document. Not with
		// LegacySessions: Handle hands mcp-go's session hooks a
		// synthesized request.
		hr := &server.HTTPRequest{Method: r.Method, URL: r.URL, Header: r.Header, Body: body, Context: ctx}
		if ps, ok := w.(*relay.Stream); ok {
			f.http.Handle(ps, hr)
		} else {
			f.http.Handle(newHTTPWriter(w), hr)
		}
		return
	}
	if vm != nil {
		r.ContentLength = int64(len(body))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	f.http.ServeHTTP(w, r.WithContext(ctx))
}

// handleBuffered sends the POSTs the face has read to mcp-go's Handle
// instead of ServeHTTP: 280 allocations per expose call against 288 in
// make bench's translate scenario. Both answer alike on the wire (bridge
// serve under curl and strace: the same status and headers, Content-Length,
// one write per answer, the connection kept), and TestHandleSameAsServeHTTP
// holds them to the same status, header, body and flushing. It was once
// switched off for 8-13% less closed-loop throughput and twice wrk's p99;
// that was the bench's order: the expose row ran right after the direct
// run, whose retained tasks cost the agent 90-113 µs of CPU per call
// against 63-93, whichever binary was in that slot (with the slots
// swapped, Handle came out 11% faster with half the p99). With the agent
// reset before every run (bench/run.sh), three runs gave Handle 0.93, 0.99
// and 1.08 of ServeHTTP's req/s, wrk p99 37.1/27.6, 32.5/35.6 and
// 77.1/113.9 ms: no difference above the machine's noise.
var handleBuffered = true

// httpWriter is w as mcp-go's Handle takes it (mcp-go's own adapter, which
// ServeHTTP builds, is unexported).
type httpWriter struct {
	http.ResponseWriter
	fl http.Flusher
}

var _ server.HTTPResponseWriter = (*httpWriter)(nil)

func newHTTPWriter(w http.ResponseWriter) *httpWriter {
	fl, _ := w.(http.Flusher)
	return &httpWriter{ResponseWriter: w, fl: fl}
}

// Flush implements server.HTTPResponseWriter.
func (w *httpWriter) Flush() {
	if w.fl != nil {
		w.fl.Flush()
	}
}

// CanStream implements server.HTTPResponseWriter: as mcp-go's adapter, a
// writer streams when it flushes.
func (w *httpWriter) CanStream() bool { return w.fl != nil }

// SetWriteDeadline is mcp-go's adapter's, for its resumable streams.
func (w *httpWriter) SetWriteDeadline(t time.Time) error {
	return http.NewResponseController(w.ResponseWriter).SetWriteDeadline(t)
}

type noSamplingKey struct{}

// acceptsEventStream reports whether the request's Accept names
// text/event-stream (the response may then stream server requests).
func acceptsEventStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
				return true
			}
		}
	}
	return false
}

// SamplingAvailable reports whether a sampling/createMessage sent to the
// caller of the request in ctx can reach it. Over streamable HTTP it can
// during a tools/call whose response can stream: the face writes it on that
// call's own response stream (mcp-go would send it only on the standalone
// GET stream, which the face does not serve to sessions) and waits a
// bounded time for the host's answer; other HTTP requests cannot. Over
// stdio it can.
func SamplingAvailable(ctx context.Context) bool {
	no, _ := ctx.Value(noSamplingKey{}).(bool)
	return !no
}

// originAllowed implements the MCP rule: an Origin header that is present
// and not allowed is refused.
func (f *Face) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	lo := strings.ToLower(strings.TrimRight(o, "/"))
	if lo == f.self || f.origins[lo] {
		return true
	}
	if f.cfg.AllowLoopbackOrigins {
		u, err := url.Parse(lo)
		if err == nil && (u.Scheme == "http" || u.Scheme == "https") && netguard.IsLoopbackHost(u.Hostname()) && u.Path == "" {
			return true
		}
	}
	return false
}

// ServeStdio serves the face over stdio (bridge mcp) until ctx ends or in
// reaches EOF. Every request runs as Config.StdioPrincipal.
func (f *Face) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	p := f.cfg.StdioPrincipal
	s := server.NewStdioServer(f.mcp)
	lw := &lockedWriter{w: out}
	direct := &stdioOut{w: lw, sink: out}
	in = f.stdioTasks(withDirect(request.WithPrincipal(ctx, p), direct), in, lw)
	out = lw
	s.SetContextFunc(func(ctx context.Context) context.Context { return withDirect(request.WithPrincipal(ctx, p), direct) })
	s.SetErrorLogger(slog.NewLogLogger(f.log.Handler(), slog.LevelWarn))
	err := s.Listen(ctx, in, out)
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, io.EOF)) {
		return nil
	}
	return err
}

// declareTasks declares the 2025-11-25 tasks capability: the face serves
// tasks/list, tasks/cancel and task-augmented tools/call from its own
// principal-keyed store (interceptTask), never from mcp-go's.
//
// It also keeps out what the negotiated revision does not know: tasks came
// with 2025-11-25, and no revision before it has a server elicitation or
// sampling capability (those are the client's to declare), so a 2025-06-18
// client is declared neither.
func declareTasks(_ context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
	if res == nil {
		return
	}
	if res.ProtocolVersion < mcp.ProtocolVersion20251125 {
		res.Capabilities.Tasks, res.Capabilities.Elicitation, res.Capabilities.Sampling = nil, nil, nil
		return
	}
	res.Capabilities.Tasks = &mcp.TasksCapability{
		List:   &struct{}{},
		Cancel: &struct{}{},
		Requests: &mcp.TaskRequestsCapability{Tools: &struct {
			Call *struct{} `json:"call,omitempty"`
		}{Call: &struct{}{}}},
	}
}

// dnsRebinding reports a request that reached a loopback listener under a
// name that is not loopback (a DNS rebinding attack from a browser).
func dnsRebinding(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || la == nil {
		return false
	}
	if !netguard.IsLoopbackAddr(la) {
		return false
	}
	return !netguard.IsLoopbackHost(r.Host)
}

// syncPrompts replaces the served prompts; f.syncMu is held.
func (f *Face) syncPrompts(prompts []server.ServerPrompt) {
	if len(f.prompts) > 0 {
		f.mcp.DeletePrompts(f.prompts...)
	}
	f.prompts = f.prompts[:0]
	for i, p := range prompts {
		f.prompts = append(f.prompts, p.Prompt.Name)
		h := p.Handler
		prompts[i].Handler = func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if !f.allowPrompt(ctx, req.Params.Name) {
				return nil, fmt.Errorf("endpoint: prompt %s not found", req.Params.Name)
			}
			return h(ctx, req)
		}
	}
	if len(prompts) > 0 {
		f.mcp.AddPrompts(prompts...)
	}
}

// syncTemplates replaces the served resource templates, each read filtered
// by the policy under its URI template; f.syncMu is held.
func (f *Face) syncTemplates(templates []server.ServerResourceTemplate) {
	var served []*mcp.URITemplate
	for i, t := range templates {
		h := t.Handler
		raw := ""
		if t.Template.URITemplate != nil && t.Template.URITemplate.Template != nil {
			raw = t.Template.URITemplate.Raw()
			served = append(served, t.Template.URITemplate)
		}
		templates[i].Handler = func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			if !f.allowResource(ctx, raw, req.Params.URI) {
				return nil, fmt.Errorf("endpoint: resource %s not found", req.Params.URI)
			}
			return h(ctx, req)
		}
	}
	f.templates.Store(&served)
	f.mcp.SetResourceTemplates(templates...)
}

// completer answers completion/complete from the first source that
// completes the prompt or template (server.PromptCompletionProvider,
// server.ResourceCompletionProvider); none gives an empty completion.
type completer struct{ f *Face }

// CompletePromptArgument implements server.PromptCompletionProvider.
func (c completer) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if !c.f.allowPrompt(ctx, prompt) {
		return nil, fmt.Errorf("endpoint: prompt %s not found", prompt)
	}
	var last error
	for _, s := range c.f.cfg.Sources {
		if p, ok := s.(server.PromptCompletionProvider); ok {
			res, err := p.CompletePromptArgument(ctx, prompt, arg, cc)
			if err == nil && res != nil {
				return res, nil
			}
			last = err
		}
	}
	if last != nil {
		return nil, last
	}
	return &mcp.Completion{Values: []string{}}, nil
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if !c.f.allowResource(ctx, uri, uri) {
		return nil, fmt.Errorf("endpoint: resource %s not found", uri)
	}
	var last error
	for _, s := range c.f.cfg.Sources {
		if p, ok := s.(server.ResourceCompletionProvider); ok {
			res, err := p.CompleteResourceArgument(ctx, uri, arg, cc)
			if err == nil && res != nil {
				return res, nil
			}
			last = err
		}
	}
	if last != nil {
		return nil, last
	}
	return &mcp.Completion{Values: []string{}}, nil
}

// Counted reports whether the request in ctx came through the face's front
// door, which counted it against the limits (Config.Limiter) when its
// method is limited; a stdio request did not.
func Counted(ctx context.Context) bool { return view.From(ctx) != nil }

// DefaultSamplingTimeout bounds how long a sampling/createMessage relayed to
// an HTTP host waits for the host's answer when Config.SamplingTimeout is
// zero.
const DefaultSamplingTimeout = relay.DefaultTimeout

// ShuttingDownMessage is the JSON-RPC error message of a request that
// arrives over stdio once the shutdown has begun.
const ShuttingDownMessage = stdio.ShuttingDownMessage

// ServeStdioGracefully serves the face over stdio like ServeStdio, and
// shuts down gracefully when ctx ends: requests that arrive from then on
// are answered with a JSON-RPC error (ShuttingDownMessage), the requests in
// flight may finish until grace has passed, then they are cancelled (tool
// calls cancel their upstream work) and it returns. Responses, and
// notifications such as notifications/cancelled, still pass while it
// drains.
func (f *Face) ServeStdioGracefully(ctx context.Context, grace time.Duration, in io.Reader, out io.Writer) error {
	return stdio.ServeGracefully(ctx, grace, f.log, in, out, f.ServeStdio)
}
