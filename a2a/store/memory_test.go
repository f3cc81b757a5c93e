package store_test

import (
	"context"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) a2a.Store { return store.NewMemory() })
}

// TestMemoryUpdateTaskSharesNothingWithCaller mutates the snapshot passed
// to UpdateTask and the record it returned, and checks the stored task and
// event did not change.
func TestMemoryUpdateTaskSharesNothingWithCaller(t *testing.T) {
	ctx := context.Background()
	m := store.NewMemory()
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if err := m.CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	next := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
		History:   []a2a.Message{{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}},
		Artifacts: []a2a.Artifact{{ArtifactID: "a1", Parts: []a2a.Part{a2a.TextPart("out")}}},
		Metadata:  a2a.Metadata{"k": "v"}}
	ev := a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: &next.History[0]}}}
	rec, err := m.UpdateTask(ctx, "alice", next, 1, []a2a.StreamResponse{ev})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range []*a2a.Task{next, &rec.Task} {
		tk.History[0].Parts[0] = a2a.TextPart("changed")
		tk.Artifacts[0].Parts[0] = a2a.TextPart("changed")
		tk.Metadata["k"] = "changed"
	}
	ev.StatusUpdate.Status.Message.MessageID = "changed"
	got, err := m.GetTask(ctx, "alice", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Task.History[0].Parts[0].Text != "hi" || got.Task.Artifacts[0].Parts[0].Text != "out" || got.Task.Metadata["k"] != "v" {
		t.Fatalf("stored task changed through a caller's copy: %+v", got.Task)
	}
	evs, err := m.Events(ctx, "alice", "t1", 0, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events: %v %d", err, len(evs))
	}
	if id := evs[0].Event.StatusUpdate.Status.Message.MessageID; id != "m1" {
		t.Fatalf("stored event changed through the caller's event: %q", id)
	}
}
