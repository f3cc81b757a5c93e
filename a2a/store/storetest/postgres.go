package storetest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var notSchemaName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// PostgresSchema creates a fresh schema, named after the test, on the
// server of $BRIDGE_TEST_POSTGRES_URL and returns that URL with its
// connections' search_path set to the schema; the schema is dropped at
// cleanup. Tests and packages running at once never share tables. The test
// skips when the variable is not set.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv("BRIDGE_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("BRIDGE_TEST_POSTGRES_URL is not set; set it to run the PostgreSQL cases, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	}
	name := strings.ToLower(notSchemaName.ReplaceAllString(t.Name(), "_"))
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	schema := fmt.Sprintf("st_%s_%d", strings.Trim(name, "_"), time.Now().UnixNano()%1e9)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("storetest: connect to BRIDGE_TEST_POSTGRES_URL: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "create schema "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Fatalf("storetest: create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("storetest: drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "drop schema "+pgx.Identifier{schema}.Sanitize()+" cascade"); err != nil {
			t.Errorf("storetest: drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("storetest: BRIDGE_TEST_POSTGRES_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
