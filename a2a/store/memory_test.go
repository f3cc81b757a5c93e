package store_test

import (
	"context"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/store/storetest"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) taskmanager.Store { return store.NewMemory() })
}

// TestBareStoreConformance runs the suite on the memory store seen as a
// plain taskmanager.Store (and TaskCounter), none of its optional write
// capabilities visible: the fallbacks of the taskmanager helpers
// (CreateLeasedTask, CreateTaskWithEvents) that stores written elsewhere
// get.
func TestBareStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) taskmanager.Store {
		m := store.NewMemory()
		return struct {
			taskmanager.Store
			taskmanager.TaskCounter // the suite asks every store for it
		}{m, m}
	})
}

// TestMemoryReadsShareNothingWithStore: the writer hands its task and
// events over (see Memory), but what GetTask and Events return is the
// reader's own: changing it, or appending to its lists, leaves the stored
// task and log as they were.
func TestMemoryReadsShareNothingWithStore(t *testing.T) {
	ctx := context.Background()
	m := store.NewMemory()
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted}}
	if err := m.CreateTask(ctx, "alice", task); err != nil {
		t.Fatal(err)
	}
	next := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking},
		History:   make([]a2a.Message, 1, 8), // spare capacity: an append must not reach the store
		Artifacts: []a2a.Artifact{{ArtifactID: "a1", Parts: []a2a.Part{a2a.TextPart("out")}}},
		Metadata:  a2a.Metadata{"k": "v"}}
	next.History[0] = a2a.Message{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}
	ev := a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: &a2a.Message{MessageID: "m1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("hi")}}}}}
	if _, err := m.UpdateTask(ctx, "alice", next, 1, []a2a.StreamResponse{ev}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := m.GetTask(ctx, "alice", "t1")
		if err != nil {
			t.Fatal(err)
		}
		if got.Task.History[0].Parts[0].Text != "hi" || got.Task.Artifacts[0].Parts[0].Text != "out" || got.Task.Metadata["k"] != "v" || len(got.Task.History) != 1 {
			t.Fatalf("stored task changed through a reader's copy: %+v", got.Task)
		}
		got.Task.History[0].Parts[0] = a2a.TextPart("changed")
		got.Task.History = append(got.Task.History, a2a.Message{MessageID: "appended"})
		got.Task.Artifacts[0].Parts[0] = a2a.TextPart("changed")
		got.Task.Metadata["k"] = "changed"

		evs, err := m.Events(ctx, "alice", "t1", 0, 0)
		if err != nil || len(evs) != 1 {
			t.Fatalf("events: %v %d", err, len(evs))
		}
		if id := evs[0].Event.StatusUpdate.Status.Message.MessageID; id != "m1" {
			t.Fatalf("stored event changed through a reader's copy: %q", id)
		}
		evs[0].Event.StatusUpdate.Status.Message.MessageID = "changed"
	}
}
