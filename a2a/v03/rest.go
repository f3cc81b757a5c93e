package v03

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
)

// The 0.3 HTTP+JSON binding is the ProtoJSON of the 0.3 proto (package
// a2a.v1), as the 0.3 SDKs write it: messages carry "content" (artifacts
// "parts"), a part is {"text"}, {"file": {"fileWithUri"|"fileWithBytes",
// "mimeType"}} or {"data": {"data": {...}}}, states and roles are proto
// enum names (TASK_STATE_CANCELLED with two Ls), results and events are
// wrapped ({"task"}, {"message"}, {"statusUpdate"}, {"artifactUpdate"}),
// push configs are {"name": "tasks/{id}/pushNotificationConfigs/{id}",
// "pushNotificationConfig": {...}} and errors {"code", "message"} with
// the JSON-RPC code.

type restPart struct {
	Text     *string        `json:"text,omitempty"`
	File     *restFile      `json:"file,omitempty"`
	Data     *restData      `json:"data,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type restFile struct {
	FileWithURI   *string `json:"fileWithUri,omitempty"`
	FileWithBytes *string `json:"fileWithBytes,omitempty"`
	MimeType      string  `json:"mimeType,omitempty"`
	Name          string  `json:"name,omitempty"`
}

type restData struct {
	Data json.RawMessage `json:"data"`
}

type restMessage struct {
	MessageID  string         `json:"messageId"`
	ContextID  string         `json:"contextId,omitempty"`
	TaskID     string         `json:"taskId,omitempty"`
	Role       string         `json:"role"`
	Content    []restPart     `json:"content"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	Extensions []string       `json:"extensions,omitempty"`
}

type restStatus struct {
	State   string       `json:"state"`
	Message *restMessage `json:"message,omitempty"`
	// Update is the proto's own name of the status message, which some
	// 0.3 agents write instead of "message" (read only).
	Update    *restMessage `json:"update,omitempty"`
	Timestamp string       `json:"timestamp,omitempty"`
}

type restArtifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []restPart     `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Extensions  []string       `json:"extensions,omitempty"`
}

type restTask struct {
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    restStatus     `json:"status"`
	Artifacts []restArtifact `json:"artifacts,omitempty"`
	History   []restMessage  `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type restStatusUpdate struct {
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    restStatus     `json:"status"`
	Final     bool           `json:"final"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type restArtifactUpdate struct {
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  restArtifact   `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// restResponse is a SendMessageResponse or a StreamResponse.
type restResponse struct {
	Task    *restTask    `json:"task,omitempty"`
	Message *restMessage `json:"message,omitempty"`
	// Msg is the proto's own name of the message member (read only).
	Msg            *restMessage        `json:"msg,omitempty"`
	StatusUpdate   *restStatusUpdate   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *restArtifactUpdate `json:"artifactUpdate,omitempty"`
}

type restSendConfig struct {
	AcceptedOutputModes []string    `json:"acceptedOutputModes,omitempty"`
	PushNotification    *PushConfig `json:"pushNotification,omitempty"`
	HistoryLength       *int32      `json:"historyLength,omitempty"`
	Blocking            *bool       `json:"blocking,omitempty"`
}

type restSendRequest struct {
	Message       *restMessage    `json:"message,omitempty"`
	Request       *restMessage    `json:"request,omitempty"`
	Configuration *restSendConfig `json:"configuration,omitempty"`
	Metadata      map[string]any  `json:"metadata,omitempty"`
}

type restPushConfig struct {
	Name                   string     `json:"name"`
	PushNotificationConfig PushConfig `json:"pushNotificationConfig"`
}

// restPushCreate is the body of a create: the TaskPushNotificationConfig,
// or the CreateTaskPushNotificationConfigRequest around it, or the bare
// PushNotificationConfig, as 0.3 clients send one of them.
type restPushCreate struct {
	Name                   string          `json:"name,omitempty"`
	PushNotificationConfig *PushConfig     `json:"pushNotificationConfig,omitempty"`
	Config                 *restPushConfig `json:"config,omitempty"`
	ConfigID               string          `json:"configId,omitempty"`
	PushConfig
}

type restPushList struct {
	Configs       []restPushConfig `json:"configs"`
	NextPageToken string           `json:"nextPageToken,omitempty"`
}

type restError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

var (
	_ server.LegacyREST = (*Dialect)(nil)
)

// restStateTo03 is the 0.3 proto name of a 1.0 state.
func restStateTo03(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateCanceled:
		return "TASK_STATE_CANCELLED"
	case a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateInputRequired, a2a.TaskStateRejected, a2a.TaskStateAuthRequired:
		return string(s)
	}
	return string(a2a.TaskStateUnspecified)
}

// restStateTo10 reads a 0.3 proto state name; unknown names are
// TASK_STATE_UNSPECIFIED.
func restStateTo10(s string) a2a.TaskState {
	if s == "TASK_STATE_CANCELLED" {
		return a2a.TaskStateCanceled
	}
	if st := a2a.TaskState(s); st.Known() {
		return st
	}
	return a2a.TaskStateUnspecified
}

func (t translator) restPartsTo10(in []restPart) ([]a2a.Part, error) {
	out := make([]a2a.Part, 0, len(in))
	for i, p := range in {
		// The members are a oneof, as ProtoJSON reads them: a part that
		// names two could be read two ways and is refused.
		if (p.Text != nil && (p.File != nil || p.Data != nil)) || (p.File != nil && p.Data != nil) {
			return nil, fmt.Errorf("parts[%d]: a part names more than one of text, file and data", i)
		}
		if p.File != nil && p.File.FileWithBytes != nil && p.File.FileWithURI != nil {
			return nil, fmt.Errorf("parts[%d]: a file part names both fileWithUri and fileWithBytes", i)
		}
		o := a2a.Part{Metadata: p.Metadata}
		switch {
		case p.Text != nil:
			o.Kind, o.Text = a2a.PartText, *p.Text
		case p.File != nil:
			o.MediaType, o.Filename = p.File.MimeType, p.File.Name
			switch {
			case p.File.FileWithBytes != nil:
				raw, err := base64.StdEncoding.DecodeString(*p.File.FileWithBytes)
				if err != nil {
					return nil, fmt.Errorf("parts[%d]: fileWithBytes is not base64", i)
				}
				o.Kind, o.Raw = a2a.PartRaw, raw
			case p.File.FileWithURI != nil:
				o.Kind, o.URL = a2a.PartURL, *p.File.FileWithURI
			default:
				return nil, fmt.Errorf("parts[%d]: a file part has neither fileWithUri nor fileWithBytes", i)
			}
		case p.Data != nil:
			if len(p.Data.Data) == 0 || string(p.Data.Data) == "null" {
				return nil, fmt.Errorf("parts[%d]: a data part has no data", i)
			}
			o.Kind, o.Data = a2a.PartData, compact(p.Data.Data)
		default:
			t.skipped("part", "unknown")
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

func (t translator) restMessageTo10(m *restMessage, strict bool) (*a2a.Message, error) {
	if m == nil {
		return nil, nil
	}
	role := a2a.Role(m.Role)
	if role != a2a.RoleUser && role != a2a.RoleAgent {
		if strict {
			return nil, fmt.Errorf("role %q is not ROLE_USER or ROLE_AGENT", clip(m.Role))
		}
		role = a2a.RoleUnspecified
	}
	parts, err := t.restPartsTo10(m.Content)
	if err != nil {
		return nil, err
	}
	return &a2a.Message{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: role, Parts: parts, Metadata: m.Metadata, Extensions: m.Extensions}, nil
}

func (t translator) restPartsTo03(in []a2a.Part) []restPart {
	out := make([]restPart, 0, len(in))
	for i := range in {
		p := &in[i]
		o := restPart{Metadata: p.Metadata}
		switch p.Kind {
		case a2a.PartText:
			text := p.Text
			o.Text = &text
		case a2a.PartRaw:
			b := base64.StdEncoding.EncodeToString(p.Raw)
			o.File = &restFile{FileWithBytes: &b, MimeType: p.MediaType, Name: p.Filename}
		case a2a.PartURL:
			u := p.URL
			o.File = &restFile{FileWithURI: &u, MimeType: p.MediaType, Name: p.Filename}
		case a2a.PartData:
			o.Data = &restData{Data: dataTo03(p.Data)}
		default:
			t.skipped("part", "unknown")
			continue
		}
		out = append(out, o)
	}
	return out
}

func (t translator) restMessageTo03(m *a2a.Message) *restMessage {
	if m == nil {
		return nil
	}
	role := string(m.Role)
	if m.Role != a2a.RoleUser && m.Role != a2a.RoleAgent {
		role = string(a2a.RoleUnspecified)
	}
	return &restMessage{MessageID: m.MessageID, ContextID: m.ContextID, TaskID: m.TaskID, Role: role, Content: t.restPartsTo03(m.Parts), Metadata: m.Metadata, Extensions: m.Extensions}
}

func (t translator) restStatusTo03(s *a2a.TaskStatus) restStatus {
	out := restStatus{State: restStateTo03(s.State), Message: t.restMessageTo03(s.Message)}
	if s.Timestamp != nil {
		out.Timestamp = s.Timestamp.UTC().Format(time.RFC3339Nano)
	}
	return out
}

func (t translator) restArtifactTo03(a *a2a.Artifact) restArtifact {
	return restArtifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: t.restPartsTo03(a.Parts), Metadata: a.Metadata, Extensions: a.Extensions}
}

func (t translator) restTaskTo03(in *a2a.Task) *restTask {
	out := &restTask{ID: in.ID, ContextID: in.ContextID, Status: t.restStatusTo03(&in.Status), Metadata: in.Metadata}
	for i := range in.History {
		out.History = append(out.History, *t.restMessageTo03(&in.History[i]))
	}
	for i := range in.Artifacts {
		out.Artifacts = append(out.Artifacts, t.restArtifactTo03(&in.Artifacts[i]))
	}
	return out
}

func restPushTo03(c *a2a.TaskPushNotificationConfig) restPushConfig {
	return restPushConfig{Name: "tasks/" + c.TaskID + "/pushNotificationConfigs/" + c.ID, PushNotificationConfig: *pushConfigTo03(c)}
}

// RESTError is the 0.3 HTTP+JSON error body: the JSON-RPC code and the
// message.
func (d *Dialect) RESTError(e *a2a.Error) any { return restError{Code: e.Code, Message: e.Message} }

// RESTEvent writes a stream event in its 0.3 HTTP+JSON shape.
func (d *Dialect) RESTEvent(ev *a2a.StreamResponse) any {
	t := d.tr()
	switch {
	case ev.Task != nil:
		return restResponse{Task: t.restTaskTo03(ev.Task)}
	case ev.Message != nil:
		return restResponse{Message: t.restMessageTo03(ev.Message)}
	case ev.StatusUpdate != nil:
		u := ev.StatusUpdate
		return restResponse{StatusUpdate: &restStatusUpdate{TaskID: u.TaskID, ContextID: u.ContextID, Status: t.restStatusTo03(&u.Status), Final: final(u.Status.State), Metadata: u.Metadata}}
	case ev.ArtifactUpdate != nil:
		u := ev.ArtifactUpdate
		return restResponse{ArtifactUpdate: &restArtifactUpdate{TaskID: u.TaskID, ContextID: u.ContextID, Artifact: t.restArtifactTo03(&u.Artifact), Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata}}
	}
	return nil
}

// RESTResult writes a 1.0 result in its 0.3 HTTP+JSON shape.
func (d *Dialect) RESTResult(method string, res any) (any, error) {
	t := d.tr()
	switch r := res.(type) {
	case *a2a.SendMessageResponse:
		if r.Task != nil {
			return restResponse{Task: t.restTaskTo03(r.Task)}, nil
		}
		if r.Message != nil {
			return restResponse{Message: t.restMessageTo03(r.Message)}, nil
		}
	case *a2a.Task:
		return t.restTaskTo03(r), nil
	case *a2a.TaskPushNotificationConfig:
		return restPushTo03(r), nil
	case *a2a.ListTaskPushNotificationConfigsResponse:
		out := restPushList{Configs: make([]restPushConfig, 0, len(r.Configs)), NextPageToken: r.NextPageToken}
		for i := range r.Configs {
			out.Configs = append(out.Configs, restPushTo03(&r.Configs[i]))
		}
		return out, nil
	case *a2a.Empty:
		return struct{}{}, nil
	case *a2a.AgentCard:
		return d.Result(method, res)
	}
	return nil, fmt.Errorf("a2a/v03: no 0.3 HTTP+JSON shape for the result of %s (%T)", method, res)
}

func (d *Dialect) restSendTo10(body []byte) (*a2a.SendMessageRequest, error) {
	var p restSendRequest
	if err := decodeParams(body, &p); err != nil {
		return nil, err
	}
	m := p.Message
	if m == nil {
		m = p.Request
	}
	if m == nil {
		return nil, a2a.ErrInvalidParams.With("invalid params: message is required")
	}
	msg, err := d.tr().restMessageTo10(m, true)
	if err != nil {
		return nil, a2a.ErrInvalidParams.Withf("invalid params: message: %s", err.Error())
	}
	out := &a2a.SendMessageRequest{Message: msg, Metadata: p.Metadata}
	if c := p.Configuration; c != nil {
		out.Configuration = &a2a.SendMessageConfiguration{AcceptedOutputModes: c.AcceptedOutputModes, HistoryLength: c.HistoryLength}
		if c.HistoryLength != nil && *c.HistoryLength == 0 {
			out.Configuration.HistoryLength = nil // ProtoJSON's default: unset
		}
		if c.Blocking != nil && !*c.Blocking {
			out.Configuration.ReturnImmediately = true
		}
		if c.PushNotification != nil && c.PushNotification.URL != "" {
			out.Configuration.TaskPushNotificationConfig = pushTo10(msg.TaskID, c.PushNotification)
		}
	}
	return out, nil
}

// DecodeREST maps a 0.3 HTTP+JSON request (path below "/v1") to the 1.0
// call:
//
//	POST   /message:send, /message:stream
//	GET    /tasks/{id}?historyLength=N
//	POST   /tasks/{id}:cancel
//	GET, POST /tasks/{id}:subscribe
//	POST   /tasks/{id}/pushNotificationConfigs
//	GET    /tasks/{id}/pushNotificationConfigs[/{configId}]
//	DELETE /tasks/{id}/pushNotificationConfigs/{configId}
//	GET    /card
func (d *Dialect) DecodeREST(verb, path string, q url.Values, body []byte) (string, any, error) {
	segs, err := splitPath(path)
	if err != nil {
		return "", nil, a2a.ErrInvalidRequest.With("malformed request path")
	}
	notAllowed := func(allow string) error {
		return a2a.ErrMethodNotFound.Withf("%s is not allowed here; use %s", verb, allow).WithStatus(405)
	}
	switch {
	case len(segs) == 1 && (segs[0] == "message:send" || segs[0] == "message:stream"):
		if verb != "POST" {
			return "", nil, notAllowed("POST")
		}
		req, err := d.restSendTo10(body)
		if err != nil {
			return "", nil, err
		}
		if segs[0] == "message:stream" {
			return a2a.MethodSendStreamingMessage, req, nil
		}
		return a2a.MethodSendMessage, req, nil
	case len(segs) == 1 && segs[0] == "card":
		if verb != "GET" {
			return "", nil, notAllowed("GET")
		}
		return a2a.MethodGetExtendedAgentCard, &a2a.GetExtendedAgentCardRequest{}, nil
	case len(segs) == 2 && segs[0] == "tasks":
		id, action, _ := strings.Cut(segs[1], ":")
		if id == "" {
			break
		}
		switch action {
		case "":
			if verb != "GET" {
				return "", nil, notAllowed("GET")
			}
			r := &a2a.GetTaskRequest{ID: id}
			if v := q.Get("historyLength"); v != "" {
				n, err := strconv.ParseInt(v, 10, 32)
				if err != nil {
					return "", nil, a2a.ErrInvalidParams.With("historyLength must be an integer")
				}
				h := int32(n)
				r.HistoryLength = &h
			}
			return a2a.MethodGetTask, r, nil
		case "cancel":
			if verb != "POST" {
				return "", nil, notAllowed("POST")
			}
			return a2a.MethodCancelTask, &a2a.CancelTaskRequest{ID: id}, nil
		case "subscribe":
			if verb != "GET" && verb != "POST" {
				return "", nil, notAllowed("GET, POST")
			}
			return a2a.MethodSubscribeToTask, &a2a.SubscribeToTaskRequest{ID: id}, nil
		}
	case len(segs) == 3 && segs[0] == "tasks" && segs[1] != "" && segs[2] == "pushNotificationConfigs":
		switch verb {
		case "POST":
			var p restPushCreate
			if err := decodeParams(body, &p); err != nil {
				return "", nil, err
			}
			cfg := &p.PushConfig
			switch {
			case p.Config != nil:
				cfg = &p.Config.PushNotificationConfig
			case p.PushNotificationConfig != nil:
				cfg = p.PushNotificationConfig
			}
			if cfg.ID == "" {
				cfg.ID = p.ConfigID
			}
			return a2a.MethodCreatePushConfig, pushSetTo10(&TaskPushConfig{TaskID: segs[1], PushNotificationConfig: *cfg}), nil
		case "GET":
			return a2a.MethodListPushConfigs, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: segs[1]}, nil
		}
		return "", nil, notAllowed("GET, POST")
	case len(segs) == 4 && segs[0] == "tasks" && segs[1] != "" && segs[2] == "pushNotificationConfigs" && segs[3] != "":
		switch verb {
		case "GET":
			return a2a.MethodGetPushConfig, &a2a.GetTaskPushNotificationConfigRequest{TaskID: segs[1], ID: segs[3]}, nil
		case "DELETE":
			return a2a.MethodDeletePushConfig, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: segs[1], ID: segs[3]}, nil
		}
		return "", nil, notAllowed("GET, DELETE")
	}
	return "", nil, a2a.ErrMethodNotFound.With("no A2A 0.3 HTTP+JSON route for this path").WithStatus(404)
}

// splitPath splits an escaped path into unescaped segments.
func splitPath(p string) ([]string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil, nil
	}
	raw := strings.Split(p, "/")
	out := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil {
			return nil, err
		}
		out[i] = u
	}
	return out, nil
}
