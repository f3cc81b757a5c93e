package publish

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
	"github.com/a2a-mcp-bridge/bridge/mcp/elicitation"
)

// run states.
const (
	stateActive = iota // an Execute drives the run
	stateParked        // waiting for the A2A client's answer; no Execute
	stateDone          // finished or given up
)

// run is one upstream tool call; it may outlive the Execute that started
// it while it waits for input.
type run struct {
	taskID, owner string
	tool          *tool
	ctx           context.Context
	cancel        context.CancelFunc
	finished      chan struct{}
	raw           json.RawMessage // valid after finished
	err           error           // valid after finished
	timer         *time.Timer     // per-tool timeout, paused while parked
	timeout       time.Duration
	timedOut      atomic.Bool
	cancelled     atomic.Bool

	progMu  sync.Mutex
	progQ   []progressNote // received, not yet reported
	progSig chan struct{}

	elicits chan *elicitReq

	mu      sync.Mutex
	state   int
	u       *taskmanager.Updater
	pending *elicitReq
	resumed chan struct{}
}

type elicitReq struct {
	e     connector.Elicitation
	reply chan connector.ElicitResult
}

// progressNote is one progress notification of the upstream.
type progressNote struct {
	p, total float64
	msg      string
}

// maxQueuedProgress bounds the progress notifications waiting for the
// driver; beyond it the latest replaces the last queued.
const maxQueuedProgress = 256

// onProgress runs on the transport's reader, before the call's result is
// delivered: it queues the notification and signals the driver, which
// reports every queued one before the result.
func (r *run) onProgress(p, total float64, msg string) {
	r.progMu.Lock()
	n := progressNote{p: p, total: total, msg: msg}
	if len(r.progQ) >= maxQueuedProgress {
		r.progQ[len(r.progQ)-1] = n
	} else {
		r.progQ = append(r.progQ, n)
	}
	r.progMu.Unlock()
	select {
	case r.progSig <- struct{}{}:
	default:
	}
}

// takeProgress returns and clears the queued progress notifications.
func (r *run) takeProgress() []progressNote {
	r.progMu.Lock()
	defer r.progMu.Unlock()
	q := r.progQ
	r.progQ = nil
	return q
}

// elicit hands an upstream question to the driver and waits for the answer.
func (r *run) elicit(ctx context.Context, e connector.Elicitation) (connector.ElicitResult, error) {
	q := &elicitReq{e: e, reply: make(chan connector.ElicitResult, 1)}
	select {
	case r.elicits <- q:
	case <-ctx.Done():
		return connector.ElicitResult{}, ctx.Err()
	case <-r.ctx.Done():
		return connector.ElicitResult{}, r.ctx.Err()
	}
	select {
	case ans := <-q.reply:
		return ans, nil
	case <-ctx.Done():
		return connector.ElicitResult{}, ctx.Err()
	case <-r.ctx.Done():
		return connector.ElicitResult{}, r.ctx.Err()
	}
}

// Execute implements taskmanager.Executor.
func (a *Agent) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	if req.Task != nil {
		if r, q := a.parked(req.TaskID); r != nil {
			ans, err := answer(req.Message, q.e)
			if err != nil {
				// The question stands: asked again with what was wrong; the
				// upstream never sees an answer that does not fit.
				return a.reask(ctx, r, u, q, err)
			}
			if r := a.resume(req.TaskID); r != nil {
				r.pending.reply <- ans
				r.pending = nil
				return a.drive(ctx, r, u, "")
			}
		}
		if req.Task.Status.State == a2a.TaskStateInputRequired {
			return u.Fail(ctx, "the tool call that asked for input is no longer waiting (it timed out, or the bridge restarted); send a new message to call the tool again")
		}
	}
	if av, ok := a.up.(Availability); ok {
		if err := av.Available(); err != nil {
			a.log.Warn("publish: message refused: the MCP server is unavailable", "task", req.TaskID, "err", err)
			return a2a.AgentUnavailable(a.name(), "its MCP server cannot be reached")
		}
	}
	ts := a.toolSet()
	t, args, problem := ts.selectTool(req.Message, req.Metadata)
	if problem != "" {
		return u.Fail(ctx, problem)
	}
	if err := t.validate(args); err != nil {
		return u.Fail(ctx, err.Error()+"; tools: "+ts.names())
	}
	if a.cfg.Authorize != nil {
		actx := req.Context
		if actx == nil {
			actx = ctx
		}
		if err := a.cfg.Authorize(actx, t.Name, t.Annotations.Destructive()); err != nil {
			return u.Status(ctx, a2a.TaskStateRejected, u.NewAgentMessage(a2a.TextPart(fmt.Sprintf("call of tool %q refused: %s", t.Name, safeErr(err)))))
		}
	}
	calling := fmt.Sprintf("calling tool %s", t.Name)
	if req.Blocking && req.Task == nil {
		// Nobody sees the task before its first event, nor any
		// intermediate event: a call that answers within the grace is
		// written once, created finished (see workingGrace).
		return a.drive(ctx, a.start(req, t, args), u, calling)
	}
	if err := u.Working(ctx, calling); err != nil {
		return err
	}
	r := a.start(req, t, args)
	return a.drive(ctx, r, u, "")
}

// workingGrace is how long a blocking call of a new task runs before its
// "calling tool" WORKING state is written. The caller of a blocking
// SendMessage sees no intermediate state and nobody else knows the task
// yet, so the state is only worth its store write (a commit, an fsync on
// SQLite) when the call lasts: then ListTasks and GetTask show it running,
// and recovery finds it if the process dies. A fast tool (a local stdio
// server answers in well under a millisecond to a few, an HTTP one nearby
// in some milliseconds) answers within 50 ms, and its call is one write,
// the task created finished; a slower one pays the write it always paid,
// 50 ms late, which is short against the lease TTL (15 s) and below what
// a person watching a task list notices. A progress notification or a
// question writes the state at once, before itself.
const workingGrace = 50 * time.Millisecond

// safeErr is the text of an authorization error shown to the caller.
func safeErr(err error) string {
	var e *a2a.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// start launches the upstream call of a run. Its context does not end with
// the Execute that started it (the call may wait for input across messages)
// but with Cancel, the per-tool timeout or the input timeout.
func (a *Agent) start(req *taskmanager.Request, t *tool, args json.RawMessage) *run {
	base := req.Context
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(base))
	r := &run{
		taskID: req.TaskID, owner: req.Owner, tool: t, ctx: ctx, cancel: cancel,
		finished: make(chan struct{}), progSig: make(chan struct{}, 1), elicits: make(chan *elicitReq),
		timeout: a.timeout(t.Name), state: stateActive,
	}
	r.timer = time.AfterFunc(r.timeout, func() {
		r.timedOut.Store(true)
		cancel()
	})
	a.runsMu.Lock()
	a.runs[r.taskID] = r
	a.runsMu.Unlock()
	go func() {
		defer close(r.finished)
		r.raw, r.err = a.up.CallTool(ctx, t.Name, args, r.onProgress, r.elicit)
		r.timer.Stop()
	}()
	return r
}

func (a *Agent) forget(r *run) {
	a.runsMu.Lock()
	if a.runs[r.taskID] == r {
		delete(a.runs, r.taskID)
	}
	a.runsMu.Unlock()
	r.cancel()
}

// parked returns the run of taskID waiting for an answer, and its question.
func (a *Agent) parked(taskID string) (*run, *elicitReq) {
	a.runsMu.Lock()
	r := a.runs[taskID]
	a.runsMu.Unlock()
	if r == nil {
		return nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != stateParked || r.pending == nil {
		return nil, nil
	}
	return r, r.pending
}

// CheckAnswer reports whether msg, sent by owner on taskID, answers the
// question the task waits on: nil when the task waits on none (another
// message) or when it fits; otherwise an a2a InvalidParams error naming
// what does not fit, for the caller to get before anything changes (the
// question stands).
func (a *Agent) CheckAnswer(owner, taskID string, msg *a2a.Message) error {
	r, q := a.parked(taskID)
	if r == nil || r.owner != owner || msg == nil {
		return nil
	}
	if _, err := answer(msg, q.e); err != nil {
		return a2a.ErrInvalidParams.Withf("%s", err.Error())
	}
	return nil
}

// reask answers a message that does not fit the question: INPUT_REQUIRED
// again, with the problem and the question; the run stays parked.
func (a *Agent) reask(ctx context.Context, r *run, u *taskmanager.Updater, q *elicitReq, problem error) error {
	r.mu.Lock()
	r.u = u
	r.mu.Unlock()
	parts := []a2a.Part{a2a.TextPart(problem.Error() + "\n" + questionText(q.e))}
	if len(q.e.RequestedSchema) > 0 {
		if p, err := a2a.DataPart(json.RawMessage(q.e.RequestedSchema)); err == nil {
			p.MediaType = "application/schema+json"
			p.Metadata = a2a.Metadata{"mcp.elicitation": "requestedSchema"}
			parts = append(parts, p)
		}
	}
	msg := u.NewAgentMessage(parts...)
	msg.Metadata = a2a.Metadata{"mcp.tool": r.tool.Name, "mcp.elicitation.mode": q.e.Mode}
	return u.Status(ctx, a2a.TaskStateInputRequired, msg)
}

// resume takes over a parked run of the task, if there is one.
func (a *Agent) resume(taskID string) *run {
	a.runsMu.Lock()
	r := a.runs[taskID]
	a.runsMu.Unlock()
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state != stateParked {
		return nil
	}
	r.state = stateActive
	close(r.resumed)
	r.timer.Reset(r.timeout)
	return r
}

// drive follows a run for one Execute: progress becomes WORKING updates, a
// question parks the run (INPUT_REQUIRED), the result ends the task.
// calling, when set, is a WORKING text not written yet: it is written once
// the call outlasts workingGrace, or before the first progress update or
// question, or when the task is cancelled first; a result that comes
// before any of these ends the task without it.
func (a *Agent) drive(ctx context.Context, r *run, u *taskmanager.Updater, calling string) error {
	r.mu.Lock()
	r.u = u
	r.mu.Unlock()
	var graceC <-chan time.Time
	if calling != "" {
		grace := time.NewTimer(workingGrace)
		defer grace.Stop()
		graceC = grace.C
	}
	// working writes the deferred WORKING state, if it is still due.
	working := func() error {
		if calling == "" {
			return nil
		}
		text := calling
		calling, graceC = "", nil
		return u.Working(ctx, text)
	}
	lastP := math.Inf(-1)
	var lastEmit time.Time
	var throttle *time.Timer
	var throttleC <-chan time.Time
	defer func() {
		if throttle != nil {
			throttle.Stop()
		}
	}()
	// held is a notification kept back by the rate limit (the latest wins).
	var held *progressNote
	emit := func(n progressNote) error {
		if n.p <= lastP {
			return nil
		}
		if err := working(); err != nil {
			return err
		}
		lastP, lastEmit = n.p, time.Now()
		return u.Working(ctx, progressText(n.p, n.total, n.msg))
	}
	// emitProgress reports the queued notifications in order; with
	// ProgressInterval, one per interval and the latest wins. final
	// reports what is held back too: the result comes next, and every
	// progress the upstream sent before it precedes it.
	emitProgress := func(final bool) error {
		q := r.takeProgress()
		if iv := a.cfg.ProgressInterval; iv > 0 && final && len(q) > 1 {
			q = q[len(q)-1:] // rate limited: the latest stands for the rest
		}
		for _, n := range q {
			if n.p <= lastP {
				continue
			}
			if iv := a.cfg.ProgressInterval; iv > 0 && !final {
				if wait := iv - time.Since(lastEmit); wait > 0 {
					held = &n
					if throttleC == nil {
						throttle = time.NewTimer(wait)
						throttleC = throttle.C
					}
					continue
				}
			}
			held = nil
			if err := emit(n); err != nil {
				return err
			}
		}
		if held != nil && (final || throttleC == nil) {
			n := *held
			held = nil
			return emit(n)
		}
		return nil
	}
	finish := func() error {
		// The upstream's progress is queued before its result is
		// delivered: report it first; none is reported after the result.
		if err := emitProgress(true); err != nil {
			return err
		}
		a.forget(r)
		return a.finish(ctx, r, u)
	}
	for {
		select {
		case <-r.finished:
			return finish()
		default:
		}
		select {
		case <-r.finished:
			return finish()
		case <-ctx.Done():
			// The task was cancelled (Cancel has run) or the bridge stops.
			r.cancelled.Store(true)
			a.forget(r)
			<-r.finished
			// The task exists, as it did when WORKING came first: the
			// manager ends it CANCELED.
			if err := working(); err != nil {
				return err
			}
			return ctx.Err()
		case <-graceC:
			if err := working(); err != nil {
				return err
			}
		case <-r.progSig:
			if err := emitProgress(false); err != nil {
				return err
			}
		case <-throttleC:
			throttle, throttleC = nil, nil
			if err := emitProgress(false); err != nil {
				return err
			}
		case q := <-r.elicits:
			if err := working(); err != nil {
				a.forget(r)
				return err
			}
			return a.park(ctx, r, u, q)
		}
	}
}

func progressText(p, total float64, msg string) string {
	var b strings.Builder
	b.WriteString(msg)
	if msg == "" {
		b.WriteString("progress")
	}
	if total > 0 {
		fmt.Fprintf(&b, " (%g/%g)", p, total)
	} else if msg == "" {
		fmt.Fprintf(&b, " %g", p)
	}
	return b.String()
}

// park reports an upstream question as INPUT_REQUIRED and leaves the call
// waiting for the next message on the task.
func (a *Agent) park(ctx context.Context, r *run, u *taskmanager.Updater, q *elicitReq) error {
	r.timer.Stop()
	resumed := make(chan struct{})
	r.mu.Lock()
	r.state, r.pending, r.resumed = stateParked, q, resumed
	r.mu.Unlock()
	parts := []a2a.Part{a2a.TextPart(questionText(q.e))}
	if len(q.e.RequestedSchema) > 0 {
		if p, err := a2a.DataPart(json.RawMessage(q.e.RequestedSchema)); err == nil {
			p.MediaType = "application/schema+json"
			p.Metadata = a2a.Metadata{"mcp.elicitation": "requestedSchema"}
			parts = append(parts, p)
		}
	}
	msg := u.NewAgentMessage(parts...)
	msg.Metadata = a2a.Metadata{"mcp.tool": r.tool.Name, "mcp.elicitation.mode": q.e.Mode}
	if err := u.Status(ctx, a2a.TaskStateInputRequired, msg); err != nil {
		a.forget(r)
		return err
	}
	go a.watchParked(r, resumed)
	return nil
}

func questionText(e connector.Elicitation) string {
	s := e.Message
	if e.Mode == "url" && e.URL != "" {
		s += "\nOpen: " + e.URL
	}
	return s + "\nAnswer with a data part matching the requested schema, or the text \"decline\" or \"cancel\"."
}

// watchParked ends a parked run that is not resumed in time, whose call
// ended on its own, or whose task was cancelled meanwhile.
func (a *Agent) watchParked(r *run, resumed chan struct{}) {
	timer := time.NewTimer(a.cfg.InputTimeout)
	defer timer.Stop()
	var changes <-chan struct{}
	if a.cfg.Store != nil {
		ch, stop := a.cfg.Store.Watch(r.ctx, r.taskID)
		defer stop()
		changes = ch
	}
	giveUp := func() (*taskmanager.Updater, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.state != stateParked {
			return nil, false
		}
		r.state = stateDone
		return r.u, true
	}
	bg := context.Background()
	for {
		select {
		case <-resumed:
			return
		case <-r.finished:
			if u, ok := giveUp(); ok {
				a.forget(r)
				if err := a.finish(bg, r, u); err != nil && !errors.Is(err, taskmanager.ErrTaskClosed) {
					a.log.Warn("publish: could not finish a parked task", "task", r.taskID, "err", err)
				}
			}
			return
		case <-timer.C:
			if u, ok := giveUp(); ok {
				a.forget(r)
				<-r.finished
				_ = u.Fail(bg, fmt.Sprintf("no answer to the question of tool %s within %s; the call was cancelled", r.tool.Name, a.cfg.InputTimeout))
			}
			return
		case <-changes:
			rec, err := a.cfg.Store.GetTask(bg, r.owner, r.taskID)
			if err == nil && rec.Task.Status.State.Terminal() {
				if _, ok := giveUp(); ok {
					a.forget(r)
				}
				return
			}
		}
	}
}

// answer turns the client's next message into the elicitation's answer: a
// data part is accepted content; the text "decline" or "cancel" is that
// action; other text fills the only property of a one-property schema
// (read as its type). Accepted content is held to the requested schema: an
// answer that does not fit is an error, never an empty or declined answer
// given on the user's behalf.
func answer(msg *a2a.Message, e connector.Elicitation) (connector.ElicitResult, error) {
	schema, serr := elicitation.Parse(e.RequestedSchema)
	accept := func(m map[string]any) (connector.ElicitResult, error) {
		if serr == nil {
			if err := schema.Validate(m); err != nil {
				return connector.ElicitResult{}, err
			}
		}
		return connector.ElicitResult{Action: connector.ActionAccept, Content: m}, nil
	}
	var texts []string
	for _, p := range msg.Parts {
		switch p.Kind {
		case a2a.PartData:
			d := json.NewDecoder(bytes.NewReader(p.Data))
			d.UseNumber()
			var m map[string]any
			if d.Decode(&m) == nil && m != nil {
				return accept(m)
			}
			return connector.ElicitResult{}, errors.New("the answer's data part must be a JSON object matching the requested schema")
		case a2a.PartText:
			texts = append(texts, p.Text)
		}
	}
	text := strings.TrimSpace(strings.Join(texts, "\n"))
	switch strings.ToLower(text) {
	case "cancel":
		return connector.ElicitResult{Action: connector.ActionCancel}, nil
	case "decline":
		return connector.ElicitResult{Action: connector.ActionDecline}, nil
	}
	if e.Mode == "url" {
		return connector.ElicitResult{Action: connector.ActionAccept}, nil
	}
	if serr == nil && len(schema.Properties()) == 1 && text != "" {
		k := schema.Properties()[0]
		return accept(map[string]any{k: typedText(text, schema.Type(k))})
	}
	if serr != nil {
		var s struct {
			Properties map[string]any `json:"properties"`
		}
		if json.Unmarshal(e.RequestedSchema, &s) == nil && len(s.Properties) == 1 && text != "" {
			for k := range s.Properties {
				return connector.ElicitResult{Action: connector.ActionAccept, Content: map[string]any{k: text}}, nil
			}
		}
	}
	if text == "" {
		return connector.ElicitResult{}, errors.New("the answer is empty")
	}
	want := "the requested schema"
	if serr == nil {
		want = "the requested schema (properties " + strings.Join(schema.Properties(), ", ") + ")"
	}
	return connector.ElicitResult{}, fmt.Errorf("a text answer fits only a one-property schema: send a data part matching %s", want)
}

// typedText reads a text answer as the property's type: a number, an
// integer or a boolean when it is one (else the text, which the schema then
// refuses with its own message).
func typedText(text, typ string) any {
	switch typ {
	case "number", "integer":
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			return f
		}
	case "boolean":
		if b, err := strconv.ParseBool(text); err == nil {
			return b
		}
	case "array":
		var list []any
		for _, s := range strings.Split(text, ",") {
			list = append(list, strings.TrimSpace(s))
		}
		return list
	}
	return text
}

// finish ends the task from the call's outcome.
func (a *Agent) finish(ctx context.Context, r *run, u *taskmanager.Updater) error {
	name := r.tool.Name
	switch {
	case r.cancelled.Load():
		return ignoreClosed(u.Status(ctx, a2a.TaskStateCanceled, u.NewAgentMessage(a2a.TextPart("canceled by the client"))))
	case r.timedOut.Load():
		return u.Fail(ctx, fmt.Sprintf("tool %s did not finish within %s; the call was cancelled", name, r.timeout))
	case errors.Is(r.err, connector.ErrDied):
		return u.Fail(ctx, fmt.Sprintf("the MCP server went away during the call of tool %s; it is being restarted, try again", name))
	case connector.Unreachable(r.err):
		a.log.Warn("publish: tool call failed: the MCP server is unreachable", "task", r.taskID, "tool", name, "err", r.err)
		return u.Fail(ctx, fmt.Sprintf("tool %s is unavailable: its MCP server cannot be reached; retry later", name))
	case r.err != nil:
		var se *connector.ServerError
		if errors.As(r.err, &se) {
			return u.Fail(ctx, fmt.Sprintf("tool %s failed: the server answered: %s", name, clean(se.Message, 500)))
		}
		// The detail (addresses, the bridge's side of the hop) is logged,
		// not shown.
		a.log.Warn("publish: tool call failed", "task", r.taskID, "tool", name, "err", r.err)
		return u.Fail(ctx, fmt.Sprintf("tool %s failed", name))
	}
	parts, isError, errText, err := toParts(r.raw)
	if err != nil {
		return u.Fail(ctx, fmt.Sprintf("tool %s: %v", name, err))
	}
	if isError {
		if errText == "" {
			errText = "the tool reported an error"
		}
		return u.Fail(ctx, fmt.Sprintf("tool %s failed: %s", name, errText))
	}
	if len(parts) == 0 {
		return u.Complete(ctx, fmt.Sprintf("tool %s returned no content", name))
	}
	// The artifact and the end of the task came in one answer: one write.
	art := a2a.Artifact{Name: "result", Parts: parts, Metadata: a2a.Metadata{"mcp.tool": name}}
	return u.EmitAll(ctx,
		a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{Artifact: art, LastChunk: true}},
		a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{State: a2a.TaskStateCompleted}}})
}

func ignoreClosed(err error) error {
	if errors.Is(err, taskmanager.ErrTaskClosed) {
		return nil
	}
	return err
}

// Cancel implements taskmanager.Executor: the upstream call is cancelled (the
// transport and era decide how) and the task marked CANCELED.
func (a *Agent) Cancel(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	a.runsMu.Lock()
	r := a.runs[req.TaskID]
	a.runsMu.Unlock()
	if r != nil {
		r.cancelled.Store(true)
		r.cancel()
	}
	return ignoreClosed(u.Status(ctx, a2a.TaskStateCanceled, u.NewAgentMessage(a2a.TextPart("canceled by the client"))))
}
