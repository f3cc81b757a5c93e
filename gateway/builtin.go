package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
	"github.com/a2a-mcp-bridge/bridge/gateway/upstream"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// What the bridge carries compiled in: served only when a file names it
// (publish[].builtin, front.mcp[].builtin, front.a2a[].builtin), and then
// through the same hop chain as an upstream reached over the network.

// builtinAgent is a built-in A2A agent: its executor and its card for the
// URL it is served at.
type builtinAgent struct {
	exec taskmanager.Executor
	card func(base string) *a2a.AgentCard
}

// newBuiltinAgent is the A2A agent front.a2a[].builtin names.
func newBuiltinAgent(name string) (*builtinAgent, error) {
	switch name {
	case config.BuiltinDemo:
		return &builtinAgent{exec: &demoagent.Agent{}, card: demoagent.Card}, nil
	}
	return nil, fmt.Errorf("no A2A agent %q is built in: use %q", name, config.BuiltinDemo)
}

// connect connects an MCP server: a built-in one in process, any other
// with b.dial.
func (b *Bridge) connect(ctx context.Context, builtin string, ucfg connector.Config) (*connector.Conn, error) {
	if builtin == "" {
		return b.dial(ctx, ucfg)
	}
	s, err := upstream.BuiltinServer(builtin)
	if err != nil {
		return nil, err
	}
	return connector.InProcess(ctx, s, ucfg)
}

// ownAgentURL is the base URL of an agent this bridge serves, for
// expose.agents[].agent.
func (b *Bridge) ownAgentURL(name string) string { return b.publicURL + "/a2a/" + name }

// ownAgents routes the exposed agents' calls: those to an agent this
// bridge serves that expose.agents[].agent names (under public_url/a2a/NAME,
// a destination the file names) go through own, every other through
// guarded (netguard: the URLs come from cards).
type ownAgents struct {
	origin  string // scheme://host of public_url
	prefix  string // path of public_url, without its trailing slash
	names   *atomic.Pointer[map[string]bool]
	own     http.RoundTripper
	guarded http.RoundTripper
	both    []http.RoundTripper // own, guarded (Unwrap)
}

var _ netguard.Wrapper = (*ownAgents)(nil)

// Unwrap implements netguard.Wrapper: own and guarded, netguard's
// transports, so that netguard.Do calls o without http.Client.
func (o *ownAgents) Unwrap() []http.RoundTripper { return o.both }

// RoundTrip implements http.RoundTripper.
func (o *ownAgents) RoundTrip(r *http.Request) (*http.Response, error) {
	if o.isOwn(r.URL) {
		return o.own.RoundTrip(r)
	}
	return o.guarded.RoundTrip(r)
}

// isOwn reports whether u is at or under public_url/a2a/NAME for a named
// agent.
func (o *ownAgents) isOwn(u *url.URL) bool {
	if u == nil || !strings.EqualFold(u.Scheme+"://"+u.Host, o.origin) || u.User != nil {
		return false
	}
	rest, ok := strings.CutPrefix(u.EscapedPath(), o.prefix+"/a2a/")
	if !ok {
		return false
	}
	name, _, _ := strings.Cut(rest, "/")
	names := o.names.Load()
	return names != nil && (*names)[name]
}

// exposeClient is the exposed agents' client: guarded, with the calls to
// the agents of this bridge that expose.agents[].agent names (as a reload
// leaves them: setOwnExposed) going through own instead.
func (b *Bridge) exposeClient(guarded, own *http.Client) *http.Client {
	u, err := url.Parse(b.publicURL)
	if err != nil || u.Host == "" || guarded.Transport == nil || own.Transport == nil {
		return guarded
	}
	c := *guarded
	c.Transport = &ownAgents{origin: u.Scheme + "://" + u.Host, prefix: strings.TrimRight(u.EscapedPath(), "/"), names: &b.ownExposed, own: own.Transport, guarded: guarded.Transport,
		both: []http.RoundTripper{own.Transport, guarded.Transport}}
	return &c
}

// setOwnExposed records which agents of this bridge the expose list names.
func (b *Bridge) setOwnExposed(agents []config.ExposedAgent) {
	names := map[string]bool{}
	for _, a := range agents {
		if a.Agent != "" {
			names[a.Agent] = true
		}
	}
	b.ownExposed.Store(&names)
}

// ownKeys verifies the cards of this bridge's own agents
// (expose.agents[].agent) with its own signing keys, as they are now.
type ownKeys struct{ b *Bridge }

var _ card.KeyResolver = ownKeys{}

// Key implements card.KeyResolver.
func (o ownKeys) Key(ctx context.Context, kid string) (jose.JSONWebKey, error) {
	ks := o.b.signing.Load().keys
	if ks == nil {
		return jose.JSONWebKey{}, errors.New("gateway: this bridge signs no cards here")
	}
	return ks.Key(ctx, kid)
}
