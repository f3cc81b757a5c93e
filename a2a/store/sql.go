package store

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// The SQL stores share one schema shape (types differ):
//
//	a2a_tasks         id, owner, context_id, state, status_ts (Unix ns), version, last_seq, snapshot (JSON)
//	a2a_events        task_id → a2a_tasks, seq, event (JSON); primary key (task_id, seq)
//	a2a_leases        task_id, holder, expires_at
//	a2a_cancels       task_id
//	a2a_push_configs  pos (creation order), task_id → a2a_tasks, id, config (JSON),
//	                  delivered (cursor), attempts, next_at (Unix ns), last_error
//
// Events and push configs go with their task (ON DELETE CASCADE); leases and
// cancel flags may exist before the task does, so Prune deletes them itself.

// placeholders numbers bind parameters: "?" for SQLite, "$n" for PostgreSQL.
type placeholders struct {
	dollar bool
	args   []any
}

func (p *placeholders) add(v any) string {
	p.args = append(p.args, v)
	if p.dollar {
		return fmt.Sprintf("$%d", len(p.args))
	}
	return "?"
}

// listQueries builds the page query and the count query of ListTasks. The
// page query asks for one row more than the limit to learn whether more follow.
func listQueries(owner string, q taskmanager.TaskQuery, dollar bool) (page string, pageArgs []any, count string, countArgs []any) {
	build := func(withCursor bool) (string, *placeholders) {
		p := &placeholders{dollar: dollar}
		var b strings.Builder
		b.WriteString(" from a2a_tasks where owner = " + p.add(owner))
		if q.ContextID != "" {
			b.WriteString(" and context_id = " + p.add(q.ContextID))
		}
		if q.Status != "" && q.Status != a2a.TaskStateUnspecified {
			b.WriteString(" and state = " + p.add(string(q.Status)))
		}
		if q.UpdatedFrom != nil {
			b.WriteString(" and status_ts >= " + p.add(timeNanos(*q.UpdatedFrom)))
		}
		if withCursor && q.After != nil {
			ts := timeNanos(q.After.Updated)
			fmt.Fprintf(&b, " and (status_ts < %s or (status_ts = %s and id < %s))", p.add(ts), p.add(ts), p.add(q.After.ID))
		}
		return b.String(), p
	}
	where, p := build(true)
	limit := q.Limit
	if limit <= 0 || limit >= math.MaxInt32 {
		limit = math.MaxInt32 - 1
	}
	page = "select snapshot" + where + " order by status_ts desc, id desc limit " + p.add(limit+1)
	cwhere, cp := build(false)
	count = "select count(*)" + cwhere
	return page, p.args, count, cp.args
}

// sqlLimit turns "0: no limit" into a number SQL accepts.
func sqlLimit(limit int) int {
	if limit <= 0 || limit > math.MaxInt32 {
		return math.MaxInt32
	}
	return limit
}

// eventsUpper is the highest seq Events may return: seqs have no gaps, so
// a limit is a seq range.
func eventsUpper(after int64, limit int) int64 {
	if limit <= 0 || after > math.MaxInt64-int64(limit) {
		return math.MaxInt64
	}
	return after + int64(limit)
}

// taskColumns are the indexed columns and the snapshot of a task.
type taskColumns struct {
	contextID string
	state     string
	statusTS  int64
	snapshot  []byte
}

func columnsOf(t *a2a.Task) (taskColumns, error) {
	b, err := fastjson.Marshal(t)
	if err != nil {
		return taskColumns{}, fmt.Errorf("store: encode task %s: %w", t.ID, err)
	}
	return taskColumns{contextID: t.ContextID, state: string(t.Status.State), statusTS: statusNanos(t), snapshot: b}, nil
}

func decodeTask(b []byte) (*a2a.Task, error) {
	var t a2a.Task
	if err := fastjson.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("store: decode task: %w", err)
	}
	return &t, nil
}

func encodeEvents(evs []a2a.StreamResponse) ([]string, error) {
	out := make([]string, len(evs))
	for i := range evs {
		b, err := fastjson.Marshal(&evs[i])
		if err != nil {
			return nil, fmt.Errorf("store: encode event: %w", err)
		}
		out[i] = string(b)
	}
	return out, nil
}

func decodeEvent(seq int64, b []byte) (taskmanager.StoredEvent, error) {
	e := taskmanager.StoredEvent{Seq: seq}
	if err := fastjson.Unmarshal(b, &e.Event); err != nil {
		return e, fmt.Errorf("store: decode event %d: %w", seq, err)
	}
	return e, nil
}

func decodePush(b []byte) (a2a.TaskPushNotificationConfig, error) {
	var r pushRow
	if err := json.Unmarshal(b, &r); err != nil {
		return r.TaskPushNotificationConfig, fmt.Errorf("store: decode push config: %w", err)
	}
	r.TaskPushNotificationConfig.Version = r.Version
	return r.TaskPushNotificationConfig, nil
}

// pushRow is a push config as stored: the config's JSON and the protocol
// version it was registered in, which its JSON does not carry.
type pushRow struct {
	a2a.TaskPushNotificationConfig
	Version string `json:"bridgeProtocolVersion,omitempty"`
}

// encodePush is the stored form of a push config.
func encodePush(cfg *a2a.TaskPushNotificationConfig) ([]byte, error) {
	return jsonBytes(pushRow{TaskPushNotificationConfig: *cfg, Version: cfg.Version})
}

// pruneBatch bounds the tasks one Prune statement deletes, so that a large
// backlog never holds locks for long.
const pruneBatch = 500

func jsonBytes(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("store: encode: %w", err)
	}
	return b, nil
}
