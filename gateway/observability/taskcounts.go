package observability

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Task counts are read from the store at scrape time, at most once per
// taskCountsTTL (several scrapers, the status page), each read bounded by
// taskCountsTimeout.
const (
	taskCountsTTL     = 2 * time.Second
	taskCountsTimeout = 2 * time.Second
)

// taskStates are the states bridge_tasks exports, always all of them, so
// that a state without tasks reads 0 and the label set is fixed.
var taskStates = lifecycle

// TaskStates lists the A2A task states in their lifecycle's order, for
// views that show every state.
func TaskStates() []a2a.TaskState {
	return slices.Clone(lifecycle)
}

var lifecycle = []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired,
	a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected}

// TaskCounts reads the tasks by state from a store that counts them
// (taskmanager.TaskCounter: one query, every replica's tasks on a shared store),
// remembering the answer for taskCountsTTL.
type TaskCounts struct {
	c   taskmanager.TaskCounter
	now func() time.Time

	mu     sync.Mutex
	at     time.Time
	counts map[a2a.TaskState]int64
	err    error
}

// NewTaskCounts reads c's counts, at most every taskCountsTTL.
func NewTaskCounts(c taskmanager.TaskCounter) *TaskCounts {
	return &TaskCounts{c: c, now: time.Now}
}

// get returns the counts, read now or at most taskCountsTTL ago.
func (t *TaskCounts) get(ctx context.Context) (map[a2a.TaskState]int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now := t.now(); t.at.IsZero() || now.Sub(t.at) >= taskCountsTTL {
		ctx, cancel := context.WithTimeout(ctx, taskCountsTimeout)
		t.counts, t.err = t.c.CountTasks(ctx)
		cancel()
		t.at = now
	}
	return t.counts, t.err
}

// CountTasks implements taskmanager.TaskCounter with the remembered counts (a
// copy), so that the status page (Bridge.TasksByState) and bridge_tasks
// read the same.
func (t *TaskCounts) CountTasks(ctx context.Context) (map[a2a.TaskState]int64, error) {
	counts, err := t.get(ctx)
	return maps.Clone(counts), err
}

// taskGauge is the collector of bridge_tasks{state} (NewTaskGauge).
type taskGauge struct {
	t    *TaskCounts
	desc *prometheus.Desc
}

func NewTaskGauge(t *TaskCounts) prometheus.Collector {
	return &taskGauge{t: t, desc: prometheus.NewDesc("bridge_tasks",
		"Stored tasks by state, of every owner (on a shared PostgreSQL store, of every replica), read from the store at scrape time (at most every 2s).",
		[]string{"state"}, nil)}
}

// Describe implements prometheus.Collector.
func (g *taskGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

// Collect implements prometheus.Collector. A failed read exports nothing
// (the store's failure shows in bridge_store_errors_total and /readyz)
// rather than zeros that would read as "no tasks".
func (g *taskGauge) Collect(ch chan<- prometheus.Metric) {
	counts, err := g.t.get(context.Background())
	if err != nil {
		return
	}
	var other int64
	for st, n := range counts {
		if !slices.Contains(taskStates, st) {
			other += n
		}
	}
	for _, st := range taskStates {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(counts[st]), stateName(st))
	}
	if other > 0 {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(other), "unknown")
	}
}

// stateName is a state as a short label ("working", "input_required").
func stateName(s a2a.TaskState) string {
	return strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_"))
}
