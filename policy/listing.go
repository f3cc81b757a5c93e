package policy

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// listingRuleLabel is the rule label of a listing's one decision (rule
// names start with a letter or digit, so it cannot collide with one).
const listingRuleLabel = "_listing"

// Listing gathers the decisions that filter one listing (tools/list,
// resources/list: one decision per item, to hide what the caller may not
// use) into one decision of the listing: one audit line that says the
// listing's method and how many items were shown and hidden, and one
// count. The per-item decisions are taken as usual, they are only not
// audited one by one.
type Listing struct {
	method string

	mu            sync.Mutex
	e             *Engine
	hop           request.Hop
	seen          bool
	shown, hidden int
	hiddenBy      []string
	warn          bool
}

type listingKey struct{}

// WithListing returns ctx for the item decisions of one listing by method;
// every [Engine.Decide] under it is recorded in the Listing instead of
// audited on its own. Call [Listing.Audit] once the listing is filtered.
func WithListing(ctx context.Context, method string) (context.Context, *Listing) {
	l := &Listing{method: method}
	return context.WithValue(ctx, listingKey{}, l), l
}

func listingFrom(ctx context.Context) *Listing {
	l, _ := ctx.Value(listingKey{}).(*Listing)
	return l
}

// add records one item decision of the listing.
func (l *Listing) add(e *Engine, h *request.Hop, d Decision) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.seen {
		l.seen, l.hop = true, request.Hop{Principal: h.Principal, Face: h.Face, Direction: h.Direction, Agent: h.Agent}
	} else if l.hop.Agent != h.Agent {
		l.hop.Agent = "" // items of several agents
	}
	l.e = e
	if d.Allow {
		l.shown++
		return
	}
	l.hidden++
	rule := d.Rule
	if rule == "" {
		rule = defaultRuleLabel
	}
	if !slices.Contains(l.hiddenBy, rule) {
		l.hiddenBy = append(l.hiddenBy, rule)
	}
	if d.Code == CodeEvalError || d.Code == CodeCostLimit {
		l.warn = true
	}
}

// Audit writes the listing's one audit line and counts its one decision
// ("allow": the listing is served, filtered). A listing that took no
// decision (no items, or no policy consulted) writes nothing.
func (l *Listing) Audit(ctx context.Context) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.seen {
		return
	}
	log := slog.Default()
	if l.e != nil {
		log = l.e.log
		l.e.decisions.WithLabelValues(decisionLabel(true), listingRuleLabel, faceLabel(l.hop.Face)).Inc()
	}
	level := slog.LevelInfo
	if l.warn {
		level = slog.LevelWarn
	}
	if !log.Enabled(ctx, level) {
		return
	}
	slices.Sort(l.hiddenBy)
	log.LogAttrs(ctx, level, "policy decision",
		slog.String("who", l.hop.Principal.String()),
		slog.String("face", string(l.hop.Face)),
		slog.String("direction", string(l.hop.Direction)),
		slog.String("agent", l.hop.Agent),
		slog.String("method", l.method),
		slog.String("decision", decisionLabel(true)),
		slog.String("code", "listing"),
		slog.Int("shown", l.shown),
		slog.Int("hidden", l.hidden),
		slog.Any("hidden_by", l.hiddenBy),
	)
}
