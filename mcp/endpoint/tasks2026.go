package endpoint

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/relay"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/view"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// MCP tasks of the 2026-07-28 revision: the io.modelcontextprotocol/tasks
// extension (SEP-2663). A 2026-07-28 caller that lists the extension in its
// request's client capabilities and calls a tool that declares task support
// gets a task handle (resultType "task") at once; the call runs in the
// background in the same principal-keyed store as the 2025-11-25 tasks, and
// the caller follows it with tasks/get (the result or error inline once
// terminal), tasks/update and tasks/cancel (cooperative, an empty
// acknowledgement), or over HTTP by notifications/tasks on a
// subscriptions/listen stream that names the task (serveTaskListen). There
// is no tasks/result and no tasks/list in this revision; a caller that did
// not declare the extension gets -32021 for every tasks/* request and for
// such a listen.
const (
	// TasksExtension is the extension identifier, declared in server/discover.
	TasksExtension = "io.modelcontextprotocol/tasks"
	// methodTasksUpdate delivers input responses to a task (2026-07-28).
	methodTasksUpdate = "tasks/update"
	// missingCapability is the 2026-07-28 error code for a request that
	// needs a client capability the request did not declare.
	missingCapability = -32021
)

// declareTasksExtension declares the tasks extension to 2026-07-28 callers
// (server/discover); 2025 callers see the core tasks capability instead
// (declareTasks).
func declareTasksExtension(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
	if res == nil {
		return
	}
	ext := map[string]any{}
	for k, v := range res.Capabilities.Extensions {
		ext[k] = v
	}
	ext[TasksExtension] = map[string]any{}
	res.Capabilities.Extensions = ext
}

// declaresTasks reports whether a 2026-07-28 request's _meta lists the
// tasks extension among the client's capabilities.
func declaresTasks(meta *mcp.Meta) bool {
	if meta == nil {
		return false
	}
	caps := meta.ClientCapabilities()
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// missingTasksExtension is the -32021 error of a request that needs the
// tasks extension its client capabilities do not list.
func missingTasksExtension(id json.RawMessage) []byte {
	return rpcRaw(id, "error", mustMarshal(map[string]any{
		"code": missingCapability, "message": "Missing required client capability",
		"data": map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}},
	}))
}

// modernResult is a 2026-07-28 result: resultType and the server's identity
// in _meta, then the members of v.
func (f *Face) modernResult(id json.RawMessage, resultType string, v map[string]any) []byte {
	out := map[string]any{}
	for k, x := range v {
		out[k] = x
	}
	out["resultType"] = resultType
	meta, _ := out["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaKeyServerInfo] = mcp.Implementation{Name: f.cfg.Name, Version: f.cfg.Version}
	out["_meta"] = meta
	return rpcResult(id, out)
}

// detailed is the task as a 2026-07-28 tasks/get result and task
// notification carry it (DetailedTask): status, and once terminal the call's
// result (completed, also for an isError result and for a call whose
// upstream is waiting for input: its result carries the continuation) or
// its JSON-RPC error (failed). Callers hold st.mu.
func (e *taskEntry) detailed() map[string]any {
	t := map[string]any{
		"taskId":         e.task.TaskId,
		"createdAt":      e.task.CreatedAt,
		"lastUpdatedAt":  e.task.LastUpdatedAt,
		"ttlMs":          e.expires.Sub(e.created).Milliseconds(),
		"pollIntervalMs": TaskPollInterval.Milliseconds(),
	}
	done := false
	select {
	case <-e.ready:
		done = true
	default:
	}
	switch {
	case e.task.Status == mcp.TaskStatusCancelled:
		t["status"] = string(mcp.TaskStatusCancelled)
	case done && e.rpcErr != nil:
		t["status"] = string(mcp.TaskStatusFailed)
		t["error"] = e.rpcErr
	case done:
		t["status"] = string(mcp.TaskStatusCompleted)
		t["result"] = e.result
	default:
		t["status"] = string(mcp.TaskStatusWorking)
	}
	if msg := e.task.StatusMessage; msg != "" && t["status"] != string(mcp.TaskStatusCompleted) {
		t["statusMessage"] = msg
	}
	if e.up != (Upstream{}) {
		t["_meta"] = map[string]any{UpstreamMetaKey: e.up}
	}
	return t
}

// interceptModernTask serves the 2026-07-28 task methods for the principal
// in ctx (m.Method is tasks/get, tasks/update, tasks/cancel, tasks/result
// or tasks/list).
func (f *Face) interceptModernTask(ctx context.Context, m *view.Message) []byte {
	tp := m.Params
	switch m.Method {
	case string(mcp.MethodTasksResult), string(mcp.MethodTasksList):
		return rpcError(m.ID, mcp.METHOD_NOT_FOUND, "method "+m.Method+" does not exist in protocol version 2026-07-28: poll tasks/get")
	}
	if !declaresTasks(tp.Meta) {
		return missingTasksExtension(m.ID)
	}
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return rpcError(m.ID, mcp.INVALID_REQUEST, "no authenticated caller")
	}
	switch m.Method {
	case string(mcp.MethodTasksGet):
		e, err := f.tasks.get(p, tp.TaskID)
		if err != nil {
			return taskError(m.ID, err)
		}
		f.tasks.mu.Lock()
		t := e.detailed()
		f.tasks.mu.Unlock()
		return f.modernResult(m.ID, string(mcp.ResultTypeComplete), t)
	case methodTasksUpdate:
		// The face's tasks never ask for input (an upstream question ends
		// the call with its continuation): every response is for a key
		// that is not outstanding, which the spec says to ignore.
		if _, err := f.tasks.get(p, tp.TaskID); err != nil {
			return taskError(m.ID, err)
		}
		return f.modernResult(m.ID, string(mcp.ResultTypeComplete), nil)
	default: // tasks/cancel
		e, returned, err := f.tasks.cancelTask(p, tp.TaskID)
		switch {
		case err == errTaskTerminal:
			// Cooperative: a task that already ended is acknowledged too.
		case err != nil:
			return taskError(m.ID, err)
		default:
			f.tasks.mu.Lock()
			up := e.up
			f.tasks.mu.Unlock()
			if returned && up.TaskID != "" {
				f.cancelUpstream(ctx, p, up)
			}
		}
		return f.modernResult(m.ID, string(mcp.ResultTypeComplete), nil)
	}
}

// startModernTask is startTask for a 2026-07-28 caller: the same task, the
// handle as a CreateTaskResult (resultType "task", the task's members at
// the top level).
func (f *Face) startModernTask(ctx context.Context, m *view.Message, body []byte) []byte {
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return rpcError(m.ID, mcp.INVALID_REQUEST, "no authenticated caller")
	}
	e, err := f.runTask(ctx, p, nil, body)
	if err != nil {
		return taskError(m.ID, err)
	}
	f.tasks.mu.Lock()
	t := e.detailed()
	f.tasks.mu.Unlock()
	return f.modernResult(m.ID, "task", t)
}

// taskStatusNotification is the 2025-11-25 notifications/tasks/status for
// e. Callers hold st.mu.
func (e *taskEntry) statusNotification() []byte {
	return mustMarshal(mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: string(mcp.MethodNotificationTasksStatus), Params: mcp.NotificationParams{AdditionalFields: taskFields(e.snapshot())}},
	})
}

// taskFields is a task snapshot as notification params.
func taskFields(t taskJSON) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(mustMarshal(t), &m)
	return m
}

// notifyStatus tells a 2025-11-25 requestor that e's status changed, on the
// stream the task was created over when it lasts (stdio). Callers hold
// st.mu.
func (e *taskEntry) notifyStatus() {
	e.signalWatchers()
	if e.notify == nil || e.modern {
		return
	}
	// Written outside st.mu, in the order the changes happened: one
	// writer per task drains its outbox, so an input_required cannot reach
	// the host after the cancelled that followed it.
	e.outbox = append(e.outbox, e.statusNotification())
	if !e.writing {
		e.writing = true
		go e.drainOutbox()
	}
}

// drainOutbox writes the task's queued status notifications in order, then
// ends; notifyStatus starts it again for the next ones.
func (e *taskEntry) drainOutbox() {
	for {
		e.st.mu.Lock()
		if len(e.outbox) == 0 {
			e.writing = false
			e.st.mu.Unlock()
			return
		}
		msg := e.outbox[0]
		e.outbox = e.outbox[1:]
		e.st.mu.Unlock()
		_ = e.notify.WriteMessage(msg)
	}
}

// signalWatchers wakes the listen streams that follow e. Callers hold
// st.mu.
func (e *taskEntry) signalWatchers() {
	for ch := range e.watchers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// listensForTasks reports a 2026-07-28 subscriptions/listen that asks for
// task status notifications.
func listensForTasks(m *view.Message) bool {
	return m.Method == string(mcp.MethodSubscriptionsListen) && m.ID != nil && len(m.Params.Notifications.TaskIDs) > 0 &&
		m.Params.Meta != nil && mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion())
}

// maxListenedTasks bounds the task ids one subscriptions/listen may name.
const maxListenedTasks = 100

// serveTaskListen serves a subscriptions/listen that names tasks: the
// acknowledgement lists the caller's own tasks among them (an id of no task
// of the caller's is left out, as for one that does not exist), then each
// agreed task's state goes out as notifications/tasks now and whenever it
// changes, tagged with the subscription id, until the caller closes the
// stream. The stream serves tasks only: the acknowledgement agrees to no
// other notification type (open another listen for list changes).
func (f *Face) serveTaskListen(w http.ResponseWriter, r *http.Request, p *request.Principal, m *view.Message) {
	w.Header().Set("Content-Type", "application/json")
	if !declaresTasks(m.Params.Meta) {
		_, _ = w.Write(missingTasksExtension(m.ID))
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		_, _ = w.Write(rpcError(m.ID, mcp.INTERNAL_ERROR, "the response cannot stream"))
		return
	}
	var sub any
	_ = json.Unmarshal(m.ID, &sub)
	agreed := []string{}
	var entries []*taskEntry
	for _, id := range m.Params.Notifications.TaskIDs {
		if len(entries) == maxListenedTasks {
			break
		}
		if e, err := f.tasks.get(p, id); err == nil {
			agreed = append(agreed, id)
			entries = append(entries, e)
		}
	}
	sig := make(chan struct{}, 1)
	f.tasks.mu.Lock()
	for _, e := range entries {
		if e.watchers == nil {
			e.watchers = map[chan struct{}]bool{}
		}
		e.watchers[sig] = true
	}
	f.tasks.mu.Unlock()
	defer func() {
		f.tasks.mu.Lock()
		for _, e := range entries {
			delete(e.watchers, sig)
		}
		f.tasks.mu.Unlock()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(method string, params map[string]any) bool {
		meta := map[string]any{mcp.MetaKeySubscriptionID: sub}
		if m, ok := params["_meta"].(map[string]any); ok {
			for k, v := range m {
				meta[k] = v
			}
			delete(params, "_meta")
		}
		err := relay.WriteEvent(w, mustMarshal(mcp.JSONRPCNotification{
			JSONRPC:      mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{Meta: meta, AdditionalFields: params}},
		}))
		fl.Flush()
		return err == nil
	}
	if !send(string(mcp.MethodNotificationSubscriptionsAcknowledged), map[string]any{"notifications": map[string]any{"taskIds": agreed}}) {
		return
	}
	last := map[*taskEntry]string{}
	report := func() bool {
		for _, e := range entries {
			f.tasks.mu.Lock()
			t := e.detailed()
			f.tasks.mu.Unlock()
			key := string(mustMarshal([]any{t["status"], t["lastUpdatedAt"], t["_meta"]}))
			if last[e] == key {
				continue
			}
			last[e] = key
			if !send("notifications/tasks", t) {
				return false
			}
		}
		return true
	}
	if !report() {
		return
	}
	for {
		select {
		case <-sig:
			if !report() {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}
