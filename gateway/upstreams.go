package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/front"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// Defaults of the health section, for configurations built without
// config's defaults.
const (
	defaultCheckInterval = 15 * time.Second
	defaultCheckTimeout  = 5 * time.Second
)

// initHealth creates the upstream health registry, whose every change
// reaches the metrics, and the monitors that check the upstreams.
func (b *Bridge) initHealth() {
	b.health = health.New(health.Options{Logger: b.log})
	b.health.OnChange(b.recordUpstream)
	h := b.cfg.Health
	interval, timeout := h.CheckInterval.D(), h.CheckTimeout.D()
	if interval <= 0 {
		interval = defaultCheckInterval
	}
	if timeout <= 0 {
		timeout = min(defaultCheckTimeout, interval)
	}
	b.monitors = health.NewMonitors(interval, timeout)
}

// Health is the registry of the upstreams' health that /readyz, the
// metrics and the logs read (a status page reads it too).
func (b *Bridge) Health() *health.Registry { return b.health }

// recordUpstream sets bridge_upstream_up{upstream,kind} and
// bridge_upstream_state{upstream,kind,state} for one upstream.
func (b *Bridge) recordUpstream(st health.Status, removed bool) {
	m := b.metrics.Series()
	if m == nil {
		return // before observe: recordUpstreams catches up
	}
	if removed {
		m.UpstreamRemoved(st.Name, string(st.Kind))
		return
	}
	m.UpstreamUp(st.Name, string(st.Kind), st.Up())
	m.UpstreamState(st.Name, string(st.Kind), string(st.State), upstreamStates)
}

var upstreamStates = func() []string {
	out := make([]string, len(health.States))
	for i, s := range health.States {
		out[i] = string(s)
	}
	return out
}()

// recordUpstreams sets the metrics of every upstream from the registry.
func (b *Bridge) recordUpstreams() {
	if b.health == nil {
		return
	}
	b.health.Replay(func(st health.Status) { b.recordUpstream(st, false) })
}

// notReadyLine says why an upstream keeps the bridge from being ready.
func notReadyLine(st health.Status) string {
	switch st.State {
	case health.StateStarting:
		return fmt.Sprintf("%s %s: not reached yet", st.Kind, st.Name)
	case health.StateRefused:
		return fmt.Sprintf("%s %s: refused: %s", st.Kind, st.Name, st.LastError)
	}
	return fmt.Sprintf("%s %s: down: %s", st.Kind, st.Name, st.LastError)
}

// readinessRequiresUpstreams reports whether /readyz needs every upstream
// up (health.readiness: upstreams, the default).
func (b *Bridge) readinessRequiresUpstreams() bool {
	return b.cfg.Health.Readiness != config.ReadinessBridge
}

// reportConn reports an MCP connection's state; tools counts what it
// serves (the published agent's skills, or the server's tools).
func (b *Bridge) reportConn(kind health.Kind, name string, conn *connector.Conn, tools func() int) {
	st := conn.Status()
	rep := health.Report{State: health.StateUp, Tools: tools()}
	if !st.Connected {
		rep.State, rep.Err = health.StateDown, health.Describe(st.Err)
	}
	b.health.Report(kind, name, rep)
}

// connMonitor checks an MCP connection: a ping (or a re-read of the tool
// list on 2026-07-28); a failure drops the connection, which the Conn
// re-establishes with backoff.
func (b *Bridge) connMonitor(kind health.Kind, name string, conn *connector.Conn, tools func() int) *health.Monitor {
	return &health.Monitor{Kind: kind, Name: name, Check: func(ctx context.Context) time.Duration {
		if err := conn.Check(ctx); err != nil {
			b.log.Debug("upstream check failed", "upstream", name, "kind", string(kind), "err", err)
		}
		b.reportConn(kind, name, conn, tools)
		return 0
	}}
}

// connHooks fills an MCP upstream's backoff and its state hook, which
// reports to the registry as soon as the connection is made or lost (conn
// is set once dialed).
func (b *Bridge) connHooks(u *connector.Config, kind health.Kind, name string, conn *connRef, tools func() int) {
	u.MinBackoff, u.MaxBackoff = b.cfg.Health.ReconnectMin.D(), b.cfg.Health.ReconnectMax.D()
	u.OnStateChange = func() {
		if c := conn.load(); c != nil {
			b.reportConn(kind, name, c, tools)
		}
	}
}

// connRef is a Conn set once dialed, for hooks configured before.
type connRef struct {
	mu sync.Mutex
	c  *connector.Conn
}

func (r *connRef) load() *connector.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}

func (r *connRef) store(c *connector.Conn) {
	r.mu.Lock()
	r.c = c
	r.mu.Unlock()
}

// reportExposed reports every exposed agent's card state.
func (b *Bridge) reportExposed() {
	if b.tools == nil {
		return
	}
	for _, s := range b.tools.Statuses() {
		rep := health.Report{Tools: s.Skills, Signature: s.Signature}
		switch {
		case s.Refused:
			rep.State, rep.Err = health.StateRefused, cardReason(s.Err)
		case s.Loaded && s.Reachable:
			rep.State = health.StateUp
		case s.Checked.IsZero():
			rep.State, rep.Err = health.StateStarting, "not reached yet"
		default:
			rep.State, rep.Err = health.StateDown, "card fetch failed: "+health.Describe(s.Err)
		}
		b.health.Report(health.KindExpose, s.Alias, rep)
	}
}

// exposeMonitor checks an exposed agent: its card fetched now
// (If-None-Match) and verified if it changed.
func (b *Bridge) exposeMonitor(alias string) *health.Monitor {
	return &health.Monitor{Kind: health.KindExpose, Name: alias, Check: func(ctx context.Context) time.Duration {
		if err := b.tools.Check(ctx, alias); err != nil {
			b.log.Debug("exposed agent check failed", "agent", alias, "err", err)
		}
		b.reportExposed()
		return 0
	}}
}

// cardReason is why a card was refused, in safe text.
func cardReason(err error) string {
	why := ""
	switch {
	case err == nil:
		return "card refused"
	case errors.Is(err, card.ErrNoSignature):
		why = "the card is not signed"
	case errors.Is(err, card.ErrUntrustedKey):
		why = "the card is signed by a key that is not trusted"
	case errors.Is(err, card.ErrBadSignature):
		why = "the card's signature does not verify"
	case errors.Is(err, card.ErrAlgorithmNotAllowed):
		why = "the card's signature algorithm is not allowed"
	case errors.Is(err, card.ErrJKUNotTrusted):
		why = "the card's jku is not trusted"
	case errors.Is(err, card.ErrKeyFetch):
		why = "the trusted keys could not be fetched"
	case errors.Is(err, card.ErrInvalidKey):
		why = "a trusted key is invalid"
	case errors.Is(err, card.ErrInvalidCard):
		why = "the card is not valid"
	default:
		why = health.Describe(err)
	}
	return "card failed verification: " + why
}

// frontMonitor keeps a fronted agent's card: until it is loaded, it tries
// to load it with backoff; once loaded, it refreshes it every check (and
// when its Cache-Control lifetime ends), takes the agent out while a card
// fails verification and brings it back when one verifies.
func (b *Bridge) frontMonitor(fa *frontedAgent) *health.Monitor {
	bo := health.Backoff{Min: b.cfg.Health.ReconnectMin.D(), Max: b.cfg.Health.ReconnectMax.D()}
	var first time.Duration
	if fa.proxy() == nil {
		first = bo.Next()
	}
	return &health.Monitor{Kind: health.KindFrontA2A, Name: fa.name, First: first, Check: func(ctx context.Context) time.Duration {
		if fa.proxy() == nil {
			if err := b.connectFront(ctx, fa); err != nil {
				b.reportFront(fa, err)
				return bo.Next()
			}
			bo.Reset()
			b.reportFront(fa, nil)
		} else {
			b.refreshFront(ctx, fa)
		}
		if px := fa.proxy(); px != nil {
			return max(time.Until(px.CardExpires()), time.Second)
		}
		return 0
	}}
}

// refreshFront fetches a loaded fronted agent's card again and acts on
// what came back.
func (b *Bridge) refreshFront(ctx context.Context, fa *frontedAgent) {
	px := fa.proxy()
	changed, err := px.Refresh(ctx)
	switch {
	case errors.Is(err, front.ErrCardRefused):
		fa.takeOut(cardReason(err))
	case err != nil:
		// Not reachable: the agent stays mounted (its calls are answered
		// AGENT_UNAVAILABLE while it is down, and work as soon as it is back).
	default:
		if changed {
			if err := b.resignFront(fa, px); err != nil {
				b.log.Error("re-signing a fronted agent's changed card failed; the old card is still served", "agent", fa.name, "err", err)
			} else {
				b.log.Info("fronted agent card changed; re-signed", "agent", fa.name)
			}
		}
		fa.bringBack()
	}
	b.reportFront(fa, err)
}

// reportFront reports a fronted agent: err is the last load or refresh
// error (nil: it worked).
func (b *Bridge) reportFront(fa *frontedAgent, err error) {
	rep := health.Report{State: health.StateUp, Tools: -1}
	if px := fa.proxy(); px != nil {
		rep.Tools = len(px.UpstreamCard().Skills)
		if v := px.Verification(); v.Status != 0 {
			rep.Signature = v.Status.String()
		}
	}
	switch {
	case errors.Is(err, front.ErrCardRefused):
		rep.State, rep.Err = health.StateRefused, cardReason(err)
	case err != nil:
		rep.State, rep.Err = health.StateDown, "card fetch failed: "+health.Describe(err)
	}
	b.health.Report(health.KindFrontA2A, fa.name, rep)
}
