package store

import (
	"context"
	"fmt"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

var (
	_ taskmanager.TaskCounter = (*Memory)(nil)
	_ taskmanager.TaskCounter = (*SQLite)(nil)
	_ taskmanager.TaskCounter = (*Postgres)(nil)
)

// CountTasks implements taskmanager.TaskCounter.
func (m *Memory) CountTasks(context.Context) (map[a2a.TaskState]int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[a2a.TaskState]int64{}
	for _, t := range m.tasks {
		out[t.rec.Task.Status.State]++
	}
	return out, nil
}

// CountTasks implements taskmanager.TaskCounter (the state index answers it).
func (s *SQLite) CountTasks(ctx context.Context) (map[a2a.TaskState]int64, error) {
	rows, err := s.r.QueryContext(ctx, countTasksSQL)
	if err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	defer rows.Close()
	return scanTaskCounts(rows)
}

// CountTasks implements taskmanager.TaskCounter: every replica's tasks, as the
// table holds them.
func (p *Postgres) CountTasks(ctx context.Context) (map[a2a.TaskState]int64, error) {
	rows, err := p.pool.Query(ctx, countTasksSQL)
	if err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	defer rows.Close()
	return scanTaskCounts(rows)
}

const countTasksSQL = `select state, count(*) from a2a_tasks group by state`

// stateCountRows are the rows of countTasksSQL, as database/sql and pgx
// both return them.
type stateCountRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

func scanTaskCounts(rows stateCountRows) (map[a2a.TaskState]int64, error) {
	out := map[a2a.TaskState]int64{}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("store: count tasks: %w", err)
		}
		out[a2a.TaskState(st)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: count tasks: %w", err)
	}
	return out, nil
}
