package v03

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// The converters below are the only place where 0.3 and 1.0 meet. Reading
// (0.3 → 1.0) is forward compatible: unknown members are ignored, a part of
// an unknown kind is skipped and logged, a state this version does not
// know becomes TASK_STATE_UNSPECIFIED, which is neither terminal nor
// successful. Writing (1.0 → 0.3) drops what 0.3 cannot carry: parts of an
// unknown kind and unknown events.

var stateTo03 = map[a2a.TaskState]string{
	a2a.TaskStateSubmitted:     "submitted",
	a2a.TaskStateWorking:       "working",
	a2a.TaskStateInputRequired: "input-required",
	a2a.TaskStateCompleted:     "completed",
	a2a.TaskStateCanceled:      "canceled",
	a2a.TaskStateFailed:        "failed",
	a2a.TaskStateRejected:      "rejected",
	a2a.TaskStateAuthRequired:  "auth-required",
	a2a.TaskStateUnspecified:   "unknown",
}

var stateTo10 = func() map[string]a2a.TaskState {
	m := make(map[string]a2a.TaskState, len(stateTo03))
	for k, v := range stateTo03 {
		m[v] = k
	}
	return m
}()

// StateTo03 is the 0.3 name of a 1.0 state; a state 1.0 does not know is
// "unknown".
func StateTo03(s a2a.TaskState) string {
	if v, ok := stateTo03[s]; ok {
		return v
	}
	return "unknown"
}

// StateTo10 is the 1.0 state of a 0.3 name; "unknown" and any name 0.3 does
// not define are TASK_STATE_UNSPECIFIED: never terminal, never success.
func StateTo10(s string) a2a.TaskState {
	if v, ok := stateTo10[s]; ok {
		return v
	}
	return a2a.TaskStateUnspecified
}

// RoleTo03 is the 0.3 name of a role ("user", "agent").
func RoleTo03(r a2a.Role) string {
	switch r {
	case a2a.RoleUser:
		return "user"
	case a2a.RoleAgent:
		return "agent"
	}
	return ""
}

// roleTo10 reads a 0.3 role; ok is false for a role 0.3 does not define.
func roleTo10(r string) (a2a.Role, bool) {
	switch r {
	case "user":
		return a2a.RoleUser, true
	case "agent":
		return a2a.RoleAgent, true
	}
	return a2a.RoleUnspecified, false
}

// translator converts between the versions, logging what it skips.
type translator struct{ log *slog.Logger }

func (t translator) logger() *slog.Logger {
	if t.log == nil {
		return slog.Default()
	}
	return t.log
}

func (t translator) skipped(what, kind string) {
	if len(kind) > 32 {
		kind = kind[:32]
	}
	t.logger().Info("a2a/v03: skipped an element of a kind this version does not know", "element", what, "kind", kind)
}

// --- 0.3 → 1.0 ---

func (t translator) partTo10(p *Part) (a2a.Part, bool, error) {
	out := a2a.Part{Metadata: p.Metadata}
	switch p.Kind {
	case KindText:
		if p.Text == nil {
			return out, false, fmt.Errorf("a text part has no text")
		}
		out.Kind, out.Text = a2a.PartText, *p.Text
	case KindFile:
		f := p.File
		if f == nil {
			return out, false, fmt.Errorf("a file part has no file")
		}
		out.Filename, out.MediaType = f.Name, f.MimeType
		switch {
		case f.Bytes != nil && f.URI != nil:
			return out, false, fmt.Errorf("a file part has both bytes and uri")
		case f.Bytes != nil:
			raw, err := base64.StdEncoding.DecodeString(*f.Bytes)
			if err != nil {
				return out, false, fmt.Errorf("a file part's bytes are not base64")
			}
			out.Kind, out.Raw = a2a.PartRaw, raw
		case f.URI != nil:
			out.Kind, out.URL = a2a.PartURL, *f.URI
		default:
			return out, false, fmt.Errorf("a file part has neither bytes nor uri")
		}
	case KindData:
		if len(p.Data) == 0 || string(p.Data) == "null" {
			return out, false, fmt.Errorf("a data part has no data")
		}
		out.Kind, out.Data = a2a.PartData, compact(p.Data)
	default:
		t.skipped("part", p.Kind)
		return out, false, nil
	}
	return out, true, nil
}

func compact(b json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

func (t translator) partsTo10(in []Part) ([]a2a.Part, error) {
	out := make([]a2a.Part, 0, len(in))
	for i := range in {
		p, ok, err := t.partTo10(&in[i])
		if err != nil {
			return nil, fmt.Errorf("parts[%d]: %w", i, err)
		}
		if ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// messageTo10 converts a message; strict refuses a role 0.3 does not
// define (a request), lenient reads it as unspecified (an agent's answer).
func (t translator) messageTo10(m *Message, strict bool) (*a2a.Message, error) {
	if m == nil {
		return nil, nil
	}
	if m.Kind != "" && m.Kind != KindMessage {
		return nil, fmt.Errorf("kind is %q, want %q", clip(m.Kind), KindMessage)
	}
	role, ok := roleTo10(m.Role)
	if !ok && strict {
		return nil, fmt.Errorf("role %q is not \"user\" or \"agent\"", clip(m.Role))
	}
	parts, err := t.partsTo10(m.Parts)
	if err != nil {
		return nil, err
	}
	return &a2a.Message{
		MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: role, Parts: parts,
		Metadata: m.Metadata, Extensions: m.Extensions, ReferenceTaskIDs: m.ReferenceTaskIDs,
	}, nil
}

func (t translator) artifactTo10(a *Artifact) (a2a.Artifact, error) {
	parts, err := t.partsTo10(a.Parts)
	if err != nil {
		return a2a.Artifact{}, err
	}
	return a2a.Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: parts, Metadata: a.Metadata, Extensions: a.Extensions}, nil
}

func (t translator) statusTo10(s *TaskStatus) (a2a.TaskStatus, error) {
	out := a2a.TaskStatus{State: StateTo10(s.State)}
	if s.State != "" && out.State == a2a.TaskStateUnspecified && s.State != "unknown" {
		t.skipped("task state", s.State)
	}
	if s.Message != nil {
		m, err := t.messageTo10(s.Message, false)
		if err != nil {
			return out, fmt.Errorf("status.message: %w", err)
		}
		out.Message = m
	}
	if s.Timestamp != "" {
		if ts, err := time.Parse(time.RFC3339Nano, s.Timestamp); err == nil {
			ts = ts.UTC()
			out.Timestamp = &ts
		}
	}
	return out, nil
}

func (t translator) taskTo10(in *Task) (*a2a.Task, error) {
	st, err := t.statusTo10(&in.Status)
	if err != nil {
		return nil, err
	}
	out := &a2a.Task{ID: in.ID, ContextID: in.ContextID, Status: st, Metadata: in.Metadata}
	for i := range in.History {
		m, err := t.messageTo10(&in.History[i], false)
		if err != nil {
			return nil, fmt.Errorf("history[%d]: %w", i, err)
		}
		out.History = append(out.History, *m)
	}
	for i := range in.Artifacts {
		a, err := t.artifactTo10(&in.Artifacts[i])
		if err != nil {
			return nil, fmt.Errorf("artifacts[%d]: %w", i, err)
		}
		out.Artifacts = append(out.Artifacts, a)
	}
	return out, nil
}

// eventTo10 converts any 0.3 result or event by its kind; an unknown kind
// is skipped (nil, nil) and logged.
func (t translator) eventTo10(e *Event) (*a2a.StreamResponse, error) {
	switch e.Kind {
	case KindTask:
		task := Task{Kind: e.Kind, ID: e.ID, ContextID: e.ContextID, History: e.History, Artifacts: e.Artifacts, Metadata: e.Metadata}
		if e.Status != nil {
			task.Status = *e.Status
		}
		out, err := t.taskTo10(&task)
		if err != nil {
			return nil, err
		}
		return &a2a.StreamResponse{Task: out}, nil
	case KindMessage:
		m := Message{Kind: e.Kind, MessageID: e.MessageID, Role: e.Role, Parts: e.Parts, ContextID: e.ContextID, TaskID: e.TaskID, ReferenceTaskIDs: e.ReferenceTaskIDs, Extensions: e.Extensions, Metadata: e.Metadata}
		out, err := t.messageTo10(&m, false)
		if err != nil {
			return nil, err
		}
		return &a2a.StreamResponse{Message: out}, nil
	case KindStatusUpdate:
		var st a2a.TaskStatus
		if e.Status != nil {
			var err error
			if st, err = t.statusTo10(e.Status); err != nil {
				return nil, err
			}
		}
		return &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: e.TaskID, ContextID: e.ContextID, Status: st, Metadata: e.Metadata}}, nil
	case KindArtifactUpdate:
		var art a2a.Artifact
		if e.Artifact != nil {
			var err error
			if art, err = t.artifactTo10(e.Artifact); err != nil {
				return nil, err
			}
		}
		return &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: e.TaskID, ContextID: e.ContextID, Artifact: art, Append: e.Append, LastChunk: e.LastChunk, Metadata: e.Metadata}}, nil
	}
	t.skipped("event", e.Kind)
	return nil, nil
}

// pushTo10 flattens a 0.3 push config of a task.
func pushTo10(taskID string, c *PushConfig) *a2a.TaskPushNotificationConfig {
	out := &a2a.TaskPushNotificationConfig{ID: c.ID, TaskID: taskID, URL: c.URL, Token: c.Token, Version: Version}
	if a := c.Authentication; a != nil {
		out.Authentication = &a2a.AuthenticationInfo{Credentials: a.Credentials}
		if len(a.Schemes) > 0 {
			out.Authentication.Scheme = a.Schemes[0]
		}
	}
	return out
}

// sendTo10 converts message/send params. A 0.3 request without
// "blocking" blocks, as the 0.3 JS and Go SDKs' servers and 1.0 do.
func (t translator) sendTo10(p *SendParams) (*a2a.SendMessageRequest, error) {
	if p.Message == nil {
		return nil, fmt.Errorf("message is required")
	}
	m, err := t.messageTo10(p.Message, true)
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	out := &a2a.SendMessageRequest{Message: m, Metadata: p.Metadata}
	if c := p.Configuration; c != nil {
		out.Configuration = &a2a.SendMessageConfiguration{AcceptedOutputModes: c.AcceptedOutputModes, HistoryLength: c.HistoryLength}
		if c.Blocking != nil && !*c.Blocking {
			out.Configuration.ReturnImmediately = true
		}
		if c.PushNotificationConfig != nil {
			out.Configuration.TaskPushNotificationConfig = pushTo10(m.TaskID, c.PushNotificationConfig)
		}
	}
	return out, nil
}

// --- 1.0 → 0.3 ---

func (t translator) partsTo03(in []a2a.Part) []Part {
	out := make([]Part, 0, len(in))
	for i := range in {
		p := &in[i]
		o := Part{Metadata: p.Metadata}
		switch p.Kind {
		case a2a.PartText:
			text := p.Text
			o.Kind, o.Text = KindText, &text
		case a2a.PartRaw:
			b := base64.StdEncoding.EncodeToString(p.Raw)
			o.Kind, o.File = KindFile, &File{Name: p.Filename, MimeType: p.MediaType, Bytes: &b}
		case a2a.PartURL:
			u := p.URL
			o.Kind, o.File = KindFile, &File{Name: p.Filename, MimeType: p.MediaType, URI: &u}
		case a2a.PartData:
			o.Kind, o.Data = KindData, dataTo03(p.Data)
		default:
			t.skipped("part", "unknown")
			continue
		}
		out = append(out, o)
	}
	return out
}

// dataTo03 is a 1.0 data part's value as a 0.3 data object: 0.3 allows
// objects only, so any other value is wrapped as {"value": v}.
func dataTo03(d json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(d)
	if len(t) > 0 && t[0] == '{' {
		return t
	}
	if len(t) == 0 {
		t = []byte("null")
	}
	return append(append([]byte(`{"value":`), t...), '}')
}

func (t translator) messageTo03(m *a2a.Message) *Message {
	if m == nil {
		return nil
	}
	return &Message{
		Kind: KindMessage, MessageID: m.MessageID, Role: RoleTo03(m.Role), Parts: t.partsTo03(m.Parts),
		ContextID: m.ContextID, TaskID: m.TaskID, ReferenceTaskIDs: m.ReferenceTaskIDs,
		Extensions: m.Extensions, Metadata: m.Metadata,
	}
}

func (t translator) statusTo03(s *a2a.TaskStatus) TaskStatus {
	out := TaskStatus{State: StateTo03(s.State), Message: t.messageTo03(s.Message)}
	if s.Timestamp != nil {
		out.Timestamp = s.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	return out
}

func (t translator) artifactTo03(a *a2a.Artifact) Artifact {
	return Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: t.partsTo03(a.Parts), Extensions: a.Extensions, Metadata: a.Metadata}
}

func (t translator) taskTo03(in *a2a.Task) *Task {
	if in == nil {
		return nil
	}
	out := &Task{Kind: KindTask, ID: in.ID, ContextID: in.ContextID, Status: t.statusTo03(&in.Status), Metadata: in.Metadata}
	for i := range in.History {
		out.History = append(out.History, *t.messageTo03(&in.History[i]))
	}
	for i := range in.Artifacts {
		out.Artifacts = append(out.Artifacts, t.artifactTo03(&in.Artifacts[i]))
	}
	return out
}

// final says whether a status ends a 0.3 stream: a terminal state or one
// that waits for the client, as the 0.3 SDKs set it.
func final(s a2a.TaskState) bool { return s.Terminal() || s.Interrupted() }

// eventTo03 converts a 1.0 stream event; nil for an unknown one.
func (t translator) eventTo03(ev *a2a.StreamResponse) any {
	switch {
	case ev == nil:
		return nil
	case ev.Task != nil:
		return t.taskTo03(ev.Task)
	case ev.Message != nil:
		return t.messageTo03(ev.Message)
	case ev.StatusUpdate != nil:
		u := ev.StatusUpdate
		return &StatusUpdate{Kind: KindStatusUpdate, TaskID: u.TaskID, ContextID: u.ContextID, Status: t.statusTo03(&u.Status), Final: final(u.Status.State), Metadata: u.Metadata}
	case ev.ArtifactUpdate != nil:
		u := ev.ArtifactUpdate
		return &ArtifactUpdate{Kind: KindArtifactUpdate, TaskID: u.TaskID, ContextID: u.ContextID, Artifact: t.artifactTo03(&u.Artifact), Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata}
	}
	t.skipped("event", "unknown")
	return nil
}

// pushTo03 nests a 1.0 push config.
func pushTo03(c *a2a.TaskPushNotificationConfig) *TaskPushConfig {
	out := &TaskPushConfig{TaskID: c.TaskID, PushNotificationConfig: *pushConfigTo03(c)}
	return out
}

func pushConfigTo03(c *a2a.TaskPushNotificationConfig) *PushConfig {
	out := &PushConfig{ID: c.ID, URL: c.URL, Token: c.Token}
	if a := c.Authentication; a != nil {
		out.Authentication = &PushAuthentication{Schemes: []string{a.Scheme}, Credentials: a.Credentials}
	}
	return out
}

// sendTo03 converts a 1.0 SendMessage request for a 0.3 agent; blocking is
// always sent, as the 0.3 SDKs' servers default it differently.
func (t translator) sendTo03(r *a2a.SendMessageRequest) *SendParams {
	blocking := true
	out := &SendParams{Message: t.messageTo03(r.Message), Metadata: r.Metadata, Configuration: &SendConfiguration{Blocking: &blocking}}
	if c := r.Configuration; c != nil {
		blocking = !c.ReturnImmediately
		out.Configuration.AcceptedOutputModes, out.Configuration.HistoryLength = c.AcceptedOutputModes, c.HistoryLength
		if c.TaskPushNotificationConfig != nil {
			out.Configuration.PushNotificationConfig = pushConfigTo03(c.TaskPushNotificationConfig)
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 32 {
		return s[:32]
	}
	return s
}
