// Package storetest is the conformance suite of taskmanager.Store implementations.
// Every store (memory, SQLite, PostgreSQL) runs it:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) taskmanager.Store { return openFresh(t) })
//	}
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Run runs the whole suite. open must return an empty store for each call
// and arrange its closing with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) taskmanager.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s taskmanager.Store)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"CreateTwiceIsErrExists", testCreateTwice},
		{"OtherOwnerSeesNothing", testOwnerScoping},
		{"UpdateIsCompareAndSwap", testUpdateCAS},
		{"ConcurrentWritersGetGaplessSeqs", testConcurrentWriters},
		{"EventsPaging", testEventsPaging},
		{"ListTasksFiltersOrderAndPages", testListTasks},
		{"WatchWakesOnUpdateAndCancel", testWatch},
		{"Leases", testLeases},
		{"CreateLeasedTaskTakesBothOrNeither", testCreateLeased},
		{"UpdateTaskReleasingReleasesWithTheUpdate", testUpdateReleasing},
		{"CreateTaskWithEventsIsCreateThenUpdate", testCreateWithEvents},
		{"CancelFlags", testCancelFlags},
		{"PushConfigCRUD", testPushConfigs},
		{"PushCursors", testPushCursors},
		{"PruneDeletesOnlyOldFinishedTasks", testPrune},
		{"OrphansAreUnleasedActiveTasks", testOrphans},
		{"OrphansPageByID", testOrphansPaging},
		{"OrphanedOnceTheLeaseRunsOut", testOrphanedAtLeaseExpiry},
		{"CountTasksByStateOfEveryOwner", testCountTasks},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

const (
	alice = "alice"
	bob   = "bob"
)

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newTask returns a task; ts nil leaves the status timestamp unset.
func newTask(id, contextID string, st a2a.TaskState, ts *time.Time) *a2a.Task {
	return &a2a.Task{
		ID: id, ContextID: contextID,
		Status: a2a.TaskStatus{State: st, Timestamp: ts},
		History: []a2a.Message{{
			MessageID: "m-" + id, Role: a2a.RoleUser, TaskID: id, ContextID: contextID,
			Parts: []a2a.Part{a2a.TextPart("hello " + id)},
		}},
	}
}

func at(d time.Duration) *time.Time {
	ts := base.Add(d)
	return &ts
}

func working(text string) a2a.StreamResponse {
	return a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{
		Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Message: &a2a.Message{
			MessageID: "s-" + text, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)},
		}},
	}}
}

func eventText(e a2a.StreamResponse) string {
	if e.StatusUpdate == nil || e.StatusUpdate.Status.Message == nil || len(e.StatusUpdate.Status.Message.Parts) == 0 {
		return ""
	}
	return e.StatusUpdate.Status.Message.Parts[0].Text
}

func mustCreate(t *testing.T, s taskmanager.Store, owner string, task *a2a.Task) {
	t.Helper()
	if err := s.CreateTask(ctxT(t), owner, task); err != nil {
		t.Fatalf("CreateTask(%s): %v", task.ID, err)
	}
}

// appendEvents writes texts as WORKING events, one UpdateTask each.
func appendEvents(t *testing.T, s taskmanager.Store, owner, id string, texts ...string) *taskmanager.TaskRecord {
	t.Helper()
	ctx := ctxT(t)
	rec, err := s.GetTask(ctx, owner, id)
	if err != nil {
		t.Fatalf("GetTask(%s): %v", id, err)
	}
	for _, txt := range texts {
		next := rec.Task.Clone()
		next.Status.State = a2a.TaskStateWorking
		if rec, err = s.UpdateTask(ctx, owner, next, rec.Version, []a2a.StreamResponse{working(txt)}); err != nil {
			t.Fatalf("UpdateTask(%s): %v", id, err)
		}
	}
	return rec
}

func setState(t *testing.T, s taskmanager.Store, owner, id string, st a2a.TaskState, ts *time.Time) {
	t.Helper()
	ctx := ctxT(t)
	rec, err := s.GetTask(ctx, owner, id)
	if err != nil {
		t.Fatalf("GetTask(%s): %v", id, err)
	}
	next := rec.Task.Clone()
	next.Status = a2a.TaskStatus{State: st, Timestamp: ts}
	ev := a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: id, Status: next.Status}}
	if _, err := s.UpdateTask(ctx, owner, next, rec.Version, []a2a.StreamResponse{ev}); err != nil {
		t.Fatalf("UpdateTask(%s → %s): %v", id, st, err)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("%s: err = %v, want ErrTaskNotFound", what, err)
	}
}

func testCreateAndGet(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	ts := base.Add(123456789 * time.Nanosecond)
	task := newTask("t1", "c1", a2a.TaskStateSubmitted, &ts)
	task.Metadata = a2a.Metadata{"k": "v"}
	mustCreate(t, s, alice, task)
	rec, err := s.GetTask(ctx, alice, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 1 || rec.LastSeq != 0 {
		t.Errorf("new record: version %d last seq %d, want 1 and 0", rec.Version, rec.LastSeq)
	}
	if got, want := jsonOf(t, rec.Task), jsonOf(t, task); got != want {
		t.Errorf("stored task differs:\n got %s\nwant %s", got, want)
	}
	if !rec.Task.Status.Timestamp.Equal(ts) {
		t.Errorf("timestamp %v, want %v (nanoseconds kept)", rec.Task.Status.Timestamp, ts)
	}
	_, err = s.GetTask(ctx, alice, "missing")
	wantNotFound(t, "GetTask(missing)", err)
}

func testCreateTwice(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateSubmitted, at(0)))
	for _, owner := range []string{alice, bob} {
		err := s.CreateTask(ctx, owner, newTask("t1", "c2", a2a.TaskStateSubmitted, at(1)))
		if !errors.Is(err, taskmanager.ErrExists) {
			t.Errorf("second CreateTask by %s: err = %v, want ErrExists", owner, err)
		}
	}
	rec, err := s.GetTask(ctx, alice, "t1")
	if err != nil || rec.Task.ContextID != "c1" {
		t.Errorf("first task changed: %+v, %v", rec, err)
	}
}

func testOwnerScoping(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateSubmitted, at(0)))
	appendEvents(t, s, alice, "t1", "one")
	cfg := &a2a.TaskPushNotificationConfig{ID: "p1", TaskID: "t1", URL: "https://hooks.example/a"}
	if err := s.PutPushConfig(ctx, alice, cfg); err != nil {
		t.Fatal(err)
	}

	_, err := s.GetTask(ctx, bob, "t1")
	wantNotFound(t, "GetTask", err)
	next := newTask("t1", "c1", a2a.TaskStateCompleted, at(5))
	_, err = s.UpdateTask(ctx, bob, next, 2, []a2a.StreamResponse{working("bob")})
	wantNotFound(t, "UpdateTask", err)
	_, err = s.Events(ctx, bob, "t1", 0, 0)
	wantNotFound(t, "Events", err)
	wantNotFound(t, "PutPushConfig", s.PutPushConfig(ctx, bob, &a2a.TaskPushNotificationConfig{ID: "p2", TaskID: "t1", URL: "https://evil.example/"}))
	wantNotFound(t, "PutPushConfig replacing", s.PutPushConfig(ctx, bob, &a2a.TaskPushNotificationConfig{ID: "p1", TaskID: "t1", URL: "https://evil.example/"}))
	_, err = s.GetPushConfig(ctx, bob, "t1", "p1")
	wantNotFound(t, "GetPushConfig", err)
	_, err = s.ListPushConfigs(ctx, bob, "t1")
	wantNotFound(t, "ListPushConfigs", err)
	wantNotFound(t, "DeletePushConfig", s.DeletePushConfig(ctx, bob, "t1", "p1"))
	wantNotFound(t, "AdvancePush", s.AdvancePush(ctx, bob, "t1", "p1", 99))
	wantNotFound(t, "FailPush", s.FailPush(ctx, bob, "t1", "p1", base, "x"))

	page, err := s.ListTasks(ctx, bob, taskmanager.TaskQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tasks) != 0 || page.Total != 0 || page.More {
		t.Errorf("bob lists %d tasks (total %d), want none", len(page.Tasks), page.Total)
	}

	// Nothing bob did changed alice's task.
	rec, err := s.GetTask(ctx, alice, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 2 || rec.LastSeq != 1 || rec.Task.Status.State != a2a.TaskStateWorking {
		t.Errorf("alice's task after bob: version %d seq %d state %s", rec.Version, rec.LastSeq, rec.Task.Status.State)
	}
	got, err := s.GetPushConfig(ctx, alice, "t1", "p1")
	if err != nil || got.URL != cfg.URL {
		t.Errorf("alice's push config after bob: %+v, %v", got, err)
	}
	list, err := s.ListPushConfigs(ctx, alice, "t1")
	if err != nil || len(list) != 1 {
		t.Errorf("alice's push configs after bob: %+v, %v", list, err)
	}
}

func testUpdateCAS(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateSubmitted, at(0)))
	next := newTask("t1", "c1", a2a.TaskStateWorking, at(1))
	rec, err := s.UpdateTask(ctx, alice, next, 1, []a2a.StreamResponse{working("a"), working("b")})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 2 || rec.LastSeq != 2 || rec.Task.Status.State != a2a.TaskStateWorking {
		t.Errorf("after update: version %d seq %d state %s, want 2, 2, WORKING", rec.Version, rec.LastSeq, rec.Task.Status.State)
	}
	stale := newTask("t1", "c1", a2a.TaskStateCompleted, at(2))
	if _, err := s.UpdateTask(ctx, alice, stale, 1, []a2a.StreamResponse{working("stale")}); !errors.Is(err, taskmanager.ErrConflict) {
		t.Errorf("stale update: err = %v, want ErrConflict", err)
	}
	// An update without events moves the version, not the log.
	rec, err = s.UpdateTask(ctx, alice, next, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != 3 || rec.LastSeq != 2 {
		t.Errorf("update without events: version %d seq %d, want 3 and 2", rec.Version, rec.LastSeq)
	}
	got, err := s.GetTask(ctx, alice, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 3 || got.LastSeq != 2 || got.Task.Status.State != a2a.TaskStateWorking {
		t.Errorf("stored: version %d seq %d state %s; the stale write must not land", got.Version, got.LastSeq, got.Task.Status.State)
	}
	evs, err := s.Events(ctx, alice, "t1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || eventText(evs[0].Event) != "a" || eventText(evs[1].Event) != "b" {
		t.Errorf("events = %+v, want a, b", evs)
	}
	_, err = s.UpdateTask(ctx, alice, newTask("nope", "c", a2a.TaskStateWorking, at(0)), 1, nil)
	wantNotFound(t, "UpdateTask(missing)", err)
}

func testConcurrentWriters(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	const writers, each = 8, 20
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateSubmitted, at(0)))
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				text := fmt.Sprintf("w%d-%d", w, i)
				for {
					rec, err := s.GetTask(ctx, alice, "t1")
					if err != nil {
						errs <- err
						return
					}
					next := rec.Task.Clone()
					next.Status.State = a2a.TaskStateWorking
					next.Metadata = a2a.Metadata{"last": text}
					evs := []a2a.StreamResponse{working(text)}
					if i%5 == 0 {
						evs = append(evs, working(text+"+"))
					}
					_, err = s.UpdateTask(ctx, alice, next, rec.Version, evs)
					if err == nil {
						break
					}
					if !errors.Is(err, taskmanager.ErrConflict) {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	total := writers * (each + each/5)
	rec, err := s.GetTask(ctx, alice, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if rec.LastSeq != int64(total) || rec.Version != int64(1+writers*each) {
		t.Errorf("record: last seq %d version %d, want %d and %d", rec.LastSeq, rec.Version, total, 1+writers*each)
	}
	evs, err := s.Events(ctx, alice, "t1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != total {
		t.Fatalf("%d events, want %d", len(evs), total)
	}
	seen := map[string]int64{}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: gap or reordering", i, e.Seq)
		}
		txt := eventText(e.Event)
		if _, dup := seen[txt]; dup {
			t.Fatalf("event %q stored twice", txt)
		}
		seen[txt] = e.Seq
	}
	for w := range writers {
		for i := range each {
			text := fmt.Sprintf("w%d-%d", w, i)
			seq, ok := seen[text]
			if !ok {
				t.Fatalf("event %q lost", text)
			}
			if i%5 == 0 && seen[text+"+"] != seq+1 {
				t.Fatalf("events of one update are not adjacent: %q at %d, %q at %d", text, seq, text+"+", seen[text+"+"])
			}
			if i > 0 && seen[fmt.Sprintf("w%d-%d", w, i-1)] > seq {
				t.Fatalf("writer %d's events reordered", w)
			}
		}
	}
}

func testEventsPaging(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateSubmitted, at(0)))
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = fmt.Sprintf("e%d", i+1)
	}
	appendEvents(t, s, alice, "t1", texts...)
	tests := []struct {
		after      int64
		limit      int
		first, end int64 // expected seqs first..end, end < first for none
	}{
		{0, 0, 1, 10},
		{0, 3, 1, 3},
		{3, 4, 4, 7},
		{8, 10, 9, 10},
		{10, 5, 1, 0},
		{42, 0, 1, 0},
	}
	for _, tc := range tests {
		evs, err := s.Events(ctx, alice, "t1", tc.after, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for q := tc.first; q <= tc.end; q++ {
			want = append(want, q)
		}
		var got []int64
		for _, e := range evs {
			got = append(got, e.Seq)
			if eventText(e.Event) != fmt.Sprintf("e%d", e.Seq) {
				t.Errorf("seq %d carries %q", e.Seq, eventText(e.Event))
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Events(after %d, limit %d) = %v, want %v", tc.after, tc.limit, got, want)
		}
	}
	_, err := s.Events(ctx, alice, "missing", 0, 0)
	wantNotFound(t, "Events(missing)", err)
}

func testListTasks(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	rng := rand.New(rand.NewPCG(1, 2))
	states := []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateInputRequired}
	var all []*a2a.Task
	for i := range 40 {
		var ts *time.Time
		switch {
		case i%13 == 0:
			// no timestamp: sorts last
		case i%4 == 0:
			ts = at(time.Duration(i/4) * time.Second) // ties broken by id
		default:
			ts = at(time.Duration(rng.IntN(20))*time.Second + time.Duration(rng.IntN(1000))) // nanoseconds matter
		}
		task := newTask(fmt.Sprintf("t%02d-%d", rng.IntN(100), i), fmt.Sprintf("c%d", i%3), states[i%len(states)], ts)
		mustCreate(t, s, alice, task)
		all = append(all, task)
	}
	mustCreate(t, s, bob, newTask("bob-task", "c0", a2a.TaskStateWorking, at(0)))
	from := base.Add(7*time.Second + 500)
	queries := []struct {
		name string
		q    taskmanager.TaskQuery
	}{
		{"all", taskmanager.TaskQuery{}},
		{"context", taskmanager.TaskQuery{ContextID: "c1"}},
		{"status", taskmanager.TaskQuery{Status: a2a.TaskStateWorking}},
		{"updated from", taskmanager.TaskQuery{UpdatedFrom: &from}},
		{"all filters", taskmanager.TaskQuery{ContextID: "c0", Status: a2a.TaskStateSubmitted, UpdatedFrom: &from}},
		{"no match", taskmanager.TaskQuery{ContextID: "nope"}},
	}
	for _, qc := range queries {
		for _, limit := range []int{0, 1, 3, 7, 100} {
			t.Run(fmt.Sprintf("%s/limit %d", qc.name, limit), func(t *testing.T) {
				var want []string
				var ref []*a2a.Task
				for _, task := range all {
					if taskmanager.MatchesQuery(task, qc.q) {
						ref = append(ref, task)
					}
				}
				sort.Slice(ref, func(i, j int) bool { return taskmanager.ListOrderLess(ref[i], ref[j]) })
				for _, task := range ref {
					want = append(want, task.ID)
				}
				var got []string
				q := qc.q
				q.Limit = limit
				for pages := 0; ; pages++ {
					if pages > len(all)+1 {
						t.Fatal("paging does not end")
					}
					page, err := s.ListTasks(ctx, alice, q)
					if err != nil {
						t.Fatal(err)
					}
					if page.Total != len(want) {
						t.Errorf("Total = %d, want %d", page.Total, len(want))
					}
					if limit > 0 && len(page.Tasks) > limit {
						t.Fatalf("page of %d tasks, limit %d", len(page.Tasks), limit)
					}
					for i := range page.Tasks {
						got = append(got, page.Tasks[i].ID)
					}
					wantMore := len(got) < len(want)
					if page.More != wantMore {
						t.Fatalf("More = %v after %d of %d tasks", page.More, len(got), len(want))
					}
					if !page.More {
						break
					}
					last := page.Tasks[len(page.Tasks)-1]
					c := taskmanager.Cursor{ID: last.ID}
					if last.Status.Timestamp != nil {
						c.Updated = *last.Status.Timestamp
					}
					q.After = &c
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("listed\n %v\nwant\n %v", got, want)
				}
			})
		}
	}
	// Listed tasks are whole snapshots.
	page, err := s.ListTasks(ctx, alice, taskmanager.TaskQuery{Limit: 1})
	if err != nil || len(page.Tasks) != 1 {
		t.Fatalf("ListTasks: %+v, %v", page, err)
	}
	for _, task := range all {
		if task.ID == page.Tasks[0].ID {
			if got, want := jsonOf(t, page.Tasks[0]), jsonOf(t, task); got != want {
				t.Errorf("listed task differs:\n got %s\nwant %s", got, want)
			}
		}
	}
}

// waitSignal fails the test if ch stays silent for long; it never asserts
// a duration, it only bounds a hang.
func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("no wake-up after %s", what)
	}
}

func testWatch(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateSubmitted, at(0)))
	mustCreate(t, s, alice, newTask("t2", "c1", a2a.TaskStateSubmitted, at(0)))
	ch, stop := s.Watch(ctx, "t1")
	defer stop()
	other, stopOther := s.Watch(ctx, "t2")
	defer stopOther()
	drain := func(c <-chan struct{}) {
		for {
			select {
			case <-c:
			default:
				return
			}
		}
	}
	drain(ch)
	appendEvents(t, s, alice, "t1", "x")
	waitSignal(t, ch, "UpdateTask")
	evs, err := s.Events(ctx, alice, "t1", 0, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("after the wake-up the event is readable: %v, %v", evs, err)
	}
	drain(ch)
	if err := s.RequestCancel(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitSignal(t, ch, "RequestCancel")

	// A second watcher of the same task is woken too.
	ch2, stop2 := s.Watch(ctx, "t1")
	drain(ch)
	drain(ch2)
	appendEvents(t, s, alice, "t1", "y")
	waitSignal(t, ch, "UpdateTask (first watcher)")
	waitSignal(t, ch2, "UpdateTask (second watcher)")
	stop2()
	stop2() // stop is idempotent

	// t2's watcher heard none of it; give stray signals a moment by
	// round-tripping a wake-up of t2 itself after t1's writes.
	drain(other)
	appendEvents(t, s, alice, "t2", "z")
	waitSignal(t, other, "UpdateTask of t2")
}

// testCreateLeased pins taskmanager.LeasedTaskCreator, on the stores that are one:
// the task and its run lease, both or neither.
func testCreateLeased(t *testing.T, s taskmanager.Store) {
	if _, ok := s.(taskmanager.LeasedTaskCreator); !ok {
		t.Skip("the store is not an taskmanager.LeasedTaskCreator")
	}
	ctx := ctxT(t)
	long := time.Minute
	if err := taskmanager.CreateLeasedTask(ctx, s, alice, newTask("l1", "c1", a2a.TaskStateSubmitted, at(0)), "h1", long); err != nil {
		t.Fatalf("create leased: %v", err)
	}
	rec, err := s.GetTask(ctx, alice, "l1")
	if err != nil || rec.Version != 1 || rec.Task.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("created task: %+v, %v", rec, err)
	}
	if ok, err := s.AcquireLease(ctx, "l1", "h2", long); err != nil || ok {
		t.Fatalf("lease of the created task taken by another holder: %v, %v", ok, err)
	}
	if refs, err := s.Orphans(ctx, "", 10); err != nil || len(refs) != 0 {
		t.Fatalf("a task created with its lease is an orphan: %v, %v", refs, err)
	}
	// The task exists: ErrExists, and the lease stays h1's.
	if err := taskmanager.CreateLeasedTask(ctx, s, alice, newTask("l1", "c1", a2a.TaskStateSubmitted, at(0)), "h3", long); !errors.Is(err, taskmanager.ErrExists) {
		t.Fatalf("create leased of an existing task = %v, want ErrExists", err)
	}
	if ok, err := s.RenewLease(ctx, "l1", "h1", long); err != nil || !ok {
		t.Fatalf("the first holder lost the lease to a refused create: %v, %v", ok, err)
	}
	// Another holder's live lease: ErrLeaseHeld, and no task.
	if ok, err := s.AcquireLease(ctx, "l2", "h2", long); err != nil || !ok {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	if err := taskmanager.CreateLeasedTask(ctx, s, alice, newTask("l2", "c1", a2a.TaskStateSubmitted, at(0)), "h1", long); !errors.Is(err, taskmanager.ErrLeaseHeld) {
		t.Fatalf("create leased under another holder's lease = %v, want ErrLeaseHeld", err)
	}
	if _, err := s.GetTask(ctx, alice, "l2"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("task created without its lease: %v", err)
	}
	// The holder's own lease, taken before: the task is created under it.
	if err := taskmanager.CreateLeasedTask(ctx, s, alice, newTask("l2", "c1", a2a.TaskStateSubmitted, at(0)), "h2", long); err != nil {
		t.Fatalf("create leased under the holder's own lease: %v", err)
	}
	// An expired lease of another holder is taken over.
	if ok, err := s.AcquireLease(ctx, "l3", "h2", 20*time.Millisecond); err != nil || !ok {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	time.Sleep(60 * time.Millisecond)
	if err := taskmanager.CreateLeasedTask(ctx, s, bob, newTask("l3", "c1", a2a.TaskStateWorking, at(0)), "h1", long); err != nil {
		t.Fatalf("create leased after another holder's lease expired: %v", err)
	}
	if _, err := s.GetTask(ctx, bob, "l3"); err != nil {
		t.Fatalf("task of bob: %v", err)
	}
}

// testCreateWithEvents pins taskmanager.CreateTaskWithEvents (one write on
// the stores that are a taskmanager.EventfulTaskCreator, two on the
// others): the store holds what CreateTask (or CreateLeasedTask) and then
// UpdateTask at version 1 would leave, the lease taken only with a holder,
// and both or neither.
func testCreateWithEvents(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	long := time.Minute
	artifact := func(id string) a2a.StreamResponse {
		return a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: id, ContextID: "c1",
			Artifact: a2a.Artifact{ArtifactID: "a-" + id, Name: "result", Parts: []a2a.Part{a2a.TextPart("42")}}, LastChunk: true}}
	}
	status := func(id string, st a2a.TaskState, d time.Duration) a2a.StreamResponse {
		return a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: "c1", Status: a2a.TaskStatus{State: st, Timestamp: at(d)}}}
	}
	cases := []struct {
		name, id, holder string
		state            a2a.TaskState
		events           func(id string) []a2a.StreamResponse
		leased           bool
	}{
		{"running, with its lease", "e1", "h1", a2a.TaskStateWorking,
			func(id string) []a2a.StreamResponse { return []a2a.StreamResponse{working("calling")} }, true},
		{"finished, with no lease", "e2", "", a2a.TaskStateCompleted,
			func(id string) []a2a.StreamResponse {
				return []a2a.StreamResponse{artifact(id), status(id, a2a.TaskStateCompleted, time.Second)}
			}, false},
		{"interrupted, with its lease", "e3", "h1", a2a.TaskStateInputRequired,
			func(id string) []a2a.StreamResponse {
				return []a2a.StreamResponse{working("asking"), status(id, a2a.TaskStateInputRequired, time.Second)}
			}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			created := newTask(tc.id, "c1", a2a.TaskStateSubmitted, at(0))
			final := newTask(tc.id, "c1", tc.state, at(time.Second))
			evs := tc.events(tc.id)
			if tc.state == a2a.TaskStateCompleted {
				final.Artifacts = []a2a.Artifact{evs[0].ArtifactUpdate.Artifact}
			}
			want := jsonOf(t, evs)
			changes, stop := s.Watch(ctx, tc.id)
			defer stop()
			rec, err := taskmanager.CreateTaskWithEvents(ctx, s, alice, created, final, evs, tc.holder, long)
			if err != nil {
				t.Fatalf("CreateTaskWithEvents: %v", err)
			}
			if rec.Version != 2 || rec.LastSeq != int64(len(evs)) || jsonOf(t, rec.Task) != jsonOf(t, final) {
				t.Fatalf("returned record: version %d, last seq %d, task %s; want 2, %d, %s", rec.Version, rec.LastSeq, jsonOf(t, rec.Task), len(evs), jsonOf(t, final))
			}
			waitSignal(t, changes, "CreateTaskWithEvents")
			got, err := s.GetTask(ctx, alice, tc.id)
			if err != nil || got.Version != 2 || got.LastSeq != int64(len(evs)) || jsonOf(t, got.Task) != jsonOf(t, final) {
				t.Fatalf("stored record: %+v, %v", got, err)
			}
			stored, err := s.Events(ctx, alice, tc.id, 0, 0)
			if err != nil || len(stored) != len(evs) {
				t.Fatalf("events: %d, %v; want %d", len(stored), err, len(evs))
			}
			var gotEvs []a2a.StreamResponse
			for i, e := range stored {
				if e.Seq != int64(i+1) {
					t.Errorf("event %d has seq %d", i, e.Seq)
				}
				gotEvs = append(gotEvs, e.Event)
			}
			if g := jsonOf(t, gotEvs); g != want {
				t.Errorf("events = %s\nwant %s", g, want)
			}
			ok, err := s.AcquireLease(ctx, tc.id, "h2", long)
			if err != nil || ok == tc.leased {
				t.Errorf("another holder took the lease = %v, %v; the task is leased: %v", ok, err, tc.leased)
			}
			// The log goes on from there.
			if tc.state != a2a.TaskStateCompleted {
				next := got.Task.Clone()
				next.Status.State = a2a.TaskStateWorking
				nrec, err := s.UpdateTask(ctx, alice, next, 2, []a2a.StreamResponse{working("more")})
				if err != nil || nrec.Version != 3 || nrec.LastSeq != int64(len(evs))+1 {
					t.Fatalf("UpdateTask after: %+v, %v", nrec, err)
				}
			}
		})
	}
	one := func(id string) []a2a.StreamResponse { return []a2a.StreamResponse{working("x")} }
	// The task exists: ErrExists, and the task and lease stay as they were.
	// (The two writes of a store that is not an EventfulTaskCreator try the
	// lease first, held by h1: ErrLeaseHeld.)
	_, eventful := s.(taskmanager.EventfulTaskCreator)
	if _, err := taskmanager.CreateTaskWithEvents(ctx, s, alice, newTask("e1", "c1", a2a.TaskStateSubmitted, at(0)),
		newTask("e1", "c1", a2a.TaskStateWorking, at(0)), one("e1"), "h3", long); !errors.Is(err, taskmanager.ErrExists) &&
		(eventful || !errors.Is(err, taskmanager.ErrLeaseHeld)) {
		t.Fatalf("create with events of an existing task = %v, want ErrExists", err)
	}
	if _, err := taskmanager.CreateTaskWithEvents(ctx, s, alice, newTask("e2", "c1", a2a.TaskStateSubmitted, at(0)),
		newTask("e2", "c1", a2a.TaskStateCompleted, at(0)), one("e2"), "", long); !errors.Is(err, taskmanager.ErrExists) {
		t.Fatalf("create with events of an existing task, no holder = %v, want ErrExists", err)
	}
	if ok, err := s.RenewLease(ctx, "e1", "h1", long); err != nil || !ok {
		t.Fatalf("the holder lost the lease to a refused create: %v, %v", ok, err)
	}
	if rec, err := s.GetTask(ctx, alice, "e2"); err != nil || rec.Version != 2 || rec.LastSeq != 2 {
		t.Fatalf("a refused create changed the task: %+v, %v", rec, err)
	}
	// Another holder's live lease: ErrLeaseHeld, and no task.
	if ok, err := s.AcquireLease(ctx, "e4", "h2", long); err != nil || !ok {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	if _, err := taskmanager.CreateTaskWithEvents(ctx, s, alice, newTask("e4", "c1", a2a.TaskStateSubmitted, at(0)),
		newTask("e4", "c1", a2a.TaskStateWorking, at(0)), one("e4"), "h1", long); !errors.Is(err, taskmanager.ErrLeaseHeld) {
		t.Fatalf("create with events under another holder's lease = %v, want ErrLeaseHeld", err)
	}
	wantNotFound(t, "task created without its lease", func() error { _, err := s.GetTask(ctx, alice, "e4"); return err }())
	if refs, err := s.Orphans(ctx, "", 10); err != nil || len(refs) != 0 {
		t.Fatalf("orphans after creates with events: %v, %v", refs, err)
	}
}

// testUpdateReleasing pins taskmanager.LeaseReleasingUpdater, on the stores that
// are one: the holder's lease goes with a stored update, stays with a
// refused one, and another holder's lease is never touched.
func testUpdateReleasing(t *testing.T, s taskmanager.Store) {
	lr, ok := s.(taskmanager.LeaseReleasingUpdater)
	if !ok {
		t.Skip("the store is not an taskmanager.LeaseReleasingUpdater")
	}
	ctx := ctxT(t)
	long := time.Minute
	task := newTask("r1", "c1", a2a.TaskStateWorking, at(0))
	if err := taskmanager.CreateLeasedTask(ctx, s, alice, task, "h1", long); err != nil {
		t.Fatal(err)
	}
	done := *task
	done.Status = a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: at(time.Second)}
	ev := a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "r1", ContextID: "c1", Status: done.Status}}
	// A stale version: refused, the lease kept.
	if _, err := lr.UpdateTaskReleasing(ctx, alice, &done, 7, []a2a.StreamResponse{ev}, "h1"); !errors.Is(err, taskmanager.ErrConflict) {
		t.Fatalf("stale update = %v, want ErrConflict", err)
	}
	if ok, err := s.AcquireLease(ctx, "r1", "h2", long); err != nil || ok {
		t.Fatalf("the lease went with a refused update: %v, %v", ok, err)
	}
	// Another holder's name releases nothing.
	other := *task
	other.Status.Timestamp = at(500 * time.Millisecond)
	if _, err := lr.UpdateTaskReleasing(ctx, alice, &other, 1, nil, "h2"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.AcquireLease(ctx, "r1", "h2", long); err != nil || ok {
		t.Fatalf("an update naming another holder released h1's lease: %v, %v", ok, err)
	}
	rec, err := lr.UpdateTaskReleasing(ctx, alice, &done, 2, []a2a.StreamResponse{ev}, "h1")
	if err != nil || rec.Version != 3 || rec.LastSeq != 1 {
		t.Fatalf("update = %+v, %v", rec, err)
	}
	if got, err := s.GetTask(ctx, alice, "r1"); err != nil || got.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("stored: %+v, %v", got, err)
	}
	if evs, err := s.Events(ctx, alice, "r1", 0, 0); err != nil || len(evs) != 1 {
		t.Fatalf("events: %+v, %v", evs, err)
	}
	if ok, err := s.AcquireLease(ctx, "r1", "h2", long); err != nil || !ok {
		t.Fatalf("the lease stayed after the releasing update: %v, %v", ok, err)
	}
}

func testLeases(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	long := time.Minute
	ok, err := s.AcquireLease(ctx, "t1", "h1", long)
	if err != nil || !ok {
		t.Fatalf("first acquire: %v, %v", ok, err)
	}
	if ok, err := s.AcquireLease(ctx, "t1", "h2", long); err != nil || ok {
		t.Fatalf("acquire of a held lease by another holder: %v, %v; want false", ok, err)
	}
	if ok, err := s.AcquireLease(ctx, "t1", "h1", long); err != nil || !ok {
		t.Fatalf("re-acquire by the holder: %v, %v; want true", ok, err)
	}
	if ok, err := s.RenewLease(ctx, "t1", "h1", long); err != nil || !ok {
		t.Fatalf("renew by the holder: %v, %v", ok, err)
	}
	if ok, err := s.RenewLease(ctx, "t1", "h2", long); err != nil || ok {
		t.Fatalf("renew by another holder: %v, %v; want false", ok, err)
	}
	if err := s.ReleaseLease(ctx, "t1", "h2"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.AcquireLease(ctx, "t1", "h2", long); ok {
		t.Fatal("release by a non-holder freed the lease")
	}
	if err := s.ReleaseLease(ctx, "t1", "h1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RenewLease(ctx, "t1", "h1", long); err != nil || ok {
		t.Fatalf("renew after release: %v, %v; want false", ok, err)
	}
	if ok, err := s.AcquireLease(ctx, "t1", "h2", long); err != nil || !ok {
		t.Fatalf("acquire after release: %v, %v", ok, err)
	}
	// Leases of different tasks are independent.
	if ok, err := s.AcquireLease(ctx, "t2", "h1", long); err != nil || !ok {
		t.Fatalf("acquire of another task: %v, %v", ok, err)
	}

	// Expiry: h1 takes t3 for a moment; h2 gets it once that has passed.
	if ok, err := s.AcquireLease(ctx, "t3", "h1", 30*time.Millisecond); err != nil || !ok {
		t.Fatalf("short acquire: %v, %v", ok, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := s.AcquireLease(ctx, "t3", "h2", long)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an expired lease is never taken over")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ok, err := s.RenewLease(ctx, "t3", "h1", long); err != nil || ok {
		t.Fatalf("renew of a lease taken over: %v, %v; want false", ok, err)
	}
	// An expired lease cannot be renewed, even by its holder.
	if ok, err := s.AcquireLease(ctx, "t4", "h1", time.Millisecond); err != nil || !ok {
		t.Fatalf("short acquire: %v, %v", ok, err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; {
		ok, err := s.AcquireLease(ctx, "t4", "probe", 0)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			break // expired (the probe's zero-length lease is expired at once)
		}
		if time.Now().After(deadline) {
			t.Fatal("a 1ms lease never expires")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ok, err := s.RenewLease(ctx, "t4", "h1", long); err != nil || ok {
		t.Fatalf("renew of an expired lease: %v, %v; want false", ok, err)
	}
}

func testCancelFlags(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateWorking, at(0)))
	if yes, err := s.CancelRequested(ctx, "t1"); err != nil || yes {
		t.Fatalf("fresh flag: %v, %v", yes, err)
	}
	for range 2 { // setting twice is fine
		if err := s.RequestCancel(ctx, "t1"); err != nil {
			t.Fatal(err)
		}
	}
	if yes, err := s.CancelRequested(ctx, "t1"); err != nil || !yes {
		t.Fatalf("after RequestCancel: %v, %v", yes, err)
	}
	if yes, err := s.CancelRequested(ctx, "t2"); err != nil || yes {
		t.Fatalf("another task's flag: %v, %v", yes, err)
	}
}

func testPushConfigs(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateWorking, at(0)))
	mustCreate(t, s, alice, newTask("t2", "c1", a2a.TaskStateWorking, at(0)))
	ids := []string{"zz", "aa", "mm"} // creation order, not id order
	for _, id := range ids {
		cfg := &a2a.TaskPushNotificationConfig{ID: id, TaskID: "t1", URL: "https://hooks.example/" + id, Token: "tok-" + id,
			Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "secret-" + id}}
		if err := s.PutPushConfig(ctx, alice, cfg); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutPushConfig(ctx, alice, &a2a.TaskPushNotificationConfig{ID: "zz", TaskID: "t2", URL: "https://other.example/"}); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, "PutPushConfig on a missing task", s.PutPushConfig(ctx, alice, &a2a.TaskPushNotificationConfig{ID: "x", TaskID: "nope", URL: "https://x.example/"}))
	// The protocol version a config was registered in is kept with it
	// (deliveries to a config of A2A 0.3 take its shape).
	if err := s.PutPushConfig(ctx, alice, &a2a.TaskPushNotificationConfig{ID: "v03", TaskID: "t2", URL: "https://old.example/", Version: "0.3"}); err != nil {
		t.Fatal(err)
	}
	if c, err := s.GetPushConfig(ctx, alice, "t2", "v03"); err != nil || c.Version != "0.3" {
		t.Fatalf("GetPushConfig of a 0.3 config: version %q, %v", c.Version, err)
	}
	for _, d := range dueKeys(t, s, time.Now().Add(time.Hour)) {
		if d.Config.ID == "v03" && d.Config.Version != "0.3" {
			t.Fatalf("DuePushes lost the version of a 0.3 config: %+v", d.Config)
		}
	}
	if err := s.DeletePushConfig(ctx, alice, "t2", "v03"); err != nil {
		t.Fatal(err)
	}

	list, err := s.ListPushConfigs(ctx, alice, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list {
		got = append(got, c.ID)
	}
	if !reflect.DeepEqual(got, ids) {
		t.Errorf("list order %v, want creation order %v", got, ids)
	}
	c, err := s.GetPushConfig(ctx, alice, "t1", "aa")
	if err != nil {
		t.Fatal(err)
	}
	want := a2a.TaskPushNotificationConfig{ID: "aa", TaskID: "t1", URL: "https://hooks.example/aa", Token: "tok-aa",
		Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "secret-aa"}}
	if jsonOf(t, c) != jsonOf(t, want) {
		t.Errorf("GetPushConfig = %s, want %s", jsonOf(t, c), jsonOf(t, want))
	}
	// Putting an existing id replaces it in place.
	repl := &a2a.TaskPushNotificationConfig{ID: "zz", TaskID: "t1", URL: "https://hooks.example/new"}
	if err := s.PutPushConfig(ctx, alice, repl); err != nil {
		t.Fatal(err)
	}
	list, _ = s.ListPushConfigs(ctx, alice, "t1")
	if len(list) != 3 || list[0].ID != "zz" || list[0].URL != repl.URL || list[0].Token != "" {
		t.Errorf("after replacing zz: %+v", list)
	}
	if err := s.DeletePushConfig(ctx, alice, "t1", "aa"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePushConfig(ctx, alice, "t1", "aa"); err != nil {
		t.Errorf("deleting a missing config: %v, want nil", err)
	}
	_, err = s.GetPushConfig(ctx, alice, "t1", "aa")
	wantNotFound(t, "GetPushConfig(deleted)", err)
	list, _ = s.ListPushConfigs(ctx, alice, "t1")
	if len(list) != 2 || list[0].ID != "zz" || list[1].ID != "mm" {
		t.Errorf("after delete: %+v", list)
	}
	// The other task's config of the same id is untouched.
	if c, err := s.GetPushConfig(ctx, alice, "t2", "zz"); err != nil || c.URL != "https://other.example/" {
		t.Errorf("t2's zz: %+v, %v", c, err)
	}
	list, err = s.ListPushConfigs(ctx, alice, "t2")
	if err != nil || len(list) != 1 {
		t.Errorf("t2's list: %+v, %v", list, err)
	}
}

func dueKeys(t *testing.T, s taskmanager.Store, now time.Time) map[string]taskmanager.PushDue {
	t.Helper()
	due, err := s.DuePushes(ctxT(t), now, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]taskmanager.PushDue{}
	for _, d := range due {
		out[d.Config.TaskID+"/"+d.Config.ID] = d
	}
	return out
}

func testPushCursors(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	now := base.Add(time.Hour)
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateWorking, at(0)))
	mustCreate(t, s, bob, newTask("t2", "c1", a2a.TaskStateWorking, at(0)))
	appendEvents(t, s, alice, "t1", "a", "b")
	if err := s.PutPushConfig(ctx, alice, &a2a.TaskPushNotificationConfig{ID: "p1", TaskID: "t1", URL: "https://hooks.example/1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPushConfig(ctx, bob, &a2a.TaskPushNotificationConfig{ID: "p2", TaskID: "t2", URL: "https://hooks.example/2"}); err != nil {
		t.Fatal(err)
	}
	if d := dueKeys(t, s, now); len(d) != 0 {
		t.Fatalf("configs without new events are due: %+v (a new config starts at the task's last event)", d)
	}
	appendEvents(t, s, alice, "t1", "c", "d")
	appendEvents(t, s, bob, "t2", "x")
	d := dueKeys(t, s, now)
	if len(d) != 2 {
		t.Fatalf("due = %+v, want t1/p1 and t2/p2", d)
	}
	p1 := d["t1/p1"]
	if p1.Owner != alice || p1.Delivered != 2 || p1.LastSeq != 4 || p1.Attempts != 0 || p1.Config.URL != "https://hooks.example/1" {
		t.Errorf("t1/p1 due = %+v, want owner alice, delivered 2, last seq 4", p1)
	}
	if p2 := d["t2/p2"]; p2.Owner != bob || p2.Delivered != 0 || p2.LastSeq != 1 {
		t.Errorf("t2/p2 due = %+v, want owner bob, delivered 0, last seq 1", p2)
	}
	if due, err := s.DuePushes(ctx, now, 1); err != nil || len(due) != 1 {
		t.Errorf("DuePushes(limit 1) = %d configs, %v", len(due), err)
	}

	// A failure counts and postpones.
	later := now.Add(time.Minute)
	if err := s.FailPush(ctx, alice, "t1", "p1", later, "503 from webhook"); err != nil {
		t.Fatal(err)
	}
	if _, ok := dueKeys(t, s, now)["t1/p1"]; ok {
		t.Error("a config is due before its next attempt time")
	}
	p1, ok := dueKeys(t, s, later)["t1/p1"]
	if !ok || p1.Attempts != 1 || p1.Delivered != 2 {
		t.Errorf("at the next attempt time: %+v (due %v), want attempts 1", p1, ok)
	}
	if err := s.FailPush(ctx, alice, "t1", "p1", later, "again"); err != nil {
		t.Fatal(err)
	}
	if p1 := dueKeys(t, s, later)["t1/p1"]; p1.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", p1.Attempts)
	}

	// Advancing clears the failures; the cursor never moves back.
	if err := s.AdvancePush(ctx, alice, "t1", "p1", 3); err != nil {
		t.Fatal(err)
	}
	p1 = dueKeys(t, s, now)["t1/p1"]
	if p1.Delivered != 3 || p1.Attempts != 0 {
		t.Errorf("after AdvancePush(3): %+v, want delivered 3, attempts 0, due now", p1)
	}
	if err := s.AdvancePush(ctx, alice, "t1", "p1", 4); err != nil {
		t.Fatal(err)
	}
	if _, ok := dueKeys(t, s, now)["t1/p1"]; ok {
		t.Error("a config whose cursor reached the log's end is due")
	}
	if err := s.AdvancePush(ctx, alice, "t1", "p1", 1); err != nil {
		t.Fatal(err)
	}
	if _, ok := dueKeys(t, s, now)["t1/p1"]; ok {
		t.Error("AdvancePush moved the cursor backwards")
	}
	// Replacing a config keeps its cursor.
	if err := s.PutPushConfig(ctx, alice, &a2a.TaskPushNotificationConfig{ID: "p1", TaskID: "t1", URL: "https://hooks.example/1b"}); err != nil {
		t.Fatal(err)
	}
	appendEvents(t, s, alice, "t1", "e")
	p1 = dueKeys(t, s, now)["t1/p1"]
	if p1.Delivered != 4 || p1.LastSeq != 5 || p1.Config.URL != "https://hooks.example/1b" {
		t.Errorf("after replace and one event: %+v, want delivered 4, last seq 5, new URL", p1)
	}
	// A deleted config is never due.
	if err := s.DeletePushConfig(ctx, alice, "t1", "p1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := dueKeys(t, s, now)["t1/p1"]; ok {
		t.Error("a deleted config is due")
	}
	wantNotFound(t, "AdvancePush(deleted)", s.AdvancePush(ctx, alice, "t1", "p1", 5))
	wantNotFound(t, "FailPush(deleted)", s.FailPush(ctx, alice, "t1", "p1", now, "x"))
}

func testPrune(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	cutoff := base.Add(time.Hour)
	type row struct {
		id    string
		st    a2a.TaskState
		ts    *time.Time
		goner bool
	}
	rows := []row{
		{"old-completed", a2a.TaskStateCompleted, at(0), true},
		{"old-failed", a2a.TaskStateFailed, at(time.Hour - 1), true},
		{"old-canceled", a2a.TaskStateCanceled, at(time.Minute), true},
		{"old-rejected", a2a.TaskStateRejected, at(time.Minute), true},
		{"new-completed", a2a.TaskStateCompleted, at(time.Hour), false},
		{"old-working", a2a.TaskStateWorking, at(0), false},
		{"old-input", a2a.TaskStateInputRequired, at(0), false},
		{"old-submitted", a2a.TaskStateSubmitted, at(0), false},
	}
	for _, r := range rows {
		mustCreate(t, s, alice, newTask(r.id, "c1", a2a.TaskStateSubmitted, at(0)))
		appendEvents(t, s, alice, r.id, "one", "two")
		if r.st != a2a.TaskStateSubmitted {
			setState(t, s, alice, r.id, r.st, r.ts)
		}
		if err := s.PutPushConfig(ctx, alice, &a2a.TaskPushNotificationConfig{ID: "p", TaskID: r.id, URL: "https://hooks.example/"}); err != nil {
			t.Fatal(err)
		}
		appendEvents2 := func() {
			rec, _ := s.GetTask(ctx, alice, r.id)
			if _, err := s.UpdateTask(ctx, alice, &rec.Task, rec.Version, []a2a.StreamResponse{working("pending push")}); err != nil {
				t.Fatal(err)
			}
		}
		appendEvents2() // leaves the push config due
		if ok, err := s.AcquireLease(ctx, r.id, "h1", time.Hour); err != nil || !ok {
			t.Fatalf("lease: %v %v", ok, err)
		}
		if err := s.RequestCancel(ctx, r.id); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Prune(ctx, cutoff)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("Prune deleted %d tasks, want 4", n)
	}
	due := dueKeys(t, s, cutoff.Add(time.Hour))
	for _, r := range rows {
		_, err := s.GetTask(ctx, alice, r.id)
		_, dueNow := due[r.id+"/p"]
		yes, cerr := s.CancelRequested(ctx, r.id)
		if cerr != nil {
			t.Fatal(cerr)
		}
		freed, lerr := s.AcquireLease(ctx, r.id, "h2", time.Hour)
		if lerr != nil {
			t.Fatal(lerr)
		}
		if !r.goner {
			if err != nil {
				t.Errorf("%s pruned: %v", r.id, err)
			}
			if !dueNow || !yes || freed {
				t.Errorf("%s kept but lost state: push due %v, cancel flag %v, lease freed %v", r.id, dueNow, yes, freed)
			}
			continue
		}
		wantNotFound(t, r.id+" after prune", err)
		if dueNow || yes || !freed {
			t.Errorf("%s pruned but left state: push due %v, cancel flag %v, lease freed %v", r.id, dueNow, yes, freed)
		}
		// The id is free again and its log starts over: the old events are gone.
		mustCreate(t, s, alice, newTask(r.id, "c1", a2a.TaskStateSubmitted, at(0)))
		rec := appendEvents(t, s, alice, r.id, "fresh")
		evs, err := s.Events(ctx, alice, r.id, 0, 0)
		if err != nil || rec.LastSeq != 1 || len(evs) != 1 || eventText(evs[0].Event) != "fresh" {
			t.Errorf("%s re-created: last seq %d, events %+v, %v; old events survived", r.id, rec.LastSeq, evs, err)
		}
		if list, err := s.ListPushConfigs(ctx, alice, r.id); err != nil || len(list) != 0 {
			t.Errorf("%s re-created: push configs survived: %+v, %v", r.id, list, err)
		}
	}
	if n, err := s.Prune(ctx, cutoff); err != nil || n != 0 {
		t.Errorf("second Prune: %d, %v; want 0", n, err)
	}
}

func testOrphans(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	rows := []struct {
		id     string
		owner  string
		st     a2a.TaskState
		leased bool
		orphan bool
	}{
		{"working-unleased", alice, a2a.TaskStateWorking, false, true},
		{"submitted-unleased", bob, a2a.TaskStateSubmitted, false, true},
		{"working-leased", alice, a2a.TaskStateWorking, true, false},
		{"input-unleased", alice, a2a.TaskStateInputRequired, false, false},
		{"auth-unleased", alice, a2a.TaskStateAuthRequired, false, false},
		{"completed-unleased", alice, a2a.TaskStateCompleted, false, false},
	}
	for _, r := range rows {
		mustCreate(t, s, r.owner, newTask(r.id, "c1", r.st, at(0)))
		if r.leased {
			if ok, err := s.AcquireLease(ctx, r.id, "h1", time.Hour); err != nil || !ok {
				t.Fatalf("lease: %v %v", ok, err)
			}
		}
	}
	// A lease that expired no longer covers its task.
	mustCreate(t, s, alice, newTask("working-expired", "c1", a2a.TaskStateWorking, at(0)))
	if ok, err := s.AcquireLease(ctx, "working-expired", "h1", time.Millisecond); err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	want := []taskmanager.TaskRef{{Owner: alice, ID: "working-expired"}, {Owner: alice, ID: "working-unleased"}, {Owner: bob, ID: "submitted-unleased"}}
	sortRefs := func(r []taskmanager.TaskRef) {
		sort.Slice(r, func(i, j int) bool { return r[i].ID < r[j].ID })
	}
	sortRefs(want)
	var got []taskmanager.TaskRef
	for deadline := time.Now().Add(20 * time.Second); ; {
		var err error
		got, err = s.Orphans(ctx, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		sortRefs(got)
		if len(got) == len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond) // the 1ms lease has not expired yet
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Orphans = %v, want %v", got, want)
	}
	if got, err := s.Orphans(ctx, "", 1); err != nil || len(got) != 1 {
		t.Errorf("Orphans(limit 1) = %v, %v", got, err)
	}
}

func testOrphansPaging(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	var want []string
	for i := range 7 {
		id := fmt.Sprintf("orphan-%02d", i)
		mustCreate(t, s, alice, newTask(id, "c1", a2a.TaskStateWorking, at(0)))
		want = append(want, id)
	}
	mustCreate(t, s, alice, newTask("orphan-03a", "c1", a2a.TaskStateCompleted, at(0)))
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("paging does not end")
		}
		refs, err := s.Orphans(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) > 3 {
			t.Fatalf("page of %d, limit 3", len(refs))
		}
		for _, r := range refs {
			got = append(got, r.ID)
			after = r.ID
		}
		if len(refs) < 3 {
			break
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pages = %v, want %v", got, want)
	}
	if refs, err := s.Orphans(ctx, "orphan-06", 3); err != nil || len(refs) != 0 {
		t.Errorf("after the last: %v, %v; want none", refs, err)
	}
}

// testOrphanedAtLeaseExpiry pins what recovery's time bound rests on: a
// task is not an orphan while its lease runs, and is one once the TTL has
// passed since the lease was last taken or renewed. A check that finds the
// lease run out only fails if it ran before the TTL had passed (a loaded
// machine may sleep long).
func testOrphanedAtLeaseExpiry(t *testing.T, s taskmanager.Store) {
	ctx := ctxT(t)
	const ttl = time.Second
	// The SQL stores keep leases in wall-clock time (shared with other
	// replicas; PostgreSQL's own clock), the test measures on the monotonic
	// clock, and a VM's two clocks drift apart by fractions of a millisecond
	// while the wall clock is disciplined: an expiry is early only beyond
	// this slack.
	const clockSlack = 5 * time.Millisecond
	mustCreate(t, s, alice, newTask("leased", "c1", a2a.TaskStateWorking, at(0)))
	listed := func() bool {
		refs, err := s.Orphans(ctx, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(refs) == 1 && refs[0].ID == "leased"
	}
	taken := time.Now()
	if ok, err := s.AcquireLease(ctx, "leased", "h1", ttl); err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	if listed() && time.Since(taken) < ttl {
		t.Fatal("listed as an orphan under a live lease")
	}
	// A renewal moves the expiry: still not an orphan after the first TTL.
	time.Sleep(ttl / 3)
	renewed := time.Now()
	ok, err := s.RenewLease(ctx, "leased", "h1", ttl)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		if time.Since(taken) < ttl {
			t.Fatal("a live lease could not be renewed")
		}
		t.Skip("the machine slept past the lease: timing not checked")
	}
	time.Sleep(ttl * 3 / 4)
	if listed() && time.Since(renewed) < ttl {
		t.Fatal("listed as an orphan before the renewed lease ran out")
	}
	for !listed() {
		if time.Since(renewed) > ttl+5*time.Second {
			t.Fatalf("not an orphan %s after its lease ran out", time.Since(renewed)-ttl)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if d := time.Since(renewed); d < ttl-clockSlack {
		t.Fatalf("an orphan %s after a renewal of %s", d, ttl)
	}
	// Taken by recovery: not an orphan while recovery holds it.
	if ok, err := s.AcquireLease(ctx, "leased", "recover", time.Hour); err != nil || !ok {
		t.Fatalf("recovery lease: %v %v", ok, err)
	}
	if listed() {
		t.Error("listed as an orphan while recovery holds its lease")
	}
}

func testCountTasks(t *testing.T, s taskmanager.Store) {
	c, ok := s.(taskmanager.TaskCounter)
	if !ok {
		t.Fatal("the store does not count its tasks (taskmanager.TaskCounter)")
	}
	ctx := ctxT(t)
	got, err := c.CountTasks(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("empty store: %v %v", got, err)
	}
	mustCreate(t, s, alice, newTask("t1", "c1", a2a.TaskStateSubmitted, at(0)))
	mustCreate(t, s, alice, newTask("t2", "c1", a2a.TaskStateWorking, at(0)))
	mustCreate(t, s, bob, newTask("t3", "c2", a2a.TaskStateWorking, at(0)))
	mustCreate(t, s, bob, newTask("t4", "c2", a2a.TaskStateSubmitted, at(0)))
	if _, err := s.UpdateTask(ctx, bob, newTask("t4", "c2", a2a.TaskStateCompleted, at(1)), 1, nil); err != nil {
		t.Fatal(err)
	}
	got, err = c.CountTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[a2a.TaskState]int64{a2a.TaskStateSubmitted: 1, a2a.TaskStateWorking: 2, a2a.TaskStateCompleted: 1}
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for st, n := range want {
		if got[st] != n {
			t.Errorf("%s: %d tasks, want %d (counts %v)", st, got[st], n, got)
		}
	}
}
