package endpoint

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/view"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// upstreamCancelTimeout bounds the upstream cancel of a task whose tool
// call already returned.
const upstreamCancelTimeout = 10 * time.Second

// isTaskMethod reports whether method is one of the task methods
// (2025-11-25, and tasks/update of 2026-07-28).
func isTaskMethod(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel, mcp.MethodTasksList, methodTasksUpdate:
		return true
	}
	return false
}

// interceptTask serves MCP tasks in front of mcp-go, for the principal in
// ctx, from the message's view m (body is the message as sent). It answers
// tasks/get, tasks/result, tasks/cancel, tasks/list and task-augmented
// tools/call itself (handled, with resp nil when the caller left before
// tasks/result could answer); anything else is passed on to mcp-go as
// pass, with the task augmentation removed where the face does not run the
// call as a task (mcp-go must never create a task in its own,
// session-keyed store).
func (f *Face) interceptTask(ctx context.Context, m *view.Message, body []byte) (resp, pass []byte, handled bool) {
	if m.Response || m.ID == nil {
		return nil, body, false
	}
	if m.Method != string(mcp.MethodToolsCall) && !isTaskMethod(m.Method) {
		return nil, body, false
	}
	tp := m.Params
	modern := tp.Meta != nil && mcp.IsModernProtocol(tp.Meta.ProtocolVersion())
	if m.Method == string(mcp.MethodToolsCall) {
		if modern && declaresTasks(tp.Meta) && f.taskTool(ctx, tp.Name) {
			// The server decides (2026-07-28): a tool that declares task
			// support runs as a task for a caller that takes them.
			return f.startModernTask(ctx, m, stripTask(body)), nil, true
		}
		if tp.Task == nil {
			return nil, body, false
		}
		if modern || !f.taskTool(ctx, tp.Name) {
			// Not run as a task: the request is processed normally.
			return nil, stripTask(body), false
		}
		return f.startTask(ctx, m, body), nil, true
	}
	if modern {
		return f.interceptModernTask(ctx, m), nil, true
	}
	if m.Method == methodTasksUpdate {
		return rpcError(m.ID, mcp.METHOD_NOT_FOUND, "method tasks/update exists from protocol version 2026-07-28 on"), nil, true
	}
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return rpcError(m.ID, mcp.INVALID_REQUEST, "no authenticated caller"), nil, true
	}
	switch mcp.MCPMethod(m.Method) {
	case mcp.MethodTasksGet:
		e, err := f.tasks.get(p, tp.TaskID)
		if err != nil {
			return taskError(m.ID, err), nil, true
		}
		f.tasks.mu.Lock()
		t := e.snapshot()
		f.tasks.mu.Unlock()
		return rpcResult(m.ID, t), nil, true
	case mcp.MethodTasksResult:
		e, err := f.tasks.get(p, tp.TaskID)
		if err != nil {
			return taskError(m.ID, err), nil, true
		}
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, nil, true
		}
		if e.rpcErr != nil {
			return rpcRaw(m.ID, "error", e.rpcErr), nil, true
		}
		return rpcRaw(m.ID, "result", withRelatedTask(e.result, e.task.TaskId)), nil, true
	case mcp.MethodTasksCancel:
		e, returned, err := f.tasks.cancelTask(p, tp.TaskID)
		if err != nil {
			return taskError(m.ID, err), nil, true
		}
		f.tasks.mu.Lock()
		t, up := e.snapshot(), e.up
		f.tasks.mu.Unlock()
		if returned && up.TaskID != "" {
			f.cancelUpstream(ctx, p, up)
		}
		return rpcResult(m.ID, t), nil, true
	default: // tasks/list
		tasks, next, err := f.tasks.list(p, tp.Cursor)
		if err != nil {
			return taskError(m.ID, err), nil, true
		}
		res := map[string]any{"tasks": tasks}
		if next != "" {
			res["nextCursor"] = next
		}
		return rpcResult(m.ID, res), nil, true
	}
}

// taskTool reports whether name is a tool the caller may call that
// declares task support.
func (f *Face) taskTool(ctx context.Context, name string) bool {
	st := f.mcp.GetTool(name)
	if st == nil || st.Tool.Execution == nil {
		return false
	}
	if ts := st.Tool.Execution.TaskSupport; ts != mcp.TaskSupportOptional && ts != mcp.TaskSupportRequired {
		return false
	}
	return len(f.filter(ctx, []mcp.Tool{st.Tool})) == 1
}

// startTask creates the task, runs the call through mcp-go in the
// background (tool filter, middleware and recovery included) and answers
// with the CreateTaskResult.
func (f *Face) startTask(ctx context.Context, m *view.Message, body []byte) []byte {
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return rpcError(m.ID, mcp.INVALID_REQUEST, "no authenticated caller")
	}
	e, err := f.runTask(ctx, p, m.Params.Task.TTL, stripTask(body))
	if err != nil {
		return taskError(m.ID, err)
	}
	f.tasks.mu.Lock()
	t := e.snapshot()
	f.tasks.mu.Unlock()
	return rpcResult(m.ID, map[string]any{"task": t})
}

// runTask creates p's task and runs call (a tools/call without task
// augmentation) through mcp-go in the background; the task ends with the
// call's response.
func (f *Face) runTask(ctx context.Context, p *request.Principal, ttl *int64, call []byte) (*taskEntry, error) {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e, err := f.tasks.create(p, ttl, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	f.tasks.mu.Lock()
	e.notify, _ = ctx.Value(directKey{}).(directOut)
	var m struct {
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(call, &m) == nil && m.Params.Meta != nil {
		e.modern = mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion())
	}
	f.tasks.mu.Unlock()
	go func() {
		defer cancel()
		// Over stdio the call keeps the host's stream (its progress
		// reaches the host while the task runs); over HTTP it has none.
		resp := f.mcp.HandleMessage(context.WithValue(bg, taskKey{}, e), call)
		b, err := json.Marshal(resp)
		if resp == nil || err != nil {
			b = nil
		}
		f.tasks.finish(e, b)
	}()
	return e, nil
}

// cancelUpstream asks the sources to cancel the upstream work of a task
// whose tool call already returned (bounded, in the background).
func (f *Face) cancelUpstream(ctx context.Context, p *request.Principal, up Upstream) {
	for _, s := range f.cfg.Sources {
		uc, ok := s.(UpstreamCanceler)
		if !ok {
			continue
		}
		go func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), upstreamCancelTimeout)
			defer cancel()
			if err := uc.CancelUpstream(cctx, p, up); err != nil {
				f.log.Info("endpoint: upstream cancel of a task failed", "agent", up.Agent, "error", err.Error())
			}
		}()
	}
}

// stripTask removes params.task from a request (the call then runs
// normally).
func stripTask(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil {
		return body
	}
	delete(params, "task")
	m["params"] = mustMarshal(params)
	return mustMarshal(m)
}

// withRelatedTask adds the related-task _meta member to a result.
func withRelatedTask(result json.RawMessage, id string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil {
		return result
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(m["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[relatedTaskKey] = mustMarshal(map[string]string{"taskId": id})
	m["_meta"] = mustMarshal(meta)
	return mustMarshal(m)
}

func taskError(id json.RawMessage, err error) []byte {
	switch {
	case errors.Is(err, errTaskNotFound):
		return rpcError(id, mcp.INVALID_PARAMS, "failed to retrieve task: task not found")
	case errors.Is(err, errTaskTerminal):
		return rpcError(id, mcp.INVALID_PARAMS, "cannot cancel task: already in a terminal status")
	case errors.Is(err, errBadCursor):
		return rpcError(id, mcp.INVALID_PARAMS, "invalid cursor")
	case errors.Is(err, errTooManyTasks):
		return rpcError(id, mcp.INVALID_REQUEST, "too many tasks: wait for or cancel some first")
	}
	return rpcError(id, mcp.INTERNAL_ERROR, "internal error")
}

func rpcResult(id json.RawMessage, v any) []byte { return rpcRaw(id, "result", mustMarshal(v)) }

func rpcError(id json.RawMessage, code int, msg string) []byte {
	return rpcRaw(id, "error", mustMarshal(map[string]any{"code": code, "message": msg}))
}

func rpcRaw(id json.RawMessage, member string, v json.RawMessage) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return mustMarshal(map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": id, member: v})
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

// stdioTasks puts the task interception in front of the stdio server: it
// reads in line by line, answers task lines itself (on out, one write per
// message, as mcp-go does) and passes every other line to the returned
// reader.
func (f *Face) stdioTasks(ctx context.Context, in io.Reader, lw *lockedWriter) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(in)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				serve := func() error {
					m, verr := view.Parse(line)
					if verr != nil {
						// The same one reading as over HTTP: a line that
						// could be read two ways is answered, not passed on.
						_, _ = lw.Write(append(rpcError(nil, verr.Code, verr.Msg), '\n'))
						return nil
					}
					resp, pass, handled := f.interceptTask(view.With(ctx, m), m, line)
					if handled {
						if resp != nil {
							_, _ = lw.Write(append(resp, '\n'))
						}
						return nil
					}
					if !bytes.HasSuffix(pass, []byte("\n")) {
						pass = append(pass, '\n')
					}
					_, werr := pw.Write(pass) // io.Pipe gates parallel writes
					return werr
				}
				if isTasksResult(line) {
					go func() { _ = serve() }() // it blocks until the task ends
				} else if serve() != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// isTasksResult reports a tasks/result request, which blocks until its
// task ends and so is served off the reading goroutine.
func isTasksResult(line []byte) bool {
	m, err := view.Parse(line)
	return err == nil && m.Method == string(mcp.MethodTasksResult)
}

// lockedWriter serialises whole messages from two writers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
