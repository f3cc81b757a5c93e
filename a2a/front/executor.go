package front

import (
	"context"
	"errors"
	"io"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// callContext carries the bridge's caller (from the request's context) to
// the outbound credential hook; without a credential the hook never reads
// it, and ctx is returned as it is (the lookup through the task's detached
// context and the value's context were two allocations a relayed call).
func (p *Proxy) callContext(ctx context.Context, req *taskmanager.Request) context.Context {
	if p.cred == nil {
		return ctx
	}
	src := req.Context
	if src == nil {
		src = ctx
	}
	return context.WithValue(ctx, callerKey{}, request.PrincipalFrom(src))
}

func (p *Proxy) track(taskID string, ref upstreamRef) {
	p.mu.Lock()
	p.running[taskID] = ref
	p.mu.Unlock()
}

func (p *Proxy) untrack(taskID string) {
	p.mu.Lock()
	delete(p.running, taskID)
	p.mu.Unlock()
}

func (p *Proxy) lookup(taskID string) (upstreamRef, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ref, ok := p.running[taskID]
	return ref, ok
}

// Execute implements taskmanager.Executor: it relays one message to the upstream
// and its outcome back, event by event.
func (p *Proxy) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	ctx = p.callContext(ctx, req)
	if p.sendLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.sendLimit)
		defer cancel()
	}
	r := &relay{p: p, st: p.state.Load(), req: req, u: u}
	if req.Task != nil {
		ref, err := p.seal.fromTask(req.Owner, req.Task)
		if err != nil {
			return a2a.ErrUnsupportedOperation.With("the task's upstream mapping is unreadable; it cannot be continued")
		}
		r.ref, r.known, r.continued = ref, true, true
		p.track(req.TaskID, ref)
	}
	defer p.untrack(req.TaskID)

	// A shallow copy: only top-level fields change, and the request is
	// only encoded.
	// The message, the request and its configuration in one allocation.
	up := &upstreamSend{msg: *req.Message}
	out := &up.msg
	out.TaskID, out.ContextID = r.ref.TaskID, r.ref.ContextID
	out.ReferenceTaskIDs = nil // bridge ids mean nothing upstream
	// History is not relayed (the bridge keeps its own); the caller's
	// webhook is never given to the upstream.
	up.cfg = a2a.SendMessageConfiguration{HistoryLength: &noHistory}
	up.req = a2a.SendMessageRequest{Message: out, Metadata: req.Metadata, Configuration: &up.cfg}
	sreq := &up.req
	if req.Config != nil {
		sreq.Configuration.AcceptedOutputModes = req.Config.AcceptedOutputModes
	}
	// A blocking caller sees only the outcome: one blocking call upstream
	// costs a fraction of a relayed stream. A caller that streams, or asked
	// for the task at once, or gave a webhook, gets the events as they come.
	if r.st.streaming && !relayBlocking(req) {
		return r.stream(ctx, sreq)
	}
	return r.blocking(ctx, sreq)
}

// noHistory is the historyLength of every relayed send (read only).
var noHistory int32

// relayBlocking reports whether a message is relayed with one blocking
// upstream call: the caller waits for the outcome and no webhook of its
// own needs the intermediate events.
func relayBlocking(req *taskmanager.Request) bool {
	return req.Blocking && (req.Config == nil || req.Config.TaskPushNotificationConfig == nil)
}

// Cancel implements taskmanager.Executor: it cancels the upstream task (bounded by
// Config.Timeout) and marks the bridge's task CANCELED.
func (p *Proxy) Cancel(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	ref, ok := p.lookup(req.TaskID)
	if !ok {
		r, err := p.seal.fromTask(req.Owner, req.Task)
		ref, ok = r, err == nil
	}
	text := "canceled by the client"
	if ok {
		cctx, cancel := context.WithTimeout(p.callContext(ctx, req), p.timeout)
		_, err := p.state.Load().client.CancelTask(cctx, &a2a.CancelTaskRequest{ID: ref.TaskID})
		cancel()
		if err != nil {
			p.log.Warn("proxy: upstream cancel failed", "task", req.TaskID, "err", err)
			text = "canceled; the upstream agent did not confirm the cancellation"
		}
	}
	err := u.Status(ctx, a2a.TaskStateCanceled, u.NewAgentMessage(a2a.TextPart(text)))
	if errors.Is(err, taskmanager.ErrTaskClosed) {
		return nil
	}
	return err
}

// relay is one execution: it learns the upstream ids from the first event,
// creates the bridge's task with the sealed mapping, and re-emits events
// with the bridge's ids.
type relay struct {
	p   *Proxy
	st  *cardState // the card in use when the execution started
	req *taskmanager.Request
	u   *taskmanager.Updater

	ref       upstreamRef
	known     bool // the upstream ids are known (and the bridge task exists)
	continued bool // the message continues an existing task
	events    int  // upstream events handled
	done      bool // a terminal or interrupted state (or a reply) was relayed

	// batching has emit hold events in pending, for relayStream to write
	// together (see relayStream).
	batching bool
	pending  []a2a.StreamResponse
}

// stream relays a streaming send.
func (r *relay) stream(ctx context.Context, sreq *a2a.SendMessageRequest) error {
	s, err := r.st.client.SendStreamingMessage(ctx, sreq)
	return r.relayStream(ctx, s, err)
}

// relayStream relays an upstream event stream (opened with err) until the
// task stops.
func (r *relay) relayStream(ctx context.Context, s *client.Stream, err error) error {
	if err != nil {
		return r.broken(ctx, err)
	}
	defer s.Close()
	for !r.done {
		ev, err := s.Next()
		if err == io.EOF {
			err = a2a.ErrInvalidAgentResponse.With("the upstream stream ended before the task stopped")
		}
		if err != nil {
			if ferr := r.flush(ctx); ferr != nil {
				return r.emitted(ferr)
			}
			return r.broken(ctx, err)
		}
		// Events the upstream sent back to back (already read when this
		// one is relayed) are written together, in one store write (and on
		// SQLite one commit), instead of one each; every subscriber still
		// sees each of them in order. Nothing waits for company: once the
		// connection holds no further complete event, what is held is
		// written before the next read.
		r.batching = r.known
		err = r.handle(ctx, ev, false)
		r.batching = false
		switch {
		case err != nil:
			// What is held came before the event that failed: it is
			// written first, as one by one, and if one of it is refused,
			// that is the error.
			if ferr := r.flush(ctx); ferr != nil {
				err = ferr
			}
		case r.done || !s.Ready():
			err = r.flush(ctx)
		}
		if err != nil {
			r.pending = nil
			return r.emitted(err)
		}
	}
	return nil
}

// emit relays one event with the bridge's ids: at once, or held for
// relayStream's next write while batching.
func (r *relay) emit(ctx context.Context, ev a2a.StreamResponse) error {
	if !r.batching {
		return r.u.Emit(ctx, ev)
	}
	r.pending = append(r.pending, ev)
	return nil
}

// flush writes the held events in one store write. An event the task
// manager refuses fails as it would have alone: the events before it are
// written all the same, the error is its own (Emit's), and the events
// after it are dropped, as the relay stops at an error.
func (r *relay) flush(ctx context.Context) error {
	if len(r.pending) == 0 {
		return nil
	}
	// The events are handed over (see Updater.EmitAll), the slice too.
	evs := r.pending
	r.pending = nil
	err := r.u.EmitAll(ctx, evs...)
	if err == nil {
		return nil
	}
	// Declared after the nil check, as in Updater.Emit: errors.As moves ee
	// to the heap.
	var ee *taskmanager.EventError
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}

func (r *relay) blocking(ctx context.Context, sreq *a2a.SendMessageRequest) error {
	resp, err := r.st.client.SendMessage(ctx, sreq)
	if err != nil {
		return r.broken(ctx, err)
	}
	ev := &a2a.StreamResponse{Task: resp.Task, Message: resp.Message}
	if err := r.handle(ctx, ev, true); err != nil {
		return r.emitted(err)
	}
	if r.done {
		return nil
	}
	// Some agents answer a blocking send before the task stopped. A
	// streaming upstream is followed to the end; otherwise the answer is
	// not usable.
	if !r.st.streaming || !r.known {
		return a2a.ErrInvalidAgentResponse.With("the upstream answered a blocking send with a task that has not stopped")
	}
	return r.follow(ctx)
}

// follow relays the rest of an upstream task that a blocking send left
// running, from a SubscribeToTask stream.
func (r *relay) follow(ctx context.Context) error {
	s, err := r.st.client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: r.ref.TaskID})
	return r.relayStream(ctx, s, err)
}

// emitted maps an Updater error: a task closed meanwhile (cancelled) ends
// the relay quietly.
func (r *relay) emitted(err error) error {
	if errors.Is(err, taskmanager.ErrTaskClosed) {
		return nil
	}
	return err
}

// broken handles a failed call or a stream that ended early. Before the
// task exists the error goes to the caller as is; afterwards the upstream
// task is read once to relay its final state if it has one.
func (r *relay) broken(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if r.known {
			return nil // cancelled: Cancel or the manager marks the task
		}
		return ctx.Err()
	}
	if !r.known {
		return r.p.unavailable(err)
	}
	gctx, cancel := context.WithTimeout(ctx, r.p.timeout)
	defer cancel()
	t, gerr := r.st.client.GetTask(gctx, &a2a.GetTaskRequest{ID: r.ref.TaskID, HistoryLength: a2a.Ptr[int32](0)})
	if gerr == nil && (t.Status.State.Terminal() || t.Status.State.Interrupted()) {
		if herr := r.handle(ctx, &a2a.StreamResponse{Task: t}, true); herr != nil {
			return r.emitted(herr)
		}
		if r.done {
			return nil
		}
	}
	return r.p.unavailable(err)
}

// learn records the upstream ids on the first event of a new task and
// creates the bridge's task carrying the sealed mapping.
func (r *relay) learn(ctx context.Context, taskID, contextID string) error {
	if r.known {
		return nil
	}
	if taskID == "" {
		return a2a.ErrInvalidAgentResponse.With("the upstream's first event names no task")
	}
	ref := upstreamRef{TaskID: taskID, ContextID: contextID}
	sealed, err := r.p.seal.seal(r.req.Owner, r.req.TaskID, ref)
	if err != nil {
		return err
	}
	r.ref, r.known = ref, true
	r.p.track(r.req.TaskID, ref)
	return r.u.Emit(ctx, a2a.StreamResponse{Task: &a2a.Task{
		Status:   a2a.TaskStatus{State: a2a.TaskStateSubmitted},
		Metadata: a2a.Metadata{MappingKey: sealed},
	}})
}

// settled creates the bridge's task directly in the final or interrupted
// state of the upstream's answer to a blocking send. Nobody can have
// subscribed to, or registered a webhook for, a task whose id was never
// handed out, so one write stands for the creation, artifact and status
// events; the task is the same as the events would have built.
func (r *relay) settled(ctx context.Context, t *a2a.Task) error {
	if t.ID == "" {
		return a2a.ErrInvalidAgentResponse.With("the upstream's answer names no task")
	}
	ref := upstreamRef{TaskID: t.ID, ContextID: t.ContextID}
	sealed, err := r.p.seal.seal(r.req.Owner, r.req.TaskID, ref)
	if err != nil {
		return err
	}
	// Not tracked as running: the task is created settled, so there is
	// nothing left to cancel upstream.
	r.ref, r.known = ref, true
	// The task and its history's first message in one allocation; the
	// slice is full (len == cap), so an append never writes into it.
	st := &settledTask{hist: [1]a2a.Message{*r.req.Message}}
	out := &st.task
	*out = a2a.Task{
		Status:   t.Status,
		History:  st.hist[:1:1],
		Metadata: a2a.Metadata{MappingKey: sealed},
	}
	if m := t.Status.Message; m != nil {
		out.Status.Message = r.message(m)
		out.History = append(out.History, *out.Status.Message)
	}
	out.Artifacts = withParts(t.Artifacts)
	if err := r.u.Emit(ctx, a2a.StreamResponse{Task: out}); err != nil {
		return err
	}
	r.done = true
	return nil
}

// settledTask is the task settled creates with its history's first message.
type settledTask struct {
	task a2a.Task
	hist [1]a2a.Message
}

// upstreamSend is what Execute sends upstream.
type upstreamSend struct {
	msg a2a.Message
	req a2a.SendMessageRequest
	cfg a2a.SendMessageConfiguration
}

// withParts returns the artifacts that have parts: arts itself when all
// have (the usual answer; arts is the decoded answer's, ours to take), a
// new slice otherwise, nil when none has.
func withParts(arts []a2a.Artifact) []a2a.Artifact {
	all := true
	for _, a := range arts {
		if len(a.Parts) == 0 {
			all = false
			break
		}
	}
	if all {
		if len(arts) == 0 {
			return nil
		}
		return arts
	}
	var out []a2a.Artifact
	for _, a := range arts {
		if len(a.Parts) > 0 {
			out = append(out, a)
		}
	}
	return out
}

// ours reports whether an event's task id is the mapped upstream task.
func (r *relay) ours(taskID string) bool { return taskID == "" || taskID == r.ref.TaskID }

// handle relays one upstream event. final says the event is a final
// snapshot (blocking answer or a read after a broken stream).
func (r *relay) handle(ctx context.Context, ev *a2a.StreamResponse, final bool) error {
	first := r.events == 0
	r.events++
	switch {
	case ev.Message != nil:
		if r.known || r.continued {
			return a2a.ErrInvalidAgentResponse.With("the upstream answered a task with a direct message")
		}
		r.done = true
		return r.u.Reply(ctx, r.message(ev.Message))
	case ev.Task != nil:
		t := ev.Task
		if st := t.Status.State; final && !r.known && !r.continued && relayBlocking(r.req) && (st.Terminal() || st.Interrupted()) {
			return r.settled(ctx, t)
		}
		if err := r.learn(ctx, t.ID, t.ContextID); err != nil {
			return err
		}
		if !r.ours(t.ID) {
			r.p.log.Warn("proxy: skipped an upstream event of another task", "task", r.req.TaskID)
			return nil
		}
		st := t.Status.State
		// A continuation's stream may start with the task as it was
		// before this message (still INPUT_REQUIRED): not news.
		if r.continued && first && !final && st.Interrupted() {
			return nil
		}
		if final || st.Terminal() || st.Interrupted() {
			for _, a := range t.Artifacts {
				if len(a.Parts) == 0 {
					continue
				}
				if err := r.emit(ctx, a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{Artifact: a, LastChunk: true}}); err != nil {
					return err
				}
			}
		}
		return r.status(ctx, t.Status, nil)
	case ev.StatusUpdate != nil:
		su := ev.StatusUpdate
		if err := r.learn(ctx, su.TaskID, su.ContextID); err != nil {
			return err
		}
		if !r.ours(su.TaskID) {
			r.p.log.Warn("proxy: skipped an upstream event of another task", "task", r.req.TaskID)
			return nil
		}
		return r.status(ctx, su.Status, su.Metadata)
	case ev.ArtifactUpdate != nil:
		au := ev.ArtifactUpdate
		if err := r.learn(ctx, au.TaskID, au.ContextID); err != nil {
			return err
		}
		if !r.ours(au.TaskID) {
			r.p.log.Warn("proxy: skipped an upstream event of another task", "task", r.req.TaskID)
			return nil
		}
		return r.emit(ctx, a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{
			TaskID: r.req.TaskID, ContextID: r.req.ContextID,
			Artifact: au.Artifact, Append: au.Append, LastChunk: au.LastChunk, Metadata: au.Metadata,
		}})
	}
	return nil
}

// status relays a status with the bridge's ids; SUBMITTED is implied by
// the task's creation and not relayed.
func (r *relay) status(ctx context.Context, s a2a.TaskStatus, meta a2a.Metadata) error {
	switch s.State {
	case a2a.TaskStateSubmitted, a2a.TaskStateUnspecified:
		return nil
	}
	if s.Message != nil {
		s.Message = r.message(s.Message)
	}
	err := r.emit(ctx, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{
		TaskID: r.req.TaskID, ContextID: r.req.ContextID, Status: s, Metadata: meta,
	}})
	if err == nil && (s.State.Terminal() || s.State.Interrupted()) {
		r.done = true
	}
	return err
}

// message rewrites an upstream agent message to the bridge's ids.
func (r *relay) message(m *a2a.Message) *a2a.Message {
	c := m.Clone()
	c.Role = a2a.RoleAgent
	c.ContextID = r.req.ContextID
	if c.TaskID != "" || r.known {
		c.TaskID = r.req.TaskID
	}
	c.ReferenceTaskIDs = nil
	return c
}
