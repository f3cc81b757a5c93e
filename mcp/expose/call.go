package expose

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/mcp/elicitation"
	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint"
	"github.com/a2a-mcp-bridge/bridge/netguard"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// elicitID is the input request id and the single form field of the
// elicitation that carries an agent's question.
const elicitID = "response"

// args is the tool input.
type args struct {
	Message   string          `json:"message"`
	Data      json.RawMessage `json:"data,omitempty"`
	Files     []fileArg       `json:"files,omitempty"`
	ContextID string          `json:"contextId,omitempty"`
	TaskID    string          `json:"taskId,omitempty"`
}

type fileArg struct {
	URI      string `json:"uri,omitempty"`
	Name     string `json:"name,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Bytes    string `json:"bytes,omitempty"`
}

// run accumulates what the agent said during one exchange.
type run struct {
	taskID    string
	contextID string
	state     a2a.TaskState
	status    *a2a.Message
	artifacts []a2a.Artifact
	message   *a2a.Message

	// A blocking send: its message id and when it was sent, to find the
	// task it started when the call ends before the answer (failure).
	blocking  bool
	messageID string
	sent      time.Time
}

func (t *AgentTools) handler(a *agent, skill string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return t.call(ctx, a, skill, req), nil
	}
}

func errResult(format string, v ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf(format, v...))}, IsError: true}
}

func (t *AgentTools) call(ctx context.Context, a *agent, skill string, req mcp.CallToolRequest) *mcp.CallToolResult {
	alias := a.cfg.Alias
	p := request.PrincipalFrom(ctx)
	if p == nil {
		return errResult("agent %s: no authenticated caller", alias)
	}
	a.mu.RLock()
	cl, c, lastErr, cause, refused, legacy := a.client, a.card, a.lastError, a.lastErr, a.refused, a.legacy
	a.mu.RUnlock()
	if cl == nil {
		t.log.Warn("expose: call to an agent without a usable card", "agent", alias, "error", lastErr)
		if refused {
			// Not the verification error: nothing of a refused card
			// reaches the model.
			return errResult("agent %s is unavailable: its card failed verification; retry later", alias)
		}
		if cause == nil {
			return errResult("agent %s unreachable: its card has not been fetched yet; retry later", alias)
		}
		return errResult("agent %s unreachable: fetching its card failed: %s; retry later", alias, causeText(cause))
	}
	streaming := c.Capabilities.Streaming != nil && *c.Capabilities.Streaming
	up := upstream{streaming: streaming, legacy: legacy}

	var in args
	var answer *mcp.ElicitationResult
	if req.Params.RequestState != "" {
		st, err := t.openState(req.Params.RequestState, p, a.toolName)
		if err != nil {
			return errResult("agent %s: the continuation state is invalid or expired; call the tool again", alias)
		}
		answer = server.ElicitationResponse(req.Params.InputResponses, elicitID)
		accepted := answer != nil && answer.Action == mcp.ElicitationResponseActionAccept
		switch {
		case st.Auth && accepted:
			in = args{Message: AuthorizedMessage, TaskID: st.TaskID, ContextID: st.ContextID}
		case st.Auth:
			return errResult("agent %s: the user did not complete the authorization; call the tool again with taskId %q after authorizing", alias, st.TaskID)
		case !accepted:
			return t.declined(a, st.TaskID, st.ContextID, st.Question)
		default:
			if bad := checkAnswer(answer); bad != nil {
				// The question stands: asked again, with what was wrong,
				// under the same state.
				return server.NewInputRequestBuilder(req.Params.RequestState).Elicit(elicitID, elicitParams(alias, bad.Error()+"\n"+st.Question)).ToolResult()
			}
			in = args{Message: elicitText(answer), TaskID: st.TaskID, ContextID: st.ContextID}
		}
	} else {
		raw := req.Params.RawArguments
		if raw == nil {
			b, err := json.Marshal(req.Params.Arguments)
			if err != nil {
				return errResult("agent %s: arguments are not a JSON object", alias)
			}
			raw = b
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return errResult("agent %s: invalid arguments: %s (expected {message, data?, files?, contextId?, taskId?})", alias, cleanText(err.Error(), 200))
		}
		if strings.TrimSpace(in.Message) == "" {
			return errResult("agent %s: `message` is required", alias)
		}
	}
	if in.TaskID != "" && !t.owners.owns(p.Key(), alias, "task", in.TaskID) {
		return errResult("agent %s: unknown taskId %q", alias, cleanText(in.TaskID, 80))
	}
	if in.ContextID != "" && !t.owners.owns(p.Key(), alias, "context", in.ContextID) {
		return errResult("agent %s: unknown contextId %q", alias, cleanText(in.ContextID, 80))
	}
	msg, err := buildMessage(in, skill)
	if err != nil {
		return errResult("agent %s: %s", alias, err.Error())
	}

	callCtx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	prog := newProgress(ctx, req)
	for round := 0; ; round++ {
		r, err := t.exchange(callCtx, cl, msg, up, prog, alias)
		t.own(p.Key(), alias, r)
		if err != nil {
			return t.failure(ctx, callCtx, cl, a, r, err)
		}
		if r.state == a2a.TaskStateAuthRequired && round < MaxElicitRounds {
			next, res := t.authorize(ctx, callCtx, a, r, p, skill)
			if res != nil {
				return res
			}
			msg = next
			continue
		}
		if r.state != a2a.TaskStateInputRequired || round >= MaxElicitRounds {
			return t.result(a, r)
		}
		question := statusText(r.status)
		if question == "" {
			question = "The agent needs more input."
		}
		switch {
		case canElicit(ctx) && server.IsModernRequest(ctx):
			state, err := t.sealState(stateClaims{Tool: a.toolName, TaskID: r.taskID, ContextID: r.contextID, Principal: p.Key(), Question: cleanText(question, 500)})
			if err != nil {
				return t.result(a, r)
			}
			return server.NewInputRequestBuilder(state).Elicit(elicitID, elicitParams(alias, question)).ToolResult()
		case canElicit(ctx):
			res, err := t.ask(ctx, callCtx, alias, question)
			if err != nil {
				t.log.Info("expose: elicitation failed; returning a continuation", "agent", alias, "error", err.Error())
				return t.result(a, r)
			}
			if res.Action != mcp.ElicitationResponseActionAccept {
				return t.declined(a, r.taskID, r.contextID, question)
			}
			msg, _ = buildMessage(args{Message: elicitText(res), TaskID: r.taskID, ContextID: r.contextID}, skill)
		default:
			return t.result(a, r)
		}
	}
}

// upstream is what a call knows of the agent's card.
type upstream struct {
	streaming bool // the agent streams
	legacy    bool // the agent speaks A2A 0.3
}

// exchange sends msg and collects the agent's answer. It streams when the
// agent can and something uses the events as they come: the host asked for
// progress (status updates become notifications/progress) or the call runs
// as an MCP task (whose status follows the upstream task). Otherwise one
// blocking SendMessage does: the expose profile of bridge serve under the
// bench's closed loop had the stream's SSE framing and event decoding at
// both ends for events nobody reads. A blocking send names no task id
// before it answers, so a call cancelled or timed out meanwhile finds its
// task by its message id to cancel it (failure, sentTask); an A2A 0.3
// agent, which has no ListTasks to find it with, is streamed to as before.
func (t *AgentTools) exchange(ctx context.Context, cl *client.Client, msg *a2a.Message, up upstream, prog *progress, alias string) (*run, error) {
	r := &run{taskID: msg.TaskID, contextID: msg.ContextID}
	defer func() { reportTask(ctx, alias, r) }()
	req := &a2a.SendMessageRequest{Message: msg}
	if !streamUpstream(ctx, up, prog) {
		r.blocking, r.messageID, r.sent = true, msg.MessageID, time.Now()
		resp, err := cl.SendMessage(ctx, req)
		if err != nil {
			return r, err
		}
		if resp.Message != nil {
			r.apply(&a2a.StreamResponse{Message: resp.Message})
		} else if resp.Task != nil {
			r.apply(&a2a.StreamResponse{Task: resp.Task})
		}
		if !up.streaming || r.message != nil || r.state.Terminal() || r.state.Interrupted() || r.taskID == "" {
			return r, nil
		}
		// Some agents answer a blocking send before the task stopped: a
		// streaming agent's task is followed to its end, as its stream
		// would have been.
		st, err := cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: r.taskID})
		if err != nil {
			return r, err
		}
		return r, t.follow(ctx, st, r, prog, alias)
	}
	st, err := cl.SendStreamingMessage(ctx, req)
	if err != nil {
		return r, err
	}
	return r, t.follow(ctx, st, r, prog, alias)
}

// streamUpstream reports whether a call sends its message with
// SendStreamingMessage (see exchange).
func streamUpstream(ctx context.Context, up upstream, prog *progress) bool {
	return up.streaming && (prog.token != nil || up.legacy || endpoint.RunsAsTask(ctx))
}

// follow folds st's events into r until the task stops or is interrupted,
// relaying status updates as progress.
func (t *AgentTools) follow(ctx context.Context, st *client.Stream, r *run, prog *progress, alias string) error {
	defer st.Close()
	for {
		ev, err := st.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		r.apply(ev)
		reportTask(ctx, alias, r)
		// The stream ends by itself when the task stops or is interrupted.
		// A Task snapshot may show the state before this message (a
		// continued task is still INPUT_REQUIRED), so only status updates
		// and direct messages end the exchange early.
		if ev.StatusUpdate != nil {
			text := statusText(r.status)
			if text == "" {
				text = shortState(r.state)
			}
			if !r.state.Terminal() && !r.state.Interrupted() {
				prog.send(text)
			}
			if r.state.Terminal() || r.state.Interrupted() {
				return nil
			}
		}
		if r.message != nil {
			return nil
		}
	}
}

// reportTask tells the face, when the call runs as an MCP task, which A2A
// task it maps to and in which state it is.
func reportTask(ctx context.Context, alias string, r *run) {
	if !endpoint.RunsAsTask(ctx) {
		return // nothing to build the report for
	}
	endpoint.ReportTask(ctx, endpoint.TaskReport{
		Upstream:      endpoint.Upstream{Agent: alias, TaskID: r.taskID, ContextID: r.contextID},
		InputRequired: r.state.Interrupted(),
		Message:       statusText(r.status),
	})
}

// apply folds one event into r.
func (r *run) apply(ev *a2a.StreamResponse) {
	switch {
	case ev.Task != nil:
		r.taskID, r.contextID = ev.Task.ID, ev.Task.ContextID
		r.state, r.status = ev.Task.Status.State, ev.Task.Status.Message
		if len(ev.Task.Artifacts) > 0 {
			r.artifacts = append(r.artifacts[:0], ev.Task.Artifacts...)
		}
	case ev.StatusUpdate != nil:
		u := ev.StatusUpdate
		r.taskID, r.contextID = u.TaskID, u.ContextID
		r.state, r.status = u.Status.State, u.Status.Message
	case ev.ArtifactUpdate != nil:
		u := ev.ArtifactUpdate
		r.taskID, r.contextID = u.TaskID, u.ContextID
		for i := range r.artifacts {
			if r.artifacts[i].ArtifactID == u.Artifact.ArtifactID && u.Artifact.ArtifactID != "" {
				if u.Append {
					r.artifacts[i].Parts = append(r.artifacts[i].Parts, u.Artifact.Parts...)
				} else {
					r.artifacts[i] = u.Artifact
				}
				return
			}
		}
		r.artifacts = append(r.artifacts, u.Artifact)
	case ev.Message != nil:
		r.message = ev.Message
		if ev.Message.ContextID != "" {
			r.contextID = ev.Message.ContextID
		}
		if ev.Message.TaskID != "" {
			r.taskID = ev.Message.TaskID
		}
	}
}

// failure turns a transport error, a timeout or a cancel into a result, and
// cancels the upstream task (best effort, bounded) when the call was
// cancelled or timed out while the task was still running.
func (t *AgentTools) failure(reqCtx, callCtx context.Context, cl *client.Client, a *agent, r *run, err error) *mcp.CallToolResult {
	alias := a.cfg.Alias
	if callCtx.Err() != nil && !r.state.Terminal() && (r.taskID != "" || r.blocking) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(reqCtx), DefaultCancelTimeout)
		var cerr error
		if r.taskID == "" {
			r.taskID, cerr = sentTask(cctx, cl, r.messageID, r.sent)
		}
		if cerr == nil {
			_, cerr = cl.CancelTask(cctx, &a2a.CancelTaskRequest{ID: r.taskID})
		}
		cancel()
		if cerr != nil {
			t.log.Warn("expose: could not cancel the upstream task", "agent", alias, "task", r.taskID, "error", cerr.Error())
		} else {
			t.log.Info("expose: cancelled the upstream task", "agent", alias, "task", r.taskID)
		}
	}
	switch {
	case reqCtx.Err() != nil:
		return errResult("agent %s: the call was cancelled", alias)
	case callCtx.Err() != nil:
		return errResult("agent %s did not finish within %s; the task was cancelled", alias, a.cfg.Timeout)
	}
	var ae *a2a.Error
	if errors.As(err, &ae) {
		return errResult("agent %s returned an error: %s", alias, cleanText(ae.Message, 500))
	}
	t.log.Warn("expose: agent call failed", "agent", alias, "error", err.Error())
	return errResult("agent %s is unreachable (transport failure); retry later", alias)
}

// sentTaskPages bounds the ListTasks pages sentTask reads.
const sentTaskPages = 5

// sentTask finds the task a blocking send of message id started at sent,
// whose answer never came: among the agent's tasks updated since (a second
// of clock skew allowed), the one whose history holds the message.
func sentTask(ctx context.Context, cl *client.Client, id string, sent time.Time) (string, error) {
	after := sent.Add(-time.Second).UTC()
	req := &a2a.ListTasksRequest{StatusTimestampAfter: &after, PageSize: a2a.Ptr[int32](100)}
	for range sentTaskPages {
		page, err := cl.ListTasks(ctx, req)
		if err != nil {
			return "", fmt.Errorf("find the task of message %s: %w", id, err)
		}
		for i := range page.Tasks {
			for _, m := range page.Tasks[i].History {
				if m.MessageID == id {
					return page.Tasks[i].ID, nil
				}
			}
		}
		if page.NextPageToken == "" {
			break
		}
		req.PageToken = page.NextPageToken
	}
	return "", fmt.Errorf("find the task of message %s: not among the agent's recent tasks", id)
}

func (t *AgentTools) own(owner, alias string, r *run) {
	if r == nil {
		return
	}
	if r.taskID != "" {
		t.owners.add(owner, alias, "task", r.taskID)
	}
	if r.contextID != "" {
		t.owners.add(owner, alias, "context", r.contextID)
	}
}

// buildMessage turns the tool input into an A2A user message.
func buildMessage(in args, skill string) (*a2a.Message, error) {
	m := &a2a.Message{MessageID: uuid.NewString(), Role: a2a.RoleUser, TaskID: in.TaskID, ContextID: in.ContextID}
	m.Parts = append(m.Parts, a2a.TextPart(in.Message))
	if len(in.Data) > 0 && string(in.Data) != "null" {
		var obj map[string]any
		if err := json.Unmarshal(in.Data, &obj); err != nil {
			return nil, errors.New("`data` must be a JSON object")
		}
		m.Parts = append(m.Parts, a2a.Part{Kind: a2a.PartData, Data: in.Data, MediaType: "application/json"})
	}
	for i, f := range in.Files {
		switch {
		case f.Bytes != "" && f.URI != "":
			return nil, fmt.Errorf("files[%d]: give either uri or bytes, not both", i)
		case f.Bytes != "":
			b, err := base64.StdEncoding.DecodeString(f.Bytes)
			if err != nil {
				return nil, fmt.Errorf("files[%d].bytes: not valid base64", i)
			}
			m.Parts = append(m.Parts, a2a.RawPart(b, f.MimeType, f.Name))
		case f.URI != "":
			m.Parts = append(m.Parts, a2a.URLPart(f.URI, f.MimeType, f.Name))
		default:
			return nil, fmt.Errorf("files[%d]: uri or bytes is required", i)
		}
	}
	if skill != "" {
		m.Metadata = a2a.Metadata{"skillId": skill}
	}
	return m, nil
}

// canElicit reports whether the host declared form elicitation on this
// session (legacy: at initialize; 2026-07-28: in the request's _meta). An
// empty elicitation capability means form mode. On stateless streamable
// HTTP a legacy request's session knows no capabilities, so the
// continuation path is used there.
func canElicit(ctx context.Context) bool {
	c := elicitCaps(ctx)
	return c != nil && (c.Form != nil || c.URL == nil)
}

// canElicitURL reports whether the host declared URL-mode elicitation.
func canElicitURL(ctx context.Context) bool {
	c := elicitCaps(ctx)
	return c != nil && c.URL != nil
}

func elicitCaps(ctx context.Context) *mcp.ElicitationCapability {
	s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || s == nil {
		return nil
	}
	return s.GetClientCapabilities().Elicitation
}

// AuthorizedMessage is sent to an agent on its AUTH_REQUIRED task once the
// user completed the URL elicitation.
const AuthorizedMessage = "The user completed the requested authorization."

// authorize handles AUTH_REQUIRED: when the agent's status message carries
// a URL part and the host supports URL elicitation, the user is sent there
// (the bridge never opens the URL itself) and on acceptance the task is
// resumed; otherwise the call ends with instructions. It returns the next
// message to send, or the result to return.
func (t *AgentTools) authorize(ctx, callCtx context.Context, a *agent, r *run, p *request.Principal, skill string) (*a2a.Message, *mcp.CallToolResult) {
	u := authURL(r.status)
	if u == "" || !canElicitURL(ctx) {
		return nil, t.result(a, r)
	}
	text := statusText(r.status)
	if text == "" {
		text = "Authorization is required."
	}
	message := cleanText("Agent "+a.cfg.Alias+" needs you to authorize it: "+text, 1000)
	if server.IsModernRequest(ctx) {
		state, err := t.sealState(stateClaims{Tool: a.toolName, TaskID: r.taskID, ContextID: r.contextID, Principal: p.Key(), Auth: true})
		if err != nil {
			return nil, t.result(a, r)
		}
		return nil, server.NewInputRequestBuilder(state).Elicit(elicitID, mcp.ElicitationParams{
			Mode: mcp.ElicitationModeURL, Message: message, URL: u, ElicitationID: uuid.NewString(),
		}).ToolResult()
	}
	res, err := server.ServerFromContext(ctx).RequestURLElicitation(callCtx, server.ClientSessionFromContext(ctx), uuid.NewString(), u, message)
	if err != nil || res == nil || res.Action != mcp.ElicitationResponseActionAccept {
		return nil, t.result(a, r)
	}
	next, _ := buildMessage(args{Message: AuthorizedMessage, TaskID: r.taskID, ContextID: r.contextID}, skill)
	return next, nil
}

// authURL returns the first https URL part of an AUTH_REQUIRED status
// message (plain http only on loopback), or "".
func authURL(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	for _, p := range m.Parts {
		if p.Kind != a2a.PartURL {
			continue
		}
		u, err := url.Parse(p.URL)
		if err != nil || u.Host == "" || u.User != nil {
			continue
		}
		if u.Scheme == "https" || (u.Scheme == "http" && netguard.IsLoopbackHost(u.Hostname())) {
			return u.String()
		}
	}
	return ""
}

func elicitParams(alias, question string) mcp.ElicitationParams {
	return mcp.ElicitationParams{
		Message: cleanText("Agent "+alias+" asks: "+question, 1000),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				elicitID: map[string]any{"type": "string", "title": "Your answer", "description": cleanText(question, 300)},
			},
			"required": []string{elicitID},
		},
	}
}

// causeText is why an agent's card could not be fetched, for the caller:
// the kind of failure (refused, timed out, name not found, TLS, the egress
// policy, an HTTP status), never the bridge's side of it (addresses, URLs,
// dial errors), which the log has.
func causeText(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var blocked *netguard.BlockedError
	var ne net.Error
	switch {
	case err == nil:
		return "the reason is not known"
	case errors.As(err, &blocked) || errors.Is(err, netguard.ErrBlocked):
		return "the bridge's egress policy refuses its address"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns):
		return "its host name does not resolve"
	case errors.As(err, &cert):
		return "its TLS certificate is not trusted"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return "the connection timed out"
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "the connection was closed"
	}
	if _, st, ok := strings.Cut(err.Error(), "HTTP status "); ok {
		return "HTTP status " + cleanText(st, 10)
	}
	return "the connection failed"
}

// answerSchema is the schema of elicitParams.
var answerSchema = func() *elicitation.Schema {
	b, _ := json.Marshal(elicitParams("", "").RequestedSchema)
	s, err := elicitation.Parse(b)
	if err != nil {
		panic(err)
	}
	return s
}()

// checkAnswer holds an accepted answer to the schema the bridge asked with.
func checkAnswer(r *mcp.ElicitationResult) error {
	m, ok := r.Content.(map[string]any)
	if !ok {
		return &elicitation.Error{Problems: []string{elicitID + " is required"}}
	}
	return answerSchema.Validate(m)
}

// ask sends the host elicitation/create (2025 eras) and waits for an
// answer that fits the schema: one that does not is never passed on (it
// would reach the agent as an empty reply); the question is asked again
// with what was wrong, up to elicitation.MaxAsks times. The host's session takes one
// question at a time: a second call's question waits for the first's answer
// (hosts show one dialog at a time) instead of being refused.
func (t *AgentTools) ask(ctx, callCtx context.Context, alias, question string) (*mcp.ElicitationResult, error) {
	release, err := t.asking.Acquire(callCtx, server.ClientSessionFromContext(ctx))
	if err != nil {
		return nil, err
	}
	defer release()
	return elicitation.AskAgain(question, func(text string) (*mcp.ElicitationResult, error) {
		return server.ServerFromContext(ctx).RequestElicitation(callCtx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
			Params:  elicitParams(alias, text),
		})
	}, func(res *mcp.ElicitationResult) error {
		if res.Action != mcp.ElicitationResponseActionAccept {
			return nil
		}
		bad := checkAnswer(res)
		if bad != nil {
			t.log.Info("expose: an elicitation answer does not match the requested schema; asking again", "agent", alias, "error", bad.Error())
		}
		return bad
	})
}

func elicitText(r *mcp.ElicitationResult) string {
	if m, ok := r.Content.(map[string]any); ok {
		if s, ok := m[elicitID].(string); ok {
			return s
		}
		if v, ok := m[elicitID]; ok {
			b, _ := json.Marshal(v)
			return string(b)
		}
	}
	return ""
}

// progress sends notifications/progress for one call when the host asked
// for them; values strictly increase and nothing is sent once the handler
// returned (all sends happen inside it).
type progress struct {
	ctx   context.Context
	token mcp.ProgressToken
	n     int
}

func newProgress(ctx context.Context, req mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx}
	if req.Params.Meta != nil {
		p.token = req.Params.Meta.ProgressToken
	}
	return p
}

func (p *progress) send(msg string) {
	if p.token == nil {
		return
	}
	s := server.ServerFromContext(p.ctx)
	if s == nil {
		return
	}
	p.n++
	_ = endpoint.Notify(p.ctx, string(mcp.MethodNotificationProgress), map[string]any{
		"progressToken": p.token,
		"progress":      float64(p.n),
		"message":       cleanText(msg, 300),
	})
}
