package endpoint

import (
	"bytes"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// slowFirstOut is a host stream whose write of the first message it is
// given blocks until release is closed; it records messages as their
// writes return.
type slowFirstOut struct {
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	got     [][]byte
	wrote   chan struct{}
}

func (o *slowFirstOut) WriteMessage(msg []byte) error {
	first := false
	o.once.Do(func() { first = true })
	if first {
		<-o.release
	}
	o.mu.Lock()
	o.got = append(o.got, msg)
	o.mu.Unlock()
	o.wrote <- struct{}{}
	return nil
}

// TestTaskStatusNotificationsKeepTheirOrder: a task's status notifications
// reach the host in the order its status changed, even when writing the
// first one is slow (before, each went on its own goroutine, and a
// cancelled could overtake the input_required before it).
func TestTaskStatusNotificationsKeepTheirOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &slowFirstOut{release: make(chan struct{}), wrote: make(chan struct{}, 4)}
		st := &taskStore{now: time.Now}
		e := &taskEntry{st: st, notify: out, task: mcp.Task{TaskId: "t1"}}
		st.mu.Lock()
		e.task.Status = mcp.TaskStatusInputRequired
		e.notifyStatus()
		e.task.Status = mcp.TaskStatusCancelled
		e.notifyStatus()
		st.mu.Unlock()
		// Every goroutine of the bubble blocked: a second writer, if there
		// were one, has written by now and overtaken the slow first write.
		synctest.Wait()
		close(out.release)
		synctest.Wait()
		out.mu.Lock()
		defer out.mu.Unlock()
		if n := len(out.got); n != 2 {
			t.Fatalf("%d of 2 notifications written", n)
		}
		if !bytes.Contains(out.got[0], []byte(`"input_required"`)) || !bytes.Contains(out.got[1], []byte(`"cancelled"`)) {
			t.Fatalf("order: %s then %s", out.got[0], out.got[1])
		}
	})
}
