package front_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/mcp/front"
)

// TestSetServersAddsDropsAndReplacesWhileServing: a server added at run
// time is served at once, a dropped one's tools go (and its later list
// changes are ignored), a replaced one serves its new upstream under the
// same names, and listeners hear of each change. An invalid list changes
// nothing.
func TestSetServersAddsDropsAndReplacesWhileServing(t *testing.T) {
	files, tickets, kb, kb2 := &fake{}, &fake{}, &fake{}, &fake{}
	files.set("read")
	tickets.set("open")
	kb.set("search")
	kb2.set("search", "fetch")
	src, err := front.New(context.Background(), front.Config{Servers: []front.Server{
		{Name: "files", Upstream: files}, {Name: "kb", Upstream: kb},
	}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	var changes atomic.Int32
	src.OnChange(func() { changes.Add(1) })
	if got := names(src); !slices.Equal(got, []string{"files_read", "kb_search"}) {
		t.Fatalf("tools at start: %v", got)
	}
	err = src.SetServers(context.Background(), []front.Server{
		{Name: "kb", Upstream: kb2}, {Name: "tickets", Upstream: tickets},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(src); !slices.Equal(got, []string{"kb_search", "kb_fetch", "tickets_open"}) {
		t.Fatalf("tools after SetServers: %v", got)
	}
	if changes.Load() == 0 {
		t.Error("no change reported")
	}
	if server, original, ok := src.Lookup("kb_fetch"); !ok || server != "kb" || original != "fetch" {
		t.Errorf("Lookup(kb_fetch) = %q %q %v", server, original, ok)
	}
	// The dropped server's, and the replaced upstream's, later changes
	// are ignored.
	files.set("read", "write")
	kb.set("gone")
	if got := names(src); !slices.Equal(got, []string{"kb_search", "kb_fetch", "tickets_open"}) {
		t.Fatalf("a dropped upstream's change reached the served set: %v", got)
	}
	if err := src.SetServers(context.Background(), []front.Server{{Name: "kb", Upstream: kb2}, {Name: "kb", Upstream: tickets}}); err == nil {
		t.Fatal("a duplicate name was accepted")
	}
	if got := names(src); !slices.Equal(got, []string{"kb_search", "kb_fetch", "tickets_open"}) {
		t.Fatalf("an invalid list changed the served set: %v", got)
	}
}
