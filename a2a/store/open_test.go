package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
)

func TestOpenChoosesByURL(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		url      string
		wantType string
		wantFile string
		wantErr  string
	}{
		{"memory", "memory:", "*store.Memory", "", ""},
		{"memory bare", "memory", "*store.Memory", "", ""},
		{"sqlite path", "sqlite:" + filepath.Join(dir, "a.db"), "*store.SQLite", filepath.Join(dir, "a.db"), ""},
		{"sqlite slashes", "sqlite://" + filepath.Join(dir, "b.db"), "*store.SQLite", filepath.Join(dir, "b.db"), ""},
		{"sqlite empty", "sqlite:", "", "", "needs a file path"},
		{"unknown scheme", "mysql://u:secret@db/x", "", "", `unsupported store URL scheme "mysql"`},
		{"empty", "", "", "", "unsupported store URL scheme"},
		{"file path without scheme", "/var/lib/tasks.db", "", "", "unsupported store URL scheme"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, closeFn, err := store.Open(context.Background(), tc.url)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("error leaks the URL's password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer closeFn()
			if got := typeName(s); got != tc.wantType {
				t.Errorf("store type %s, want %s", got, tc.wantType)
			}
			if tc.wantFile != "" {
				if _, err := os.Stat(tc.wantFile); err != nil {
					t.Errorf("sqlite file not created where the URL says: %v", err)
				}
			}
		})
	}
}

func TestOpenPostgresURL(t *testing.T) {
	u := storetest.PostgresSchema(t)
	s, closeFn, err := store.Open(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if got := typeName(s); got != "*store.Postgres" {
		t.Errorf("store type %s, want *store.Postgres", got)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
