package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
)

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// Check reports whether the store named by url (as for [Open]) can be
// opened here, without changing anything: a SQLite file that exists must be
// a database the process can read and write, and one that does not must be
// creatable (its directory exists and is writable); a PostgreSQL server
// must accept a connection and answer (bounded by ctx). The error never
// carries the URL's password.
func Check(ctx context.Context, url string) error {
	switch {
	case url == "memory:" || url == "memory":
		return nil
	case strings.HasPrefix(url, "sqlite:"):
		path, _, err := sqlitePath(url)
		if err != nil {
			return err
		}
		return checkSQLite(path)
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			return errors.New("store: not a valid postgres:// URL")
		}
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return fmt.Errorf("store: cannot connect to PostgreSQL at %s: %w", cfg.Host, err)
		}
		defer conn.Close(context.WithoutCancel(ctx))
		if err := conn.Ping(ctx); err != nil {
			return fmt.Errorf("store: PostgreSQL at %s does not answer: %w", cfg.Host, err)
		}
		return nil
	}
	scheme, _, _ := strings.Cut(url, ":")
	return fmt.Errorf("store: unsupported store URL scheme %q: use memory:, sqlite:PATH or postgres://…", scheme)
}

func checkSQLite(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case err == nil:
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("store: %s: %w", path, errors.Unwrap(err))
		}
		if st.Size() == 0 {
			return nil // SQLite makes an empty file a database
		}
		head := make([]byte, len(sqliteHeader))
		if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteHeader) {
			return fmt.Errorf("store: %s is not a SQLite database: name another file", path)
		}
		return nil
	case errors.Is(err, fs.ErrNotExist):
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("store: cannot open %s for writing: %w", path, err)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("store: directory %s does not exist: create it, or name a file in another one", dir)
	case !st.IsDir():
		return fmt.Errorf("store: %s is not a directory", dir)
	}
	probe, err := os.CreateTemp(dir, ".bridge-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("store: cannot create %s: directory %s: %w", filepath.Base(path), dir, err)
	}
	name := probe.Name()
	probe.Close()
	return os.Remove(name)
}
