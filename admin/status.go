package admin

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/health"
)

// Status is what the status page shows and GET /admin/api/status returns.
type Status struct {
	// Version is the bridge's version.
	Version string `json:"version"`
	// Started is when the bridge started; Now is when this was read.
	Started time.Time `json:"started"`
	Now     time.Time `json:"now"`
	// Ready is what /readyz answers; NotReady says why not.
	Ready    bool     `json:"ready"`
	NotReady []string `json:"not_ready,omitempty"`
	// Routes are every face and route served on the bridge's listener.
	Routes []gateway.Route `json:"routes"`
	// Upstreams are every upstream's health, from the registry /readyz and
	// the metrics read.
	Upstreams []health.Status `json:"upstreams"`
	// Tasks counts the store's tasks by state, in lifecycle order;
	// TasksError says why they could not be counted.
	Tasks      []TaskCount `json:"tasks"`
	TasksError string      `json:"tasks_error,omitempty"`
	// Refusals are the policy denials and rate-limit hits, counted (never
	// who or what was asked), from the series the metrics export.
	Refusals []Refusal `json:"refusals"`
	// RecentWindow is the span Refusal.Recent counts over.
	RecentWindow string `json:"recent_window"`
	// Config is the configuration in force, every secret redacted.
	Config config.RedactedConfig `json:"config"`
}

// TaskCount is the number of tasks in one state.
type TaskCount struct {
	State a2a.TaskState `json:"state"`
	Count int64         `json:"count"`
}

// Refusal kinds.
const (
	RefusalPolicy    = "policy_denial"
	RefusalRateLimit = "rate_limit"
)

// Refusal counts one kind of refusal for one label set (face, rule, …).
type Refusal struct {
	// Kind is policy_denial or rate_limit.
	Kind string `json:"kind"`
	// Labels are the series' labels (face, rule), as /metrics names them.
	Labels map[string]string `json:"labels"`
	// Total counts them since the bridge started.
	Total int64 `json:"total"`
	// Recent counts them over the last RecentWindow (since start when the
	// bridge is younger).
	Recent int64 `json:"recent"`
}

// LabelText is the labels as "k=v k=v", sorted.
func (r Refusal) LabelText() string {
	keys := make([]string, 0, len(r.Labels))
	for k := range r.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+r.Labels[k])
	}
	return strings.Join(parts, " ")
}

// refusalSeries are the series read for Refusals: a metric name, the kind,
// and a label that must hold a value (decision=deny) with the label left
// out of the shown set.
var refusalSeries = []struct {
	metric, kind, label, value string
}{
	{"bridge_policy_decisions_total", RefusalPolicy, "decision", "deny"},
	{"bridge_rate_limited_total", RefusalRateLimit, "", ""},
}

// recentWindow is what Refusal.Recent counts over; sampleEvery is how
// often the counters are sampled for it.
const (
	recentWindow = time.Hour
	sampleEvery  = time.Minute
)

// counts are refusal counters by series key.
type counts map[string]float64

// sample is the refusal counters at one instant.
type sample struct {
	at time.Time
	c  counts
}

// refusals reads the refusal counters from the metrics registry and keeps
// a sample a minute for an hour, to tell the recent ones.
type refusals struct {
	g prometheus.Gatherer

	mu      sync.Mutex
	samples []sample // oldest first; the first is the start (all zero)
}

func newRefusals(g prometheus.Gatherer, started time.Time) *refusals {
	return &refusals{g: g, samples: []sample{{at: started, c: counts{}}}}
}

// read gathers the counters now, with their label sets by key.
func (r *refusals) read() (counts, map[string]Refusal) {
	c, shown := counts{}, map[string]Refusal{}
	if r.g == nil {
		return c, shown
	}
	mfs, _ := r.g.Gather() // a partial gather still has the families that worked
	for _, mf := range mfs {
		for _, s := range refusalSeries {
			if mf.GetName() != s.metric {
				continue
			}
			for _, m := range mf.GetMetric() {
				labels, ok := seriesLabels(m, s.label, s.value)
				if !ok {
					continue
				}
				ref := Refusal{Kind: s.kind, Labels: labels}
				key := s.kind + "|" + ref.LabelText()
				c[key] += m.GetCounter().GetValue()
				shown[key] = ref
			}
		}
	}
	return c, shown
}

// seriesLabels returns m's labels but the selecting one, when m has it
// with value (or when no label selects).
func seriesLabels(m *dto.Metric, label, value string) (map[string]string, bool) {
	out := map[string]string{}
	matched := label == ""
	for _, lp := range m.GetLabel() {
		if lp.GetName() == label {
			matched = lp.GetValue() == value
			continue
		}
		out[lp.GetName()] = lp.GetValue()
	}
	return out, matched
}

// record takes a sample at now and forgets those no longer needed.
func (r *refusals) record(now time.Time) {
	c, _ := r.read()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples = append(r.samples, sample{at: now, c: c})
	// Keep the latest sample at or before now-window (the baseline) and
	// everything after it.
	cut := 0
	for i, s := range r.samples {
		if !s.at.After(now.Add(-recentWindow)) {
			cut = i
		}
	}
	r.samples = slices.Delete(r.samples, 0, cut)
}

// status lists the refusals now, with their counts over the window.
func (r *refusals) status(now time.Time) []Refusal {
	c, shown := r.read()
	r.mu.Lock()
	base := r.samples[0].c
	for _, s := range r.samples {
		if !s.at.After(now.Add(-recentWindow)) {
			base = s.c
		}
	}
	r.mu.Unlock()
	out := make([]Refusal, 0, len(shown))
	for key, ref := range shown {
		ref.Total = int64(c[key])
		ref.Recent = int64(c[key] - base[key])
		if ref.Total == 0 {
			continue
		}
		out = append(out, ref)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].LabelText() < out[j].LabelText()
	})
	return out
}

// run samples the counters every sampleEvery until ctx ends.
func (r *refusals) run(ctx context.Context, now func() time.Time) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.record(now())
		}
	}
}

// taskCounts orders the counts by gateway.TaskStates, then any other
// state the store holds.
func taskCounts(m map[a2a.TaskState]int64) []TaskCount {
	var out []TaskCount
	for _, s := range gateway.TaskStates() {
		out = append(out, TaskCount{State: s, Count: m[s]})
	}
	var other []a2a.TaskState
	for s := range m {
		if !slices.Contains(gateway.TaskStates(), s) {
			other = append(other, s)
		}
	}
	slices.Sort(other)
	for _, s := range other {
		out = append(out, TaskCount{State: s, Count: m[s]})
	}
	return out
}
