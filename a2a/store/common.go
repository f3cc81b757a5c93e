package store

import (
	"math"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// allStates lists the states of A2A 1.0.
var allStates = []a2a.TaskState{
	a2a.TaskStateUnspecified, a2a.TaskStateSubmitted, a2a.TaskStateWorking,
	a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled,
	a2a.TaskStateInputRequired, a2a.TaskStateRejected, a2a.TaskStateAuthRequired,
}

// terminalStates lists the states after which a task never changes.
func terminalStates() []string {
	var out []string
	for _, s := range allStates {
		if s.Terminal() {
			out = append(out, string(s))
		}
	}
	return out
}

// orphanable reports whether a task in state s must be covered by a run
// lease: it is being worked on, not waiting for the client nor finished.
func orphanable(s a2a.TaskState) bool {
	return s == a2a.TaskStateSubmitted || s == a2a.TaskStateWorking
}

// statusNanos is the ListTasks sort key of t as an integer: the status
// timestamp in Unix nanoseconds, math.MinInt64 when there is none. SQL stores
// keep it as a number so that paging compares exactly what the cursor holds
// (timestamp columns would round to microseconds).
func statusNanos(t *a2a.Task) int64 {
	if t.Status.Timestamp == nil {
		return math.MinInt64
	}
	return timeNanos(*t.Status.Timestamp)
}

// timeNanos converts a time to Unix nanoseconds, clamping the times an
// int64 cannot hold (before 1678, after 2262).
func timeNanos(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	switch y := t.Year(); {
	case y < 1678:
		return math.MinInt64 + 1
	case y > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}

func pushNotFound(taskID, id string) error {
	return a2a.ErrTaskNotFound.Withf("push notification config %s not found for task %s", id, taskID)
}

func taskNotFound(id string) error {
	return a2a.ErrTaskNotFound.Withf("task %s not found", id)
}
