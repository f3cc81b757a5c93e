package expose

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/v03"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/mcp/elicitation"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// Config configures AgentTools.
type Config struct {
	// Agents to expose. Required.
	Agents []AgentConfig
	// HTTPClient fetches cards and calls the agents: pass netguard's client,
	// since cards name interface URLs the operator did not configure. Its
	// Timeout bounds card fetches and CancelUpstream; an agent call is
	// bounded by its AgentConfig.Timeout instead, streams included. Its
	// MaxBodyBytes must allow whole streams (the a2a client caps each
	// response and event itself). Required.
	HTTPClient *http.Client
	// ToolNameSeparator joins an alias and a skill id in a per-skill tool's
	// name: 1 to MaxSeparator characters of [A-Za-z0-9_-] (default
	// DefaultToolNameSeparator, "_").
	ToolNameSeparator string
	// MaxDescription caps tool descriptions (default DefaultMaxDescription).
	MaxDescription int
	// CardTTLMin and CardTTLMax clamp a card's Cache-Control max-age: how
	// long it is used before it is fetched again (If-None-Match) and
	// re-verified (defaults MinCardTTL and MaxCardTTL).
	CardTTLMin, CardTTLMax time.Duration
	// StateKey is the 32-byte HMAC key of the continuation state handed to
	// hosts of MCP 2026-07-28 (multi round-trip elicitation). Default: a
	// random key (state then does not survive a restart or cross replicas).
	StateKey []byte
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger (default slog.Default()).
	Logger *slog.Logger
}

// AgentTools is the tool source for A2A agents. Start (or Refresh) loads the
// cards; Run keeps them fresh.
type AgentTools struct {
	cfg    Config
	calls  *http.Client // cfg.HTTPClient without its overall Timeout, for agent calls
	log    *slog.Logger
	owners *owners
	key    []byte

	mu       sync.RWMutex
	agents   []*agent
	byTool   map[string]toolRef
	names    *namer
	onChange []func()
	asking   *elicitation.Turns
}

type toolRef struct {
	agent *agent
	skill string
}

// agent is the run-time state of one configured agent.
type agent struct {
	cfg      AgentConfig
	toolName string
	hosts    map[string]bool // hosts the credentials may go to (lower-case)

	fetchMu sync.Mutex // one card fetch at a time

	mu        sync.RWMutex
	card      *a2a.AgentCard
	raw       []byte
	status    card.Status
	client    *client.Client
	legacy    bool // the card is of A2A 0.3, which has no ListTasks
	etag      string
	expires   time.Time
	lastError string
	lastErr   error
	checked   time.Time
	reachable bool              // the last card fetch got an answer
	refused   bool              // the last card received failed verification
	skills    map[string]string // skill id -> tool name
}

// New validates cfg and returns the source with no card loaded yet.
func New(cfg Config) (*AgentTools, error) {
	if err := Validate(cfg.Agents); err != nil {
		return nil, fmt.Errorf("expose: %w", err)
	}
	if cfg.HTTPClient == nil {
		return nil, errors.New("expose: an HTTP client is required (pass netguard's client)")
	}
	if cfg.ToolNameSeparator == "" {
		cfg.ToolNameSeparator = DefaultToolNameSeparator
	} else if !ValidSeparator(cfg.ToolNameSeparator) {
		return nil, fmt.Errorf("expose: tool name separator %q: use 1 to %d characters of [A-Za-z0-9_-]", cfg.ToolNameSeparator, MaxSeparator)
	}
	if cfg.MaxDescription <= 0 {
		cfg.MaxDescription = DefaultMaxDescription
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CardTTLMin <= 0 {
		cfg.CardTTLMin = MinCardTTL
	}
	if cfg.CardTTLMax <= 0 {
		cfg.CardTTLMax = MaxCardTTL
	}
	cfg.CardTTLMax = max(cfg.CardTTLMax, cfg.CardTTLMin)
	key := cfg.StateKey
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	} else if len(key) < 32 {
		return nil, errors.New("expose: state key must be at least 32 bytes")
	}
	// Every agent call is bounded by a deadline of its own (AgentConfig.Timeout,
	// DefaultCancelTimeout, the client's Timeout for CancelUpstream), so the
	// client's overall Timeout is left to card fetches: with it, http.Client
	// wraps each request to a transport it does not know (netguard's, traced)
	// in a timer, a channel, a context and a goroutine (setRequestCancel: 4%
	// of the expose path's CPU and 10 allocations per call in the bench's
	// profile of bridge serve).
	calls := *cfg.HTTPClient
	calls.Timeout = 0
	t := &AgentTools{cfg: cfg, calls: &calls, log: cfg.Logger, key: key, owners: newOwners(cfg.Now), byTool: map[string]toolRef{}, names: newNamer(), asking: elicitation.NewTurns()}
	for _, ac := range cfg.Agents {
		a := t.newAgent(ac)
		t.agents = append(t.agents, a)
		t.byTool[a.toolName] = toolRef{agent: a}
	}
	return t, nil
}

// newAgent is the run-time state of ac, its tool name assigned (t.mu held
// or t not shared yet).
func (t *AgentTools) newAgent(ac AgentConfig) *agent {
	ac = t.newAgentConfig(ac)
	u, _ := url.Parse(ac.CardURL)
	a := &agent{cfg: ac, hosts: map[string]bool{strings.ToLower(u.Host): true}, skills: map[string]string{}}
	for _, h := range ac.CredentialHosts {
		a.hosts[strings.ToLower(h)] = true
	}
	a.toolName = t.names.name("agent\x00"+ac.Alias, ac.Alias)
	return a
}

// CardURLOf returns the card URL for a configured agent URL: a URL whose
// path ends in ".json" is taken as the card's; any other is the agent's base
// URL and gets /.well-known/agent-card.json appended.
func CardURLOf(agentURL string) string {
	u, err := url.Parse(agentURL)
	if err != nil || strings.HasSuffix(u.Path, ".json") {
		return agentURL
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/.well-known/agent-card.json"
	u.RawPath = ""
	return u.String()
}

// OnChange registers fn to run whenever the tool set changes (a card was
// loaded, replaced or refused). The face registers its resync here.
func (t *AgentTools) OnChange(fn func()) {
	t.mu.Lock()
	t.onChange = append(t.onChange, fn)
	t.mu.Unlock()
}

func (t *AgentTools) changed() {
	t.mu.RLock()
	fns := append([]func(){}, t.onChange...)
	t.mu.RUnlock()
	for _, fn := range fns {
		fn()
	}
}

// Refresh fetches every card whose cache entry expired (all of them the
// first time) and reports whether the tool set changed. Failures are logged
// and keep the failing agent's tools out (verification) or keep the last good
// card (fetch errors); Refresh returns them joined.
func (t *AgentTools) Refresh(ctx context.Context) error {
	var errs []error
	changed := false
	now := t.cfg.Now()
	for _, a := range t.snapshot() {
		a.mu.RLock()
		due := a.card == nil || !now.Before(a.expires)
		a.mu.RUnlock()
		if !due {
			continue
		}
		c, err := t.refreshAgent(ctx, a)
		changed = changed || c
		if err != nil {
			errs = append(errs, err)
		}
	}
	if changed {
		t.changed()
	}
	return errors.Join(errs...)
}

// Run refreshes cards as their cache lifetimes end, until ctx is done.
func (t *AgentTools) Run(ctx context.Context) {
	for {
		_ = t.Refresh(ctx)
		wait := t.cfg.CardTTLMax
		now := t.cfg.Now()
		for _, a := range t.snapshot() {
			a.mu.RLock()
			d := a.expires.Sub(now)
			a.mu.RUnlock()
			if d < wait {
				wait = d
			}
		}
		wait = max(wait, time.Second)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// Check is the active health check of the agent with this alias: its card
// fetched now (If-None-Match), verified if it changed, and swapped in; it
// returns why the agent is not usable (fetch failed, card refused), nil
// when it is. Listeners hear of a changed tool set.
func (t *AgentTools) Check(ctx context.Context, alias string) error {
	a := t.agentByAlias(alias)
	if a == nil {
		return fmt.Errorf("expose: unknown agent %q", alias)
	}
	changed, err := t.refreshAgent(ctx, a)
	if changed {
		t.changed()
	}
	return err
}

func (t *AgentTools) agentByAlias(alias string) *agent {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, a := range t.agents {
		if a.cfg.Alias == alias {
			return a
		}
	}
	return nil
}

// snapshot is the agent list now (it changes with SetAgents).
func (t *AgentTools) snapshot() []*agent {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.agents
}

// refreshAgent fetches one card (conditionally), verifies it and swaps it in.
func (t *AgentTools) refreshAgent(ctx context.Context, a *agent) (changed bool, err error) {
	a.fetchMu.Lock()
	defer a.fetchMu.Unlock()
	a.mu.RLock()
	etag, had := a.etag, a.card != nil
	a.mu.RUnlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.cfg.CardURL, nil)
	if err != nil {
		return false, fmt.Errorf("expose: agent %q: card request: %w", a.cfg.Alias, err)
	}
	req.Header.Set("Accept", "application/json")
	if etag != "" && had {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := t.cfg.HTTPClient.Do(req)
	if err != nil {
		return t.fetchFailed(a, fmt.Errorf("expose: agent %q: fetch card: %w", a.cfg.Alias, err))
	}
	defer resp.Body.Close()
	ttl := t.cacheTTL(resp.Header.Get("Cache-Control"))
	if resp.StatusCode == http.StatusNotModified && had {
		a.mu.Lock()
		a.expires = t.cfg.Now().Add(ttl)
		a.checked, a.reachable, a.lastErr, a.lastError = t.cfg.Now(), true, nil, ""
		a.mu.Unlock()
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return t.fetchFailed(a, fmt.Errorf("expose: agent %q: fetch card: HTTP status %d", a.cfg.Alias, resp.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, card.DefaultMaxCardBytes+1))
	if err != nil {
		return t.fetchFailed(a, fmt.Errorf("expose: agent %q: read card: %w", a.cfg.Alias, err))
	}
	if len(body) > card.DefaultMaxCardBytes {
		return t.refuse(a, ttl, fmt.Errorf("expose: agent %q: card exceeds %d bytes", a.cfg.Alias, card.DefaultMaxCardBytes))
	}
	res, err := card.Verify(ctx, body, a.cfg.Keys, card.VerifyOptions{RequireSignature: a.cfg.RequireSignature})
	if err != nil {
		return t.refuse(a, ttl, fmt.Errorf("expose: agent %q: card verification failed: %w", a.cfg.Alias, err))
	}
	if res.Status == card.StatusVerified {
		body = res.Covered // only what the signature vouches for
	}
	// A card of A2A 0.3 is read into a 1.0 card, and the client speaks
	// 0.3 to the agent (v03.Client).
	c, legacy, err := v03.ReadCard(body)
	if err != nil {
		return t.refuse(a, ttl, fmt.Errorf("expose: agent %q: card is not a valid agent card: %w", a.cfg.Alias, err))
	}
	opts := []client.Option{
		client.WithHTTPClient(t.calls),
		client.WithHeader(t.headerHook(a, res.Status == card.StatusVerified)),
	}
	if legacy != nil {
		opts = append(opts, client.WithLegacy(legacy))
	}
	if f := a.cfg.GRPC; f != nil {
		opts = append(opts, client.WithTransport(a2a.BindingGRPC, f))
	}
	if a.cfg.Binding != "" {
		opts = append(opts, client.WithBinding(a.cfg.Binding))
	}
	cl, err := client.New(c, opts...)
	if err != nil {
		return t.refuse(a, ttl, fmt.Errorf("expose: agent %q: %w", a.cfg.Alias, err))
	}
	t.mu.Lock()
	skills := map[string]string{}
	if a.cfg.SkillTools {
		current := slices.Contains(t.agents, a) // not removed by SetAgents meanwhile
		for _, s := range c.Skills {
			name := t.names.name("skill\x00"+a.cfg.Alias+"\x00"+s.ID, a.cfg.Alias+t.cfg.ToolNameSeparator+s.ID)
			skills[s.ID] = name
			if current {
				t.byTool[name] = toolRef{agent: a, skill: s.ID}
			}
		}
	}
	t.mu.Unlock()
	a.mu.Lock()
	changed = a.card == nil || string(a.raw) != string(body)
	a.card, a.raw, a.status, a.client, a.skills, a.legacy = c, body, res.Status, cl, skills, legacy != nil
	a.etag = resp.Header.Get("ETag")
	a.expires = t.cfg.Now().Add(ttl)
	a.lastError, a.lastErr = "", nil
	a.checked, a.reachable, a.refused = t.cfg.Now(), true, false
	a.mu.Unlock()
	if changed {
		t.log.Info("expose: agent card loaded", "agent", a.cfg.Alias, "card", cleanText(c.Name, 100), "signature", res.Status.String())
	}
	return changed, nil
}

// fetchFailed keeps the last good card (stale) and retries soon.
func (t *AgentTools) fetchFailed(a *agent, err error) (bool, error) {
	t.log.Warn("expose: agent card fetch failed; keeping the last good card if any", "agent", a.cfg.Alias, "error", err.Error())
	a.mu.Lock()
	a.expires = t.cfg.Now().Add(t.cfg.CardTTLMin)
	a.lastError, a.lastErr = err.Error(), err
	a.checked, a.reachable = t.cfg.Now(), false
	a.mu.Unlock()
	return false, err
}

// refuse removes the agent's tools: its card failed verification or is unusable.
func (t *AgentTools) refuse(a *agent, ttl time.Duration, err error) (bool, error) {
	t.log.Error("expose: agent card refused; the agent is out until a card verifies", "agent", a.cfg.Alias, "error", err.Error())
	a.mu.Lock()
	changed := a.card != nil
	a.card, a.raw, a.client, a.etag = nil, nil, nil, ""
	a.expires = t.cfg.Now().Add(min(ttl, t.cfg.CardTTLMin*2))
	a.lastError, a.lastErr = err.Error(), err
	a.checked, a.reachable, a.refused = t.cfg.Now(), true, true
	a.mu.Unlock()
	return changed, err
}

// headerHook applies the agent's outbound credentials. They go only to the
// card's own host, or to any interface host when the card's signature
// verified with a pinned key: an unsigned card cannot steer them elsewhere.
// The MCP caller's token is never forwarded (Credentials.Apply strips it).
func (t *AgentTools) headerHook(a *agent, signed bool) func(ctx context.Context, req *http.Request) error {
	return func(ctx context.Context, req *http.Request) error {
		if signed || a.hosts[strings.ToLower(req.URL.Host)] {
			return a.cfg.Credentials.Apply(ctx, req, request.PrincipalFrom(ctx))
		}
		return auth.None{}.Apply(ctx, req, nil)
	}
}

// cacheTTL reads max-age from Cache-Control, clamped to [CardTTLMin,
// CardTTLMax]; no-store/no-cache mean CardTTLMin; absent means
// DefaultCardTTL (clamped).
func (t *AgentTools) cacheTTL(cc string) time.Duration {
	return CacheTTL(cc, t.cfg.CardTTLMin, t.cfg.CardTTLMax)
}

// CacheTTL is how long a card fetched with Cache-Control cc is used: its
// max-age clamped to [lo, hi]; no-store or no-cache mean lo; no max-age
// means DefaultCardTTL, clamped.
func CacheTTL(cc string, lo, hi time.Duration) time.Duration {
	ttl := DefaultCardTTL
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache":
			return lo
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(d, "max-age="), `"`))
			if err == nil && n >= 0 {
				ttl = time.Duration(n) * time.Second
			}
		}
	}
	return min(max(ttl, lo), hi)
}

// Status describes one agent for health pages and tests.
type Status struct {
	Alias string
	Tool  string
	// Loaded: a verified (or accepted unsigned) card is in use.
	Loaded bool
	// Reachable: the last card fetch was answered.
	Reachable bool
	// Refused: the last card received failed verification; the agent's
	// calls fail until one verifies.
	Refused bool
	// Signature is the loaded card's signature status.
	Signature string
	// Skills is the number of skills of the loaded card.
	Skills int
	// Checked is when the card was last fetched (zero before).
	Checked time.Time
	// LastError is the text of Err.
	LastError string
	// Err is why the agent is not usable (fetch failed or card refused),
	// nil when it is. It may name the card's URL: log it, show
	// health.Describe of it.
	Err error
}

// Statuses reports every agent's card state.
func (t *AgentTools) Statuses() []Status {
	agents := t.snapshot()
	out := make([]Status, 0, len(agents))
	for _, a := range agents {
		a.mu.RLock()
		s := Status{Alias: a.cfg.Alias, Tool: a.toolName, Loaded: a.card != nil, LastError: a.lastError, Err: a.lastErr,
			Reachable: a.reachable, Refused: a.refused, Checked: a.checked}
		if a.card != nil {
			s.Signature = a.status.String()
			s.Skills = len(a.card.Skills)
		}
		a.mu.RUnlock()
		out = append(out, s)
	}
	return out
}

// inputSchema is the tool input of every agent tool (notes/mcp.md 3.2).
var inputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"message":{"type":"string","description":"Your request to the agent, in natural language."},` +
	`"data":{"type":"object","description":"Optional structured input, sent as a data part."},` +
	`"files":{"type":"array","description":"Optional files: a uri, or base64 bytes with a mimeType.","items":{"type":"object","properties":{"uri":{"type":"string","format":"uri"},"name":{"type":"string"},"mimeType":{"type":"string"},"bytes":{"type":"string","contentEncoding":"base64"}}}},` +
	`"contextId":{"type":"string","description":"Conversation to continue (from a previous result)."},` +
	`"taskId":{"type":"string","description":"Task to continue, e.g. to answer the agent's question (from a previous result)."}` +
	`},"required":["message"],"additionalProperties":false}`)

// Tools implements endpoint.ToolSource: every agent's tool, named from its
// alias, whether its card is loaded or not (a call then says the agent is
// unavailable, and why), and the per-skill tools of the agents whose card
// is loaded. A description is built from the card only while it is loaded:
// an agent that is down or refused is described from the configuration.
func (t *AgentTools) Tools() []server.ServerTool {
	var out []server.ServerTool
	for _, a := range t.snapshot() {
		a.mu.RLock()
		c := a.card
		skills := a.skills
		a.mu.RUnlock()
		if c == nil {
			desc := a.cfg.Description
			if desc == "" {
				desc = fmt.Sprintf("Sends a message to the A2A agent %q. Its card is not loaded (the agent is not reachable, or its card did not verify), so calls fail until it is.", a.cfg.Alias)
			}
			out = append(out, server.ServerTool{Tool: t.tool(a.toolName, desc, a.cfg.Alias), Handler: t.handler(a, "")})
			continue
		}
		desc := a.cfg.Description
		if desc == "" {
			desc = describeAgent(c, t.cfg.MaxDescription)
		}
		out = append(out, server.ServerTool{Tool: t.tool(a.toolName, desc, c.Name), Handler: t.handler(a, "")})
		if a.cfg.SkillTools {
			for _, s := range c.Skills {
				name, ok := skills[s.ID]
				if !ok {
					continue
				}
				out = append(out, server.ServerTool{Tool: t.tool(name, describeSkill(c, s, t.cfg.MaxDescription), c.Name+": "+s.Name), Handler: t.handler(a, s.ID)})
			}
		}
	}
	return out
}

func (t *AgentTools) tool(name, desc, title string) mcp.Tool {
	tool := mcp.NewToolWithRawSchema(name, desc, inputSchema)
	tool.Annotations = mcp.ToolAnnotation{
		Title:           cleanText(title, 100),
		ReadOnlyHint:    mcp.ToBoolPtr(false),
		DestructiveHint: mcp.ToBoolPtr(true),
		IdempotentHint:  mcp.ToBoolPtr(false),
		OpenWorldHint:   mcp.ToBoolPtr(true),
	}
	// A call can run as an MCP task (2025-11-25), served by the face from
	// its principal-keyed store.
	tool.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
	return tool
}

var _ endpoint.UpstreamCanceler = (*AgentTools)(nil)

// CancelUpstream implements endpoint.UpstreamCanceler: it cancels the A2A task
// of an MCP task whose tool call already returned (INPUT_REQUIRED), if p
// owns that task.
func (t *AgentTools) CancelUpstream(ctx context.Context, p *request.Principal, up endpoint.Upstream) error {
	if p == nil || up.TaskID == "" || !t.owners.owns(p.Key(), up.Agent, "task", up.TaskID) {
		return fmt.Errorf("expose: cancel: unknown task of agent %q", up.Agent)
	}
	for _, a := range t.snapshot() {
		if a.cfg.Alias != up.Agent {
			continue
		}
		a.mu.RLock()
		cl := a.client
		a.mu.RUnlock()
		if cl == nil {
			return fmt.Errorf("expose: cancel: agent %q is unavailable", up.Agent)
		}
		ctx := request.WithPrincipal(ctx, p)
		if d := t.cfg.HTTPClient.Timeout; d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
		if _, err := cl.CancelTask(ctx, &a2a.CancelTaskRequest{ID: up.TaskID}); err != nil {
			return fmt.Errorf("expose: cancel task of agent %q: %w", up.Agent, err)
		}
		return nil
	}
	return fmt.Errorf("expose: cancel: unknown agent %q", up.Agent)
}

// Hop implements endpoint.HopDescriber: the agent alias and skill of a tool.
func (t *AgentTools) Hop(tool string) (request.Hop, bool) {
	t.mu.RLock()
	ref, ok := t.byTool[tool]
	t.mu.RUnlock()
	if !ok {
		return request.Hop{}, false
	}
	return request.Hop{Direction: request.DirExpose, Agent: ref.agent.cfg.Alias, Skill: ref.skill}, true
}

// ResourceHop implements endpoint.ResourceHopDescriber: a card resource belongs
// to its agent, so whoever may not call the agent may not read its card.
func (t *AgentTools) ResourceHop(uri string) (request.Hop, bool) {
	for _, a := range t.snapshot() {
		if CardURI(a.cfg.Alias) == uri {
			return request.Hop{Direction: request.DirExpose, Agent: a.cfg.Alias}, true
		}
	}
	return request.Hop{}, false
}

// CardURI is the MCP resource URI of an agent's card.
func CardURI(alias string) string { return "a2a://agents/" + url.PathEscape(alias) + "/card" }

// Resources implements endpoint.ResourceSource: each loaded card as a resource.
func (t *AgentTools) Resources() []server.ServerResource {
	var out []server.ServerResource
	for _, a := range t.snapshot() {
		a.mu.RLock()
		c := a.card
		a.mu.RUnlock()
		if c == nil {
			continue
		}
		uri := CardURI(a.cfg.Alias)
		res := mcp.NewResource(uri, a.cfg.Alias+" agent card",
			mcp.WithResourceDescription("The A2A agent card of "+strconv.Quote(cleanText(c.Name, 100))+", as received and verified."),
			mcp.WithMIMEType("application/json"))
		out = append(out, server.ServerResource{Resource: res, Handler: func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			a.mu.RLock()
			raw, st := a.raw, a.status
			a.mu.RUnlock()
			if raw == nil {
				return nil, fmt.Errorf("expose: agent %q: no verified card", a.cfg.Alias)
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{
				URI: uri, MIMEType: "application/json", Text: string(raw),
				Meta: map[string]any{"a2a-mcp-bridge/signature": st.String()},
			}}, nil
		}})
	}
	return out
}

// SetAgents makes agents the exposed set, while serving: an alias that is
// new is added (its card fetched by the next Refresh or Check), one no
// longer listed is removed with its tools, and one whose configuration
// changed is replaced (its card fetched again); the others keep their
// cards. Tool names stay stable. Listeners hear of the change. On an
// invalid list nothing changes. Credentials and Keys are compared by
// identity: pass the same values for an agent that did not change.
func (t *AgentTools) SetAgents(agents []AgentConfig) error {
	if err := Validate(agents); err != nil {
		return fmt.Errorf("expose: %w", err)
	}
	t.mu.Lock()
	old := map[string]*agent{}
	for _, a := range t.agents {
		old[a.cfg.Alias] = a
	}
	next := make([]*agent, 0, len(agents))
	for _, ac := range agents {
		if o := old[ac.Alias]; o != nil && sameAgent(o.cfg, t.newAgentConfig(ac)) {
			next = append(next, o)
			continue
		}
		next = append(next, t.newAgent(ac))
	}
	byTool := map[string]toolRef{}
	for _, a := range next {
		byTool[a.toolName] = toolRef{agent: a}
		a.mu.RLock()
		for id, name := range a.skills {
			byTool[name] = toolRef{agent: a, skill: id}
		}
		a.mu.RUnlock()
	}
	t.agents, t.byTool = next, byTool
	t.mu.Unlock()
	t.changed()
	return nil
}

// newAgentConfig is ac with the defaults newAgent fills.
func (t *AgentTools) newAgentConfig(ac AgentConfig) AgentConfig {
	if ac.Timeout == 0 {
		ac.Timeout = DefaultTimeout
	}
	if ac.Credentials == nil {
		ac.Credentials = auth.None{}
	}
	ac.CardURL = CardURLOf(ac.CardURL)
	return ac
}

// sameAgent reports whether two agent configurations are the same, the
// credentials and keys by identity.
func sameAgent(a, b AgentConfig) bool {
	return a.Alias == b.Alias && a.CardURL == b.CardURL && a.RequireSignature == b.RequireSignature &&
		a.Timeout == b.Timeout && a.SkillTools == b.SkillTools && a.Description == b.Description &&
		a.Binding == b.Binding && slices.Equal(a.CredentialHosts, b.CredentialHosts) &&
		same(a.Credentials, b.Credentials) && same(a.Keys, b.Keys)
}

// same compares two interface values by identity, never panicking on a
// dynamic type that is not comparable (such values are never the same).
func same(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}
