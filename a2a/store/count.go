package store

import (
	"context"
	"fmt"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// The stores count their tasks by state, of every owner, for operators'
// views (the admin status page); a state with no task is absent.
var (
	_ a2a.TaskCounter = (*Memory)(nil)
	_ a2a.TaskCounter = (*SQLite)(nil)
	_ a2a.TaskCounter = (*Postgres)(nil)
)

// CountTasks implements a2a.TaskCounter.
func (m *Memory) CountTasks(context.Context) (map[a2a.TaskState]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[a2a.TaskState]int{}
	for _, t := range m.tasks {
		out[t.rec.Task.Status.State]++
	}
	return out, nil
}

// countTasksSQL uses the (state, status_ts) index.
const countTasksSQL = `select state, count(*) from a2a_tasks group by state`

// CountTasks implements a2a.TaskCounter.
func (s *SQLite) CountTasks(ctx context.Context) (map[a2a.TaskState]int, error) {
	st, err := s.read(ctx, countTasksSQL)
	if err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	rows, err := st.QueryContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	defer rows.Close()
	out := map[a2a.TaskState]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("store: count tasks: %w", err)
		}
		out[a2a.TaskState(state)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	return out, nil
}

// CountTasks implements a2a.TaskCounter.
func (p *Postgres) CountTasks(ctx context.Context) (map[a2a.TaskState]int, error) {
	rows, err := p.pool.Query(ctx, countTasksSQL)
	if err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	defer rows.Close()
	out := map[a2a.TaskState]int{}
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("store: count tasks: %w", err)
		}
		out[a2a.TaskState(state)] = int(n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	return out, nil
}
