package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Open opens the store a URL names and returns it with the function that
// closes it:
//
//	memory:                          in-process, lost on exit (also "memory")
//	sqlite:PATH or sqlite://PATH     one SQLite file (sqlite:///abs/path for an absolute path);
//	                                 ?synchronous=normal syncs the WAL at checkpoints only (SQLiteSync)
//	postgres://… or postgresql://…   PostgreSQL, shared by replicas
func Open(ctx context.Context, url string) (taskmanager.Store, func() error, error) {
	switch {
	case url == "memory:" || url == "memory":
		m := NewMemory()
		return m, m.Close, nil
	case strings.HasPrefix(url, "sqlite:"):
		path, opts, err := sqlitePath(url)
		if err != nil {
			return nil, nil, err
		}
		s, err := OpenSQLiteWith(ctx, path, opts)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		p, err := OpenPostgres(ctx, url)
		if err != nil {
			return nil, nil, err
		}
		return p, p.Close, nil
	}
	scheme, _, _ := strings.Cut(url, ":")
	return nil, nil, fmt.Errorf("store: unsupported store URL scheme %q: use memory:, sqlite:PATH or postgres://…", scheme)
}
