package v03

import "encoding/json"

// ProtocolVersion is the version the 0.3 cards this package writes name.
const ProtocolVersion = "0.3.0"

// Version is a2a.TaskPushNotificationConfig.Version of the configs 0.3
// callers register (and of Call.Version): their deliveries take the 0.3
// shape (PushBody).
const Version = "0.3"

// Kinds of the 0.3 discriminator "kind".
const (
	KindTask           = "task"
	KindMessage        = "message"
	KindStatusUpdate   = "status-update"
	KindArtifactUpdate = "artifact-update"
	KindText           = "text"
	KindFile           = "file"
	KindData           = "data"
)

// Methods of the 0.3 JSON-RPC binding.
const (
	MethodMessageSend       = "message/send"
	MethodMessageStream     = "message/stream"
	MethodTasksGet          = "tasks/get"
	MethodTasksCancel       = "tasks/cancel"
	MethodTasksResubscribe  = "tasks/resubscribe"
	MethodPushConfigSet     = "tasks/pushNotificationConfig/set"
	MethodPushConfigGet     = "tasks/pushNotificationConfig/get"
	MethodPushConfigList    = "tasks/pushNotificationConfig/list"
	MethodPushConfigDelete  = "tasks/pushNotificationConfig/delete"
	MethodAuthenticatedCard = "agent/getAuthenticatedExtendedCard"
)

// NotificationTokenHeader carries a push config's token to its receiver in
// 0.3 (1.0: A2A-Notification-Token).
const NotificationTokenHeader = "X-A2A-Notification-Token"

// Part is a 0.3 part: its kind says which of text, file and data is set.
type Part struct {
	Kind     string          `json:"kind"`
	Text     *string         `json:"text,omitempty"`
	File     *File           `json:"file,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

// File is the content of a 0.3 file part: inline base64 bytes or a URI.
type File struct {
	Name     string  `json:"name,omitempty"`
	MimeType string  `json:"mimeType,omitempty"`
	Bytes    *string `json:"bytes,omitempty"`
	URI      *string `json:"uri,omitempty"`
}

// Message is a 0.3 message ("kind": "message").
type Message struct {
	Kind             string         `json:"kind"`
	MessageID        string         `json:"messageId"`
	Role             string         `json:"role"`
	Parts            []Part         `json:"parts"`
	ContextID        string         `json:"contextId,omitempty"`
	TaskID           string         `json:"taskId,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	Metadata         map[string]any `json:"metadata,omitempty"`
}

// TaskStatus is a 0.3 task status; the state is lowercase kebab case.
type TaskStatus struct {
	State     string   `json:"state"`
	Message   *Message `json:"message,omitempty"`
	Timestamp string   `json:"timestamp,omitempty"`
}

// Artifact is a 0.3 artifact.
type Artifact struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []Part         `json:"parts"`
	Extensions  []string       `json:"extensions,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// Task is a 0.3 task ("kind": "task").
type Task struct {
	Kind      string         `json:"kind"`
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	History   []Message      `json:"history,omitempty"`
	Artifacts []Artifact     `json:"artifacts,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// StatusUpdate is a 0.3 status-update event; final marks the last one.
type StatusUpdate struct {
	Kind      string         `json:"kind"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    TaskStatus     `json:"status"`
	Final     bool           `json:"final"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// ArtifactUpdate is a 0.3 artifact-update event.
type ArtifactUpdate struct {
	Kind      string         `json:"kind"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  Artifact       `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// Event is any 0.3 result or stream event, read before its kind is known:
// the union of the members of Task, Message, StatusUpdate and
// ArtifactUpdate.
type Event struct {
	Kind string `json:"kind"`
	// Task and status-update, artifact-update.
	ID        string      `json:"id,omitempty"`
	TaskID    string      `json:"taskId,omitempty"`
	ContextID string      `json:"contextId,omitempty"`
	Status    *TaskStatus `json:"status,omitempty"`
	History   []Message   `json:"history,omitempty"`
	Artifacts []Artifact  `json:"artifacts,omitempty"`
	Final     bool        `json:"final,omitempty"`
	Artifact  *Artifact   `json:"artifact,omitempty"`
	Append    bool        `json:"append,omitempty"`
	LastChunk bool        `json:"lastChunk,omitempty"`
	// Message.
	MessageID        string         `json:"messageId,omitempty"`
	Role             string         `json:"role,omitempty"`
	Parts            []Part         `json:"parts,omitempty"`
	ReferenceTaskIDs []string       `json:"referenceTaskIds,omitempty"`
	Extensions       []string       `json:"extensions,omitempty"`
	Metadata         map[string]any `json:"metadata,omitempty"`
}

// PushAuthentication is the 0.3 push receiver authentication.
type PushAuthentication struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// PushConfig is the 0.3 PushNotificationConfig.
type PushConfig struct {
	ID             string              `json:"id,omitempty"`
	URL            string              `json:"url"`
	Token          string              `json:"token,omitempty"`
	Authentication *PushAuthentication `json:"authentication,omitempty"`
}

// TaskPushConfig is the 0.3 TaskPushNotificationConfig: the config nested.
type TaskPushConfig struct {
	TaskID                 string     `json:"taskId"`
	PushNotificationConfig PushConfig `json:"pushNotificationConfig"`
}

// SendConfiguration is the 0.3 MessageSendConfiguration.
type SendConfiguration struct {
	AcceptedOutputModes    []string    `json:"acceptedOutputModes,omitempty"`
	HistoryLength          *int32      `json:"historyLength,omitempty"`
	PushNotificationConfig *PushConfig `json:"pushNotificationConfig,omitempty"`
	Blocking               *bool       `json:"blocking,omitempty"`
}

// SendParams is the 0.3 MessageSendParams.
type SendParams struct {
	Message       *Message           `json:"message"`
	Configuration *SendConfiguration `json:"configuration,omitempty"`
	Metadata      map[string]any     `json:"metadata,omitempty"`
}

// TaskQueryParams is the params of tasks/get.
type TaskQueryParams struct {
	ID            string         `json:"id"`
	HistoryLength *int32         `json:"historyLength,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// TaskIDParams is the params of tasks/cancel, tasks/resubscribe and
// tasks/pushNotificationConfig/list.
type TaskIDParams struct {
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// PushConfigParams is the params of tasks/pushNotificationConfig/get and
// delete: the task and, optionally for get, the config.
type PushConfigParams struct {
	ID                       string         `json:"id"`
	PushNotificationConfigID string         `json:"pushNotificationConfigId,omitempty"`
	Metadata                 map[string]any `json:"metadata,omitempty"`
}

// AgentInterface is a 0.3 card's interface: a URL and a transport.
type AgentInterface struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

// CardView holds the members a 0.3 client reads from a card; the bridge
// writes them beside the 1.0 members, and reads them from a 0.3 agent's
// card.
type CardView struct {
	URL                               string           `json:"url,omitempty"`
	PreferredTransport                string           `json:"preferredTransport,omitempty"`
	AdditionalInterfaces              []AgentInterface `json:"additionalInterfaces,omitempty"`
	ProtocolVersion                   string           `json:"protocolVersion,omitempty"`
	SupportsAuthenticatedExtendedCard *bool            `json:"supportsAuthenticatedExtendedCard,omitempty"`
}

// RPCError is a 0.3 JSON-RPC error: data is free-form.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}
