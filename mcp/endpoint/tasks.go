package endpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/request"
)

// MCP tasks (2025-11-25) limits and defaults. A task-augmented tools/call of
// a tool that declares execution.taskSupport runs in the background; its
// task lives in the face's own store, keyed by the caller's principal, and
// only that principal can get, wait for, cancel or list it (mcp-go's store
// is keyed by session and shared by every stateless caller, see B7).
const (
	// DefaultTaskTTL is a task's lifetime when the request names none.
	DefaultTaskTTL = time.Hour
	// MaxTaskTTL caps the lifetime a request may ask for.
	MaxTaskTTL = 24 * time.Hour
	// TaskPollInterval is the poll interval suggested to requestors.
	TaskPollInterval = time.Second
	// MaxTasksPerPrincipal bounds one caller's live tasks; beyond it new
	// task-augmented calls are refused.
	MaxTasksPerPrincipal = 100
	// DefaultTaskPageSize is the tasks/list page size.
	DefaultTaskPageSize = 50
	// UpstreamMetaKey names the _meta member of a task that carries the
	// upstream work behind it (Upstream).
	UpstreamMetaKey = "io.a2a-mcp-bridge/upstream"
	// relatedTaskKey is the spec's _meta key tying a result to its task.
	relatedTaskKey = "io.modelcontextprotocol/related-task"
)

// Upstream names the remote work behind a tool call that runs as an MCP
// task: the A2A agent and its task and context ids.
type Upstream struct {
	Agent     string `json:"agent,omitempty"`
	TaskID    string `json:"a2aTaskId,omitempty"`
	ContextID string `json:"contextId,omitempty"`
}

// TaskReport is what a tool handler running as an MCP task reports about
// its upstream work while it runs.
type TaskReport struct {
	Upstream
	// InputRequired is true while the upstream waits for the user (A2A
	// INPUT_REQUIRED or AUTH_REQUIRED); if the handler returns in that
	// state the MCP task stays input_required.
	InputRequired bool
	// Message is the upstream's latest status text (the task's
	// statusMessage while it is not terminal).
	Message string
}

// RunsAsTask reports whether the tool call in ctx runs as an MCP task, whose
// status follows the upstream work through [ReportTask] while it runs.
func RunsAsTask(ctx context.Context) bool {
	e, _ := ctx.Value(taskKey{}).(*taskEntry)
	return e != nil
}

// ReportTask records r for the MCP task the tool call in ctx runs as. It
// does nothing when the call is not running as a task.
func ReportTask(ctx context.Context, r TaskReport) {
	e, _ := ctx.Value(taskKey{}).(*taskEntry)
	if e == nil {
		return
	}
	e.st.mu.Lock()
	defer e.st.mu.Unlock()
	if r.Agent != "" {
		e.up.Agent = r.Agent
	}
	if r.TaskID != "" {
		e.up.TaskID = r.TaskID
	}
	if r.ContextID != "" {
		e.up.ContextID = r.ContextID
	}
	e.inputRequired = r.InputRequired
	if e.task.Status == mcp.TaskStatusWorking {
		e.task.StatusMessage = cleanMessage(r.Message)
		e.touch()
	}
	e.signalWatchers()
}

// UpstreamCanceler is implemented by tool sources that can cancel upstream
// work whose tool call already returned (an A2A task left INPUT_REQUIRED),
// for tasks/cancel. p is the task's owner.
type UpstreamCanceler interface {
	CancelUpstream(ctx context.Context, p *request.Principal, up Upstream) error
}

type taskKey struct{}

// taskEntry is one MCP task. Mutable fields are guarded by st.mu.
type taskEntry struct {
	st            *taskStore
	owner         *request.Principal
	task          mcp.Task
	created       time.Time
	expires       time.Time
	up            Upstream
	inputRequired bool
	cancel        context.CancelFunc
	ready         chan struct{} // closed once result or rpcErr is set
	result        json.RawMessage
	rpcErr        json.RawMessage
	resultIsErr   bool
	// notify, if set, is the requestor's stream for status notifications
	// (stdio); modern marks a 2026-07-28 task (no such notifications).
	notify directOut
	modern bool
	// outbox holds the status notifications not yet written to notify, in
	// order; writing is set while a goroutine drains it (both under st.mu).
	outbox  [][]byte
	writing bool
	// watchers are signalled when the status changes (subscriptions/listen
	// streams of 2026-07-28 callers).
	watchers map[chan struct{}]bool
}

func (e *taskEntry) touch() {
	e.task.LastUpdatedAt = e.st.now().UTC().Format(time.RFC3339Nano)
}

// snapshot returns the task as sent to the requestor. Callers hold st.mu.
func (e *taskEntry) snapshot() taskJSON {
	t := taskJSON{Task: e.task}
	if e.up != (Upstream{}) {
		up := e.up
		t.Meta = map[string]any{UpstreamMetaKey: up}
	}
	return t
}

// taskJSON is mcp.Task with a _meta member.
type taskJSON struct {
	mcp.Task
	Meta map[string]any `json:"_meta,omitempty"`
}

// taskStore holds the MCP tasks of every principal, keyed by principal.
type taskStore struct {
	now      func() time.Time
	pageSize int
	mu       sync.Mutex
	byOwner  map[string]map[string]*taskEntry
}

func newTaskStore(now func() time.Time, pageSize int) *taskStore {
	if pageSize <= 0 {
		pageSize = DefaultTaskPageSize
	}
	return &taskStore{now: now, pageSize: pageSize, byOwner: map[string]map[string]*taskEntry{}}
}

var (
	errTaskNotFound = errors.New("endpoint: task not found")
	errTooManyTasks = errors.New("endpoint: too many tasks for this caller")
	errTaskTerminal = errors.New("endpoint: cannot cancel task: already in a terminal status")
	errBadCursor    = errors.New("endpoint: invalid cursor")
)

// create adds a working task owned by p.
func (s *taskStore) create(p *request.Principal, ttlMS *int64, cancel context.CancelFunc) (*taskEntry, error) {
	ttl := DefaultTaskTTL
	if ttlMS != nil && *ttlMS > 0 {
		ttl = min(time.Duration(*ttlMS)*time.Millisecond, MaxTaskTTL)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	now := s.now()
	ms := ttl.Milliseconds()
	poll := TaskPollInterval.Milliseconds()
	e := &taskEntry{
		st: s, owner: p, created: now, expires: now.Add(ttl), cancel: cancel, ready: make(chan struct{}),
		task: mcp.Task{
			TaskId: hex.EncodeToString(b[:]), Status: mcp.TaskStatusWorking,
			CreatedAt: now.UTC().Format(time.RFC3339Nano), LastUpdatedAt: now.UTC().Format(time.RFC3339Nano),
			TTL: &ms, PollInterval: &poll,
		},
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	m := s.byOwner[p.Key()]
	if len(m) >= MaxTasksPerPrincipal {
		return nil, errTooManyTasks
	}
	if m == nil {
		m = map[string]*taskEntry{}
		s.byOwner[p.Key()] = m
	}
	m[e.task.TaskId] = e
	return e, nil
}

// sweep drops expired tasks and cancels their work. Callers hold mu.
func (s *taskStore) sweep(now time.Time) {
	for owner, m := range s.byOwner {
		for id, e := range m {
			if !now.Before(e.expires) {
				e.cancel()
				delete(m, id)
			}
		}
		if len(m) == 0 {
			delete(s.byOwner, owner)
		}
	}
}

// get returns p's task id; another principal's task is not found, exactly
// like an unknown one.
func (s *taskStore) get(p *request.Principal, id string) (*taskEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byOwner[p.Key()][id]
	if !ok {
		return nil, errTaskNotFound
	}
	if !s.now().Before(e.expires) {
		e.cancel()
		delete(s.byOwner[p.Key()], id)
		return nil, errTaskNotFound
	}
	return e, nil
}

// finish stores the outcome of the tool call. A cancelled task stays
// cancelled; an upstream waiting for input leaves the task input_required.
func (s *taskStore) finish(e *taskEntry, resp []byte) {
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(resp, &m)
	var res struct {
		IsError bool `json:"isError"`
		Raw     []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	var rpc struct {
		Message string `json:"message"`
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case m.Error != nil:
		_ = json.Unmarshal(m.Error, &rpc)
		e.rpcErr = m.Error
		if e.task.Status == mcp.TaskStatusWorking {
			e.task.Status, e.task.StatusMessage = mcp.TaskStatusFailed, cleanMessage(rpc.Message)
		}
	case m.Result != nil:
		_ = json.Unmarshal(m.Result, &res)
		e.result, e.resultIsErr = m.Result, res.IsError
		msg := ""
		for _, c := range res.Raw {
			if c.Type == "text" {
				msg = c.Text
				break
			}
		}
		if e.task.Status == mcp.TaskStatusWorking {
			switch {
			case res.IsError:
				e.task.Status, e.task.StatusMessage = mcp.TaskStatusFailed, cleanMessage(msg)
			case e.inputRequired:
				e.task.Status = mcp.TaskStatusInputRequired
				if e.task.StatusMessage == "" {
					e.task.StatusMessage = cleanMessage(msg)
				}
			default:
				e.task.Status, e.task.StatusMessage = mcp.TaskStatusCompleted, ""
			}
		}
	default:
		e.rpcErr = json.RawMessage(`{"code":-32603,"message":"the tool call produced no response"}`)
		if e.task.Status == mcp.TaskStatusWorking {
			e.task.Status = mcp.TaskStatusFailed
		}
	}
	e.touch()
	close(e.ready)
	e.notifyStatus()
}

// cancelTask marks p's task cancelled and stops its work. It returns the
// entry's upstream and whether the tool call had already returned.
func (s *taskStore) cancelTask(p *request.Principal, id string) (*taskEntry, bool, error) {
	e, err := s.get(p, id)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.task.Status {
	case mcp.TaskStatusCompleted, mcp.TaskStatusFailed, mcp.TaskStatusCancelled:
		return nil, false, errTaskTerminal
	}
	returned := false
	select {
	case <-e.ready:
		returned = true
	default:
	}
	e.task.Status, e.task.StatusMessage = mcp.TaskStatusCancelled, "cancelled by the requestor"
	e.touch()
	e.cancel()
	e.notifyStatus()
	return e, returned, nil
}

// list returns one page of p's tasks, oldest first. The cursor is the id of
// the last task of the previous page.
func (s *taskStore) list(p *request.Principal, cursor string) ([]taskJSON, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var all []*taskEntry
	for _, e := range s.byOwner[p.Key()] {
		if now.Before(e.expires) {
			all = append(all, e)
		}
	}
	slices.SortFunc(all, func(a, b *taskEntry) int {
		if c := a.created.Compare(b.created); c != 0 {
			return c
		}
		if a.task.TaskId < b.task.TaskId {
			return -1
		}
		return 1
	})
	start := 0
	if cursor != "" {
		i := slices.IndexFunc(all, func(e *taskEntry) bool { return e.task.TaskId == cursor })
		if i < 0 {
			return nil, "", errBadCursor
		}
		start = i + 1
	}
	end := min(start+s.pageSize, len(all))
	out := make([]taskJSON, 0, end-start)
	for _, e := range all[start:end] {
		out = append(out, e.snapshot())
	}
	next := ""
	if end < len(all) {
		next = all[end-1].task.TaskId
	}
	return out, next, nil
}

// cleanMessage strips control characters and caps a status message.
func cleanMessage(s string) string {
	if len(s) > 1000 {
		s = s[:1000]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}
