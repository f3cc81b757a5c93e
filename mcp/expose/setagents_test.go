package expose_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/mcp/expose"
)

func aliases(st []expose.Status) []string {
	var out []string
	for _, s := range st {
		out = append(out, s.Alias)
	}
	return out
}

// TestSetAgentsAddsRemovesAndReplacesWhileServing: an agent added at run
// time is listed at once and loaded by the next refresh, a removed one's
// tool goes, an unchanged one keeps its loaded card, and a changed one is
// fetched again; an invalid list changes nothing.
func TestSetAgentsAddsRemovesAndReplacesWhileServing(t *testing.T) {
	d := startDemo(t, nil)
	keep := expose.AgentConfig{Alias: "keep", CardURL: d.cardURL}
	tools, err := expose.New(expose.Config{Agents: []expose.AgentConfig{keep, {Alias: "gone", CardURL: d.cardURL}}, HTTPClient: guardedClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	var changes atomic.Int32
	tools.OnChange(func() { changes.Add(1) })
	gets := d.cardGets.Load()
	err = tools.SetAgents([]expose.AgentConfig{keep, {Alias: "added", CardURL: d.cardURL}})
	if err != nil {
		t.Fatal(err)
	}
	if got := aliases(tools.Statuses()); !slices.Equal(got, []string{"keep", "added"}) {
		t.Fatalf("agents after SetAgents: %v", got)
	}
	if changes.Load() == 0 {
		t.Error("no change reported")
	}
	st := tools.Statuses()
	if !st[0].Loaded || st[1].Loaded {
		t.Fatalf("statuses: %+v", st)
	}
	if _, ok := tools.Hop("gone"); ok {
		t.Error("the removed agent's tool still resolves")
	}
	if n := len(tools.Tools()); n != 2 {
		t.Fatalf("%d tools, want 2 (keep, added)", n)
	}
	if err := tools.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := d.cardGets.Load() - gets; got != 1 {
		t.Errorf("%d card fetches after the refresh, want 1 (only the added agent)", got)
	}
	if st := tools.Statuses(); !st[1].Loaded {
		t.Fatalf("the added agent not loaded: %+v", st)
	}
	if err := tools.SetAgents([]expose.AgentConfig{keep, keep}); err == nil {
		t.Fatal("a duplicate alias was accepted")
	}
	if got := aliases(tools.Statuses()); !slices.Equal(got, []string{"keep", "added"}) {
		t.Fatalf("an invalid list changed the agents: %v", got)
	}
}
