package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The *In types below mirror the wire shape of the messages that carry
// parts, with no UnmarshalJSON of their own. When encoding/json meets a
// value whose type has an UnmarshalJSON, it scans past the value, and the
// method then validates and decodes the same bytes again with a fresh
// decoder; with a method on Part, Message, Artifact and TaskStatus, the
// parts of a task were scanned half a dozen times. Instead each entry point
// (the UnmarshalJSON of the public types, and decodeParams) decodes a whole
// tree of *In values in one pass and converts it, applying the rules the
// methods applied level by level. Only scalar members keep methods (enums,
// timestamps, raw data): encoding/json hands those the literal it has
// already scanned.

// partIn is a Part as sent: at most one content member may be present.
// Data is present, even as JSON null, when non-nil.
type partIn struct {
	Text      *string         `json:"text"`
	Raw       *string         `json:"raw"`
	URL       *string         `json:"url"`
	Data      json.RawMessage `json:"data"`
	Metadata  Metadata        `json:"metadata"`
	Filename  string          `json:"filename"`
	MediaType string          `json:"mediaType"`
}

// part converts w. A part with none of the members this version knows gets
// Kind PartUnknown.
func (w *partIn) part() (Part, error) {
	p := Part{Metadata: w.Metadata, Filename: w.Filename, MediaType: w.MediaType, Kind: PartUnknown}
	n := 0
	if w.Text != nil {
		n++
		p.Kind, p.Text = PartText, *w.Text
	}
	if w.Raw != nil {
		n++
		raw, err := DecodeBase64(*w.Raw)
		if err != nil {
			return Part{}, fmt.Errorf("a2a: part raw: %w", err)
		}
		p.Kind, p.Raw = PartRaw, raw
	}
	if w.URL != nil {
		n++
		p.Kind, p.URL = PartURL, *w.URL
	}
	if w.Data != nil {
		n++
		p.Kind, p.Data = PartData, CompactJSON(w.Data)
	}
	if n > 1 {
		return Part{}, errors.New("a2a: part sets more than one of text, raw, url, data")
	}
	return p, nil
}

// CompactJSON returns b without insignificant whitespace. b is valid JSON
// (encoding/json checked it); most data is sent compact and is kept as is.
func CompactJSON(b json.RawMessage) json.RawMessage {
	if !bytes.ContainsAny(b, " \t\r\n") {
		return b
	}
	buf := bytes.NewBuffer(make([]byte, 0, len(b)))
	if err := json.Compact(buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// partsOf converts the parts of a message or artifact, all of them before
// dropping (and logging) those of unknown kind. nil stays nil, so an absent
// list and an empty one read as before.
func partsOf(in []partIn, where string) ([]Part, error) {
	if in == nil {
		return nil, nil
	}
	out := make([]Part, len(in))
	for i := range in {
		p, err := in[i].part()
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return knownParts(out, where), nil
}

type messageIn struct {
	MessageID        string   `json:"messageId"`
	ContextID        string   `json:"contextId"`
	TaskID           string   `json:"taskId"`
	Role             Role     `json:"role"`
	Parts            []partIn `json:"parts"`
	Metadata         Metadata `json:"metadata"`
	Extensions       []string `json:"extensions"`
	ReferenceTaskIDs []string `json:"referenceTaskIds"`
}

// message converts w into m. An absent role reads as ROLE_UNSPECIFIED.
func (w *messageIn) message(m *Message) error {
	parts, err := partsOf(w.Parts, "message")
	if err != nil {
		return err
	}
	role := w.Role
	if role == "" {
		role = RoleUnspecified
	}
	*m = Message{
		MessageID: w.MessageID, ContextID: w.ContextID, TaskID: w.TaskID, Role: role, Parts: parts,
		Metadata: w.Metadata, Extensions: w.Extensions, ReferenceTaskIDs: w.ReferenceTaskIDs,
	}
	return nil
}

// messagePtr converts an optional message.
func messagePtr(w *messageIn) (*Message, error) {
	if w == nil {
		return nil, nil
	}
	m := new(Message)
	if err := w.message(m); err != nil {
		return nil, err
	}
	return m, nil
}

type artifactIn struct {
	ArtifactID  string   `json:"artifactId"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Parts       []partIn `json:"parts"`
	Metadata    Metadata `json:"metadata"`
	Extensions  []string `json:"extensions"`
}

func (w *artifactIn) artifact(a *Artifact) error {
	parts, err := partsOf(w.Parts, "artifact")
	if err != nil {
		return err
	}
	*a = Artifact{
		ArtifactID: w.ArtifactID, Name: w.Name, Description: w.Description, Parts: parts,
		Metadata: w.Metadata, Extensions: w.Extensions,
	}
	return nil
}

type statusIn struct {
	State     TaskState  `json:"state"`
	Message   *messageIn `json:"message"`
	Timestamp *time.Time `json:"timestamp"`
}

// status converts w into s; the timestamp must be within the range of
// google.protobuf.Timestamp (years 1 to 9999 in UTC).
func (w *statusIn) status(s *TaskStatus) error {
	m, err := messagePtr(w.Message)
	if err != nil {
		return err
	}
	if w.Timestamp != nil {
		if y := w.Timestamp.UTC().Year(); y < 1 || y > 9999 {
			return fmt.Errorf("a2a: status timestamp out of range (year %d)", y)
		}
	}
	*s = TaskStatus{State: w.State, Message: m, Timestamp: w.Timestamp}
	return nil
}

type taskIn struct {
	ID        string       `json:"id"`
	ContextID string       `json:"contextId"`
	Status    statusIn     `json:"status"`
	Artifacts []artifactIn `json:"artifacts"`
	History   []messageIn  `json:"history"`
	Metadata  Metadata     `json:"metadata"`
}

func (w *taskIn) task(t *Task) error {
	var st TaskStatus
	if err := w.Status.status(&st); err != nil {
		return err
	}
	var arts []Artifact
	if w.Artifacts != nil {
		arts = make([]Artifact, len(w.Artifacts))
		for i := range w.Artifacts {
			if err := w.Artifacts[i].artifact(&arts[i]); err != nil {
				return err
			}
		}
	}
	var hist []Message
	if w.History != nil {
		hist = make([]Message, len(w.History))
		for i := range w.History {
			if err := w.History[i].message(&hist[i]); err != nil {
				return err
			}
		}
	}
	*t = Task{ID: w.ID, ContextID: w.ContextID, Status: st, Artifacts: arts, History: hist, Metadata: w.Metadata}
	return nil
}

func taskPtr(w *taskIn) (*Task, error) {
	if w == nil {
		return nil, nil
	}
	t := new(Task)
	if err := w.task(t); err != nil {
		return nil, err
	}
	return t, nil
}

type statusUpdateIn struct {
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Status    statusIn `json:"status"`
	Metadata  Metadata `json:"metadata"`
}

type artifactUpdateIn struct {
	TaskID    string     `json:"taskId"`
	ContextID string     `json:"contextId"`
	Artifact  artifactIn `json:"artifact"`
	Append    bool       `json:"append"`
	LastChunk bool       `json:"lastChunk"`
	Metadata  Metadata   `json:"metadata"`
}

type streamIn struct {
	Task           *taskIn           `json:"task"`
	Message        *messageIn        `json:"message"`
	StatusUpdate   *statusUpdateIn   `json:"statusUpdate"`
	ArtifactUpdate *artifactUpdateIn `json:"artifactUpdate"`
}

// stream converts w into r; two members at once is an error.
func (w *streamIn) stream(r *StreamResponse) error {
	var out StreamResponse
	var err error
	if out.Task, err = taskPtr(w.Task); err != nil {
		return err
	}
	if out.Message, err = messagePtr(w.Message); err != nil {
		return err
	}
	if u := w.StatusUpdate; u != nil {
		ev := &TaskStatusUpdateEvent{TaskID: u.TaskID, ContextID: u.ContextID, Metadata: u.Metadata}
		if err := u.Status.status(&ev.Status); err != nil {
			return err
		}
		out.StatusUpdate = ev
	}
	if u := w.ArtifactUpdate; u != nil {
		ev := &TaskArtifactUpdateEvent{TaskID: u.TaskID, ContextID: u.ContextID, Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata}
		if err := u.Artifact.artifact(&ev.Artifact); err != nil {
			return err
		}
		out.ArtifactUpdate = ev
	}
	if countSet(out.Task != nil, out.Message != nil, out.StatusUpdate != nil, out.ArtifactUpdate != nil) > 1 {
		return errors.New("a2a: stream event sets more than one member")
	}
	*r = out
	return nil
}

type sendMessageResponseIn struct {
	Task    *taskIn    `json:"task"`
	Message *messageIn `json:"message"`
}

type sendMessageRequestIn struct {
	Tenant        string                    `json:"tenant"`
	Message       *messageIn                `json:"message"`
	Configuration *SendMessageConfiguration `json:"configuration"`
	Metadata      Metadata                  `json:"metadata"`
}

// decodeSendMessageRequest decodes b into r in one pass; it is what
// json.Unmarshal does with a SendMessageRequest, without the second scan
// of the message that Message.UnmarshalJSON costs.
func decodeSendMessageRequest(b []byte, r *SendMessageRequest) error {
	var w sendMessageRequestIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	m, err := messagePtr(w.Message)
	if err != nil {
		return err
	}
	*r = SendMessageRequest{Tenant: w.Tenant, Message: m, Configuration: w.Configuration, Metadata: w.Metadata}
	return nil
}

// UnmarshalJSON reads a part; exactly one content member may be present.
// A part with none of the members this version knows gets Kind PartUnknown.
func (p *Part) UnmarshalJSON(b []byte) error {
	var w partIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	v, err := w.part()
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalJSON reads a message, skipping parts of unknown kind. An absent
// role reads as ROLE_UNSPECIFIED.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w messageIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	return w.message(m)
}

// UnmarshalJSON reads an artifact, skipping parts of unknown kind.
func (a *Artifact) UnmarshalJSON(b []byte) error {
	var w artifactIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	return w.artifact(a)
}

// UnmarshalJSON reads a status; its timestamp must be within the range
// of google.protobuf.Timestamp (years 1 to 9999 in UTC).
func (s *TaskStatus) UnmarshalJSON(b []byte) error {
	var w statusIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	return w.status(s)
}

// UnmarshalJSON reads a task in one pass over its status, artifacts and
// history, strictly (UnmarshalStrict), by encoding/json into the wire
// mirror. Messages, stream events and send responses are read the same
// way. (a2a/internal/fastjson reads their canonical form faster, to the
// same values.)
func (t *Task) UnmarshalJSON(b []byte) error {
	var w taskIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	return w.task(t)
}

// UnmarshalJSON reads an event; two members at once is an error.
func (r *StreamResponse) UnmarshalJSON(b []byte) error {
	var w streamIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	return w.stream(r)
}

// UnmarshalJSON reads a response; two members at once is an error.
func (r *SendMessageResponse) UnmarshalJSON(b []byte) error {
	var w sendMessageResponseIn
	if err := UnmarshalStrict(b, &w); err != nil {
		return err
	}
	return w.response(r)
}

// response converts w into r; two members at once is an error.
func (w *sendMessageResponseIn) response(r *SendMessageResponse) error {
	t, err := taskPtr(w.Task)
	if err != nil {
		return err
	}
	m, err := messagePtr(w.Message)
	if err != nil {
		return err
	}
	if t != nil && m != nil {
		return errors.New("a2a: send message response sets both task and message")
	}
	*r = SendMessageResponse{Task: t, Message: m}
	return nil
}
