package reload

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/a2a-mcp-bridge/bridge/config"
)

// TestConfigChanges names what differs between two configurations, the
// way the reload log line does.
func TestConfigChanges(t *testing.T) {
	base := "auth: {api_keys: [{name: a, sha256: e2186dbdb1bb4193608605e84f33208765b5693b55edd4f730a719a100eeea6f}]}\npolicy: {default: deny}\n"
	parse := func(extra string) *config.Config {
		c, err := config.Parse([]byte(base+extra), "t.yaml")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tt := range []struct {
		name, extra string
		want        []string
	}{
		{"nothing", "", nil},
		{"listen and store", "listen: 127.0.0.1:9999\nstore: \"memory:\"\n", []string{"listen", "public_url", "store"}}, // public_url follows listen by default
		{"server grace", "server: {shutdown_grace: 5s}\n", []string{"server.shutdown_grace"}},
		{"expose path", "expose: {mcp: {path: /m}}\n", []string{"expose.mcp"}},
		{"limits", "limits: {rules: [{per: principal, rate: 10/s}]}\n", []string{"limits"}},
		{"tasks", "tasks: {lease_ttl: 5s}\n", []string{"tasks"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Changes(parse(""), parse(tt.extra))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes = %q, want %q", got, tt.want)
			}
		})
	}
	a, b := parse(""), parse("")
	b.Auth.APIKeys = nil
	if got := Changes(a, b); !reflect.DeepEqual(got, []string{"auth.api_keys"}) {
		t.Errorf("a removed key: %q", got)
	}
	for _, p := range []string{"auth.api_keys", "policy", "keys.signing"} {
		if !SectionIn(p, Reloadable) {
			t.Errorf("%s is not reloadable", p)
		}
	}
	for _, p := range []string{"listen", "store", "server.read_timeout", "expose.mcp"} {
		if SectionIn(p, Reloadable) || SectionIn(p, UpstreamSections) {
			t.Errorf("%s is reloadable", p)
		}
	}
	if !SectionIn("expose.agents", UpstreamSections) || !SectionIn("front.a2a", UpstreamSections) {
		t.Error("upstream lists not handed to reloadUpstreams")
	}
}

// TestWatchFiles_SignalsAContentChange: an edit, a removal and a new
// file are each noticed at the next poll; an unchanged file is not.
func TestWatchFiles_SignalsAContentChange(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.pem")
	if err := os.WriteFile(a, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch := WatchFiles(ctx, time.Second, func() []string { return []string{a, b} })
		poll := func() bool {
			time.Sleep(time.Second + time.Millisecond)
			synctest.Wait()
			select {
			case <-ch:
				return true
			default:
				return false
			}
		}
		if poll() {
			t.Error("signalled with nothing changed")
		}
		for _, change := range []struct {
			name string
			do   func() error
		}{
			{"edit", func() error { return os.WriteFile(a, []byte("two"), 0o600) }},
			{"new file", func() error { return os.WriteFile(b, []byte("key"), 0o600) }},
			{"removal", func() error { return os.Remove(b) }},
		} {
			if err := change.do(); err != nil {
				t.Fatal(err)
			}
			if !poll() {
				t.Errorf("%s not signalled", change.name)
			}
			if poll() {
				t.Errorf("signalled again after the %s with nothing changed", change.name)
			}
		}
		cancel()
		synctest.Wait()
	})
}
