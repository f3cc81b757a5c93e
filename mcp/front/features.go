package front

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// PromptUpstream is implemented by upstreams that serve prompts
// (*connector.Conn); the source serves them prefixed like tools.
type PromptUpstream interface {
	Prompts(ctx context.Context) ([]mcp.Prompt, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error)
}

// ResourceUpstream is implemented by upstreams that serve resources
// (*connector.Conn); the source serves them under their own URIs.
type ResourceUpstream interface {
	Resources(ctx context.Context) ([]mcp.Resource, error)
	ResourceTemplates(ctx context.Context) ([]mcp.ResourceTemplate, error)
	ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error)
}

// CompleteUpstream is implemented by upstreams that complete prompt and
// resource template arguments (*connector.Conn).
type CompleteUpstream interface {
	Complete(ctx context.Context, ref any, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error)
}

// RelayUpstream is implemented by upstreams that relay a call's log
// messages and sampling requests (*connector.Conn).
type RelayUpstream interface {
	CallToolWith(ctx context.Context, name string, args json.RawMessage, h connector.CallHandlers) (json.RawMessage, error)
}

// SubscribeUpstream is implemented by upstreams that notify resource
// updates (*connector.Conn).
type SubscribeUpstream interface {
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
	OnResourceUpdated(f func(uri string))
}

// ListUpstream is implemented by upstreams that say when their prompts or
// resources changed (*connector.Conn).
type ListUpstream interface {
	OnListChanged(f func())
}

var (
	_ ListUpstream                = (*connector.Conn)(nil)
	_ SubscribeUpstream           = (*connector.Conn)(nil)
	_ endpoint.ResourceSubscriber = (*Source)(nil)
	_ PromptUpstream              = (*connector.Conn)(nil)
	_ ResourceUpstream            = (*connector.Conn)(nil)
	_ CompleteUpstream            = (*connector.Conn)(nil)
	_ RelayUpstream               = (*connector.Conn)(nil)

	_ endpoint.PromptSource           = (*Source)(nil)
	_ endpoint.ResourceSource         = (*Source)(nil)
	_ endpoint.ResourceTemplateSource = (*Source)(nil)
	_ endpoint.ResourceHopDescriber   = (*Source)(nil)
	_ endpoint.PromptHopDescriber     = (*Source)(nil)
)

// extras are the prompts, resources and templates served, rebuilt from the
// servers' lists.
type extras struct {
	prompts   []server.ServerPrompt
	promptTo  map[string]promptRoute // public name → route
	resources []server.ServerResource
	templates []server.ServerResourceTemplate
	uriTo     map[string]*entry // resource URI or template URI → server
	tmplTo    []tmplRoute       // templates in serving order
	sig       string
}

type tmplRoute struct {
	t     *mcp.URITemplate
	entry *entry
}

type promptRoute struct {
	entry    *entry
	original string
}

// refreshExtras re-reads every server's prompts, resources and templates; a
// server that fails contributes none (its error is logged). It reports
// whether the served set changed.
func (s *Source) refreshExtras(ctx context.Context) bool {
	s.extrasMu.Lock()
	defer s.extrasMu.Unlock()
	x := extras{promptTo: map[string]promptRoute{}, uriTo: map[string]*entry{}}
	var sig strings.Builder
	for _, e := range s.entries() {
		if pu, ok := e.up.(PromptUpstream); ok {
			ps, err := pu.Prompts(ctx)
			if err != nil {
				s.log.Warn("front: reading a server's prompts failed", "server", e.name, "error", err.Error())
			}
			for _, p := range ps {
				name, collided := s.pnames.name(key{e.name, p.Name}, e.prefix)
				if collided {
					s.log.Warn("front: prompt name collision; served with a suffix", "server", e.name, "prompt", p.Name, "name", name)
				}
				x.promptTo[name] = promptRoute{entry: e, original: p.Name}
				original := p.Name
				p.Name = name
				x.prompts = append(x.prompts, server.ServerPrompt{Prompt: p, Handler: s.promptHandler(e, original)})
				fmt.Fprintf(&sig, "p\x00%s\x00%s\x00", e.name, mustJSON(p))
			}
		}
		ru, ok := e.up.(ResourceUpstream)
		if !ok {
			continue
		}
		rs, err := ru.Resources(ctx)
		if err != nil {
			s.log.Warn("front: reading a server's resources failed", "server", e.name, "error", err.Error())
		}
		for _, r := range rs {
			if _, taken := x.uriTo[r.URI]; taken {
				s.log.Warn("front: resource URI served by an earlier server; skipped", "server", e.name, "uri", r.URI)
				continue
			}
			x.uriTo[r.URI] = e
			x.resources = append(x.resources, server.ServerResource{Resource: r, Handler: s.readHandler(e)})
			fmt.Fprintf(&sig, "r\x00%s\x00%s\x00", e.name, mustJSON(r))
		}
		ts, err := ru.ResourceTemplates(ctx)
		if err != nil {
			s.log.Warn("front: reading a server's resource templates failed", "server", e.name, "error", err.Error())
		}
		for _, t := range ts {
			if t.URITemplate == nil || t.URITemplate.Template == nil {
				continue
			}
			raw := t.URITemplate.Raw()
			if _, taken := x.uriTo[raw]; taken {
				s.log.Warn("front: resource template served by an earlier server; skipped", "server", e.name, "uriTemplate", raw)
				continue
			}
			x.uriTo[raw] = e
			x.tmplTo = append(x.tmplTo, tmplRoute{t: t.URITemplate, entry: e})
			x.templates = append(x.templates, server.ServerResourceTemplate{Template: t, Handler: server.ResourceTemplateHandlerFunc(s.readHandler(e))})
			fmt.Fprintf(&sig, "t\x00%s\x00%s\x00", e.name, mustJSON(t))
		}
	}
	x.sig = sig.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := s.extras.sig != x.sig
	s.extras = x
	return changed
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Prompts implements endpoint.PromptSource: every server's prompts, prefixed
// like its tools.
func (s *Source) Prompts() []server.ServerPrompt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]server.ServerPrompt(nil), s.extras.prompts...)
}

// Resources implements endpoint.ResourceSource: every server's resources under
// their own URIs (the first server listing a URI serves it).
func (s *Source) Resources() []server.ServerResource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]server.ServerResource(nil), s.extras.resources...)
}

// ResourceTemplates implements endpoint.ResourceTemplateSource.
func (s *Source) ResourceTemplates() []server.ServerResourceTemplate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]server.ServerResourceTemplate(nil), s.extras.templates...)
}

// ResourceHop implements endpoint.ResourceHopDescriber for a served resource
// URI or template.
func (s *Source) ResourceHop(uri string) (request.Hop, bool) {
	s.mu.Lock()
	e, ok := s.extras.uriTo[uri]
	s.mu.Unlock()
	if !ok {
		return request.Hop{}, false
	}
	return request.Hop{Face: request.FaceMCP, Direction: request.DirFrontMCP, Agent: e.name, Resource: uri, Method: "resources/read"}, true
}

// PromptHop implements endpoint.PromptHopDescriber for a served prompt name:
// its server and its own name there.
func (s *Source) PromptHop(name string) (request.Hop, bool) {
	s.mu.Lock()
	r, ok := s.extras.promptTo[name]
	s.mu.Unlock()
	if !ok {
		return request.Hop{}, false
	}
	return request.Hop{Face: request.FaceMCP, Direction: request.DirFrontMCP, Agent: r.entry.name, Prompt: r.original, Method: "prompts/get"}, true
}

// object is what a prompts/get or resources/read hop is about: the
// prompt's own name or the resource URI.
type object struct{ prompt, resource string }

// checkHop applies the Checker to a prompts/get or resources/read of e.
func (s *Source) checkHop(ctx context.Context, e *entry, method string, o object) error {
	h := request.Hop{Face: request.FaceMCP, Direction: request.DirFrontMCP, Agent: e.name, Method: method, Prompt: o.prompt, Resource: o.resource, Principal: request.PrincipalFrom(ctx)}
	if h.Principal == nil {
		return errors.New("no authenticated caller")
	}
	if s.check == nil {
		return nil
	}
	if err := s.check.Check(ctx, h); err != nil {
		s.log.Info("front: request refused", "who", h.Principal.String(), "server", e.name, "method", method, "reason", err.Error())
		return fmt.Errorf("refused: %s", refusal(err))
	}
	return nil
}

// promptHandler gets original from e after the hop check.
func (s *Source) promptHandler(e *entry, original string) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if err := s.checkHop(ctx, e, "prompts/get", object{prompt: original}); err != nil {
			return nil, fmt.Errorf("%s: %w", req.Params.Name, err)
		}
		pu := e.up.(PromptUpstream)
		uctx, stop := detach(ctx)
		defer stop()
		res, err := pu.GetPrompt(uctx, original, req.Params.Arguments)
		if err != nil {
			s.log.Warn("front: upstream prompts/get failed", "server", e.name, "prompt", original, "error", err.Error())
			return nil, serverFailure(e.name, err)
		}
		res.Meta = nil
		return res, nil
	}
}

// readHandler reads the requested URI from e after the hop check.
func (s *Source) readHandler(e *entry) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		if err := s.checkHop(ctx, e, "resources/read", object{resource: req.Params.URI}); err != nil {
			return nil, fmt.Errorf("%s: %w", req.Params.URI, err)
		}
		ru := e.up.(ResourceUpstream)
		uctx, stop := detach(ctx)
		defer stop()
		res, err := ru.ReadResource(uctx, req.Params.URI)
		if err != nil {
			s.log.Warn("front: upstream resources/read failed", "server", e.name, "error", err.Error())
			return nil, serverFailure(e.name, err)
		}
		return res.Contents, nil
	}
}

// CompletePromptArgument implements server.PromptCompletionProvider for
// served prompts: the argument is completed by the prompt's server.
func (s *Source) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	s.mu.Lock()
	r, ok := s.extras.promptTo[prompt]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("front: unknown prompt %q", prompt)
	}
	cu, ok := r.entry.up.(CompleteUpstream)
	if !ok {
		return &mcp.Completion{Values: []string{}}, nil
	}
	if err := s.checkHop(ctx, r.entry, "prompts/get", object{prompt: r.original}); err != nil {
		return nil, err
	}
	uctx, stop := detach(ctx)
	defer stop()
	return cu.Complete(uctx, mcp.PromptReference{Type: "ref/prompt", Name: r.original}, arg, cctx)
}

// CompleteResourceArgument implements server.ResourceCompletionProvider for
// served resource templates.
func (s *Source) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cctx mcp.CompleteContext) (*mcp.Completion, error) {
	s.mu.Lock()
	e, ok := s.extras.uriTo[uri]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("front: unknown resource template %q", uri)
	}
	cu, ok := e.up.(CompleteUpstream)
	if !ok {
		return &mcp.Completion{Values: []string{}}, nil
	}
	if err := s.checkHop(ctx, e, "resources/read", object{resource: uri}); err != nil {
		return nil, err
	}
	uctx, stop := detach(ctx)
	defer stop()
	return cu.Complete(uctx, mcp.ResourceReference{Type: "ref/resource", URI: uri}, arg, cctx)
}

// withLog sets h's log relay when the caller wants log messages: the
// request's level from 2026-07-28 on (none: no relay), else the level the
// caller's session set.
func withLog(ctx context.Context, log connector.LogFunc, h connector.CallHandlers) connector.CallHandlers {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if info.LogLevel == "" {
			return h
		}
		h.Log, h.LogLevel = log, string(info.LogLevel)
		return h
	}
	if ls, ok := server.ClientSessionFromContext(ctx).(server.SessionWithLogging); ok && ls != nil {
		h.Log, h.LogLevel = log, string(ls.GetLogLevel())
	}
	return h
}

// route returns the server of a served resource URI, or of the first
// served template the URI matches.
func (s *Source) route(uri string) (*entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.extras.uriTo[uri]; ok {
		return e, true
	}
	for _, t := range s.extras.tmplTo {
		if t.t.Regexp().MatchString(uri) {
			return t.entry, true
		}
	}
	return nil, false
}

// SubscribeResource implements endpoint.ResourceSubscriber: the URI's server is
// asked for updates after the hop check (Method "resources/read").
func (s *Source) SubscribeResource(ctx context.Context, uri string) error {
	e, ok := s.route(uri)
	if !ok {
		return fmt.Errorf("front: resource %q is not served", uri)
	}
	su, ok := e.up.(SubscribeUpstream)
	if !ok {
		return fmt.Errorf("front: the %s server does not notify resource updates", e.name)
	}
	if err := s.checkHop(ctx, e, "resources/read", object{resource: uri}); err != nil {
		return fmt.Errorf("front: %s: %w", uri, err)
	}
	uctx, stop := detach(ctx)
	defer stop()
	return su.SubscribeResource(uctx, uri)
}

// UnsubscribeResource implements endpoint.ResourceSubscriber.
func (s *Source) UnsubscribeResource(ctx context.Context, uri string) error {
	e, ok := s.route(uri)
	if !ok {
		return nil
	}
	su, ok := e.up.(SubscribeUpstream)
	if !ok {
		return nil
	}
	uctx, stop := detach(ctx)
	defer stop()
	return su.UnsubscribeResource(uctx, uri)
}

// OnResourceUpdated implements endpoint.ResourceSubscriber: fn receives the URI
// of each update a server sent about a URI it serves (an update about
// another server's URI is dropped).
func (s *Source) OnResourceUpdated(fn func(uri string)) {
	s.mu.Lock()
	s.resUpdated = append(s.resUpdated, fn)
	s.mu.Unlock()
}

// resourceUpdated relays an update from e.
func (s *Source) resourceUpdated(e *entry, uri string) {
	if owner, ok := s.route(uri); !ok || owner != e {
		s.log.Debug("front: dropped an update about a resource the server does not serve", "server", e.name)
		return
	}
	s.mu.Lock()
	ls := append([]func(string){}, s.resUpdated...)
	s.mu.Unlock()
	for _, f := range ls {
		f(uri)
	}
}

// extrasChanged re-reads prompts, resources and templates after a server
// said they changed, and tells listeners when the served set did.
func (s *Source) extrasChanged() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.refreshExtras(ctx) {
		s.notify()
	}
}

// serverFailure is the protocol error of a prompts/get or resources/read
// that failed on the server's side of the hop: what the caller may know,
// never the bridge's side (see callFailure).
func serverFailure(server string, err error) error {
	var se *connector.ServerError
	switch {
	case connector.Unreachable(err):
		return fmt.Errorf("the %s server is unavailable: it cannot be reached; retry later", server)
	case errors.As(err, &se):
		return fmt.Errorf("the %s server answered: %s", server, clean(se.Message, 500))
	}
	return fmt.Errorf("the %s server failed", server)
}
