// Package health is the bridge's registry of upstream health: one entry per
// upstream the bridge relays to (published MCP servers, fronted MCP servers,
// fronted A2A agents, exposed A2A agents) with its state, when it was last
// checked, why it is down in text safe to show, its card's signature status
// and how many tools or skills it offers.
//
// The gateway reports into it (from each upstream's active check and from
// the connection events in between); /readyz, the bridge_upstream_up and
// bridge_upstream_state metrics and the "upstream down" / "upstream up" log
// lines all read it, so they never disagree. A status page or an admin API
// reads the same List. Monitors runs each upstream's active check on its
// interval (the check itself, which reaches the upstream, is the gateway's).
//
// It must not import gateway, config or any face: it holds states and
// timers, nothing that reaches an upstream.
package health

import (
	"log/slog"
	"sync"
	"time"
)

// Kind is the configuration section an upstream comes from.
type Kind string

// Kinds, named as in the configuration file.
const (
	KindPublish  Kind = "publish"
	KindFrontMCP Kind = "front.mcp"
	KindFrontA2A Kind = "front.a2a"
	KindExpose   Kind = "expose"
)

// State is an upstream's health.
type State string

// States.
const (
	// StateStarting: registered, not reached yet (the first connection or
	// card fetch is under way).
	StateStarting State = "starting"
	// StateUp: reachable and serving.
	StateUp State = "up"
	// StateDown: cannot be reached, or was lost; the bridge keeps retrying.
	StateDown State = "down"
	// StateRefused: reachable, but its card failed verification where a
	// signature is required: the bridge has taken it out until a card
	// verifies again.
	StateRefused State = "refused"
)

// States lists every State, for metrics that export one series per state.
var States = []State{StateStarting, StateUp, StateDown, StateRefused}

// Status is one upstream's entry.
type Status struct {
	// Name is the upstream's configured name (publish[].name,
	// front.*[].name, expose.agents[].alias).
	Name string `json:"name"`
	// Kind is its configuration section.
	Kind Kind `json:"kind"`
	// State is its health now.
	State State `json:"state"`
	// Since is when it entered State.
	Since time.Time `json:"since"`
	// LastCheck is when its health was last observed (zero before).
	LastCheck time.Time `json:"last_check,omitzero"`
	// LastError says why it is down or refused, in text safe to show
	// (no address, URL or credential); empty while up.
	LastError string `json:"last_error,omitempty"`
	// Signature is the status of its card's signature ("verified",
	// "unsigned"), for A2A upstreams whose card was loaded; empty for MCP
	// servers.
	Signature string `json:"signature,omitempty"`
	// Tools is how many tools (MCP servers) or skills (A2A agents) it
	// offers, as last read.
	Tools int `json:"tools"`
}

// Up reports whether the upstream is up.
func (s Status) Up() bool { return s.State == StateUp }

// Report is one observation of an upstream.
type Report struct {
	// State is what was observed.
	State State
	// Err says why it is not up; it must be safe to show (see Describe).
	Err string
	// Signature is its card's signature status ("" keeps the previous).
	Signature string
	// Tools is how many tools or skills it offers (negative keeps the
	// previous count).
	Tools int
}

// Options configure a Registry.
type Options struct {
	// Logger receives one line per change of an upstream's state or error
	// (default slog.Default()).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Registry holds the health of every upstream. It is safe for concurrent
// use.
type Registry struct {
	log *slog.Logger
	now func() time.Time

	// pub is held by a change (Add, Report, Remove) from the update through
	// its listeners and by every reader, so a reader never sees a state whose
	// listeners have not run yet (/readyz saying down while
	// bridge_upstream_up still says up) and listeners see the changes in the
	// order the registry made them.
	pub       sync.Mutex
	mu        sync.Mutex
	order     []key
	entries   map[key]*Status
	listeners []func(st Status, removed bool)
}

type key struct {
	kind Kind
	name string
}

// New returns an empty registry.
func New(opts Options) *Registry {
	r := &Registry{log: opts.Logger, now: opts.Now, entries: map[key]*Status{}}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// Add registers an upstream in StateStarting (an existing entry is kept).
func (r *Registry) Add(kind Kind, name string) {
	r.pub.Lock()
	defer r.pub.Unlock()
	k := key{kind, name}
	r.mu.Lock()
	if _, ok := r.entries[k]; ok {
		r.mu.Unlock()
		return
	}
	st := &Status{Name: name, Kind: kind, State: StateStarting, Since: r.now()}
	r.entries[k] = st
	r.order = append(r.order, k)
	snap, ls := *st, r.listeners
	r.mu.Unlock()
	for _, f := range ls {
		f(snap, false)
	}
}

// Remove forgets an upstream (removed from the configuration).
func (r *Registry) Remove(kind Kind, name string) {
	r.pub.Lock()
	defer r.pub.Unlock()
	k := key{kind, name}
	r.mu.Lock()
	st, ok := r.entries[k]
	if !ok {
		r.mu.Unlock()
		return
	}
	delete(r.entries, k)
	for i, o := range r.order {
		if o == k {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
	snap, ls := *st, r.listeners
	r.mu.Unlock()
	for _, f := range ls {
		f(snap, true)
	}
}

// Report records an observation of a registered upstream (an unknown one
// is ignored) and logs a change of its state or error: "upstream down"
// (warn), "upstream refused" (error), "upstream up" (info).
func (r *Registry) Report(kind Kind, name string, rep Report) {
	r.pub.Lock()
	defer r.pub.Unlock()
	k := key{kind, name}
	now := r.now()
	r.mu.Lock()
	st, ok := r.entries[k]
	if !ok {
		r.mu.Unlock()
		return
	}
	prev := *st
	if rep.State == StateUp {
		rep.Err = ""
	}
	if rep.State != st.State {
		st.State, st.Since = rep.State, now
	}
	st.LastCheck, st.LastError = now, rep.Err
	if rep.Signature != "" {
		st.Signature = rep.Signature
	}
	if rep.Tools >= 0 {
		st.Tools = rep.Tools
	}
	snap, ls := *st, r.listeners
	r.mu.Unlock()
	if snap.State != prev.State || snap.LastError != prev.LastError {
		r.logChange(prev, snap)
	}
	for _, f := range ls {
		f(snap, false)
	}
}

func (r *Registry) logChange(prev, st Status) {
	attrs := []any{"upstream", st.Name, "kind", string(st.Kind), "state", string(st.State)}
	switch st.State {
	case StateUp:
		attrs = append(attrs, "tools", st.Tools)
		if st.Signature != "" {
			attrs = append(attrs, "signature", st.Signature)
		}
		if prev.State == StateDown || prev.State == StateRefused {
			attrs = append(attrs, "was", string(prev.State), "for", st.Since.Sub(prev.Since).Round(time.Millisecond).String())
		}
		r.log.Info("upstream up", attrs...)
	case StateDown:
		r.log.Warn("upstream down", append(attrs, "reason", st.LastError)...)
	case StateRefused:
		r.log.Error("upstream refused: taken out until its card verifies", append(attrs, "reason", st.LastError)...)
	}
}

// Get returns one upstream's status.
func (r *Registry) Get(kind Kind, name string) (Status, bool) {
	r.pub.Lock()
	defer r.pub.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.entries[key{kind, name}]
	if !ok {
		return Status{}, false
	}
	return *st, true
}

// List returns every upstream's status, in the order they were added.
func (r *Registry) List() []Status {
	r.pub.Lock()
	defer r.pub.Unlock()
	return r.snapshot()
}

// snapshot copies every status in order; the caller holds pub.
func (r *Registry) snapshot() []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Status, 0, len(r.order))
	for _, k := range r.order {
		out = append(out, *r.entries[k])
	}
	return out
}

// Replay calls f with every upstream's status, in the order they were
// added, with changes held until it returns: a listener catching up (the
// metrics set from the registry) cannot overwrite a newer change with an
// older status. f must not call the registry.
func (r *Registry) Replay(f func(st Status)) {
	r.pub.Lock()
	defer r.pub.Unlock()
	for _, st := range r.snapshot() {
		f(st)
	}
}

// OnChange registers f, called after every Add, Report and Remove with the
// upstream's status (removed true for Remove). It runs on the reporter's
// goroutine before the change is visible to Get and List, must return
// quickly, and must not call the registry.
func (r *Registry) OnChange(f func(st Status, removed bool)) {
	r.mu.Lock()
	r.listeners = append(r.listeners, f)
	r.mu.Unlock()
}
