// Package a2a is the Agent2Agent protocol 1.0 wire format as a Go library:
// the wire types and their ProtoJSON encoding, the JSON-RPC envelopes of
// both sides (codec_jsonrpc.go), the protocol errors and the small helpers
// every side needs. The sides are packages of their own: the server
// (a2a/server), the task manager (a2a/taskmanager) and the client
// (a2a/client).
//
// The wire types are hand-written structs encoded with encoding/json; the
// package a2apb holds the protoc-gen-go output of the pinned proto and the
// tests prove that both produce the same JSON.
//
// a2a imports none of its sides (the architecture test forbids it): every
// side imports a2a, and a2a must stay the one package they all share.
package a2a

import (
	"encoding/json"
	"time"
)

// ProtocolVersion is the A2A protocol version this package speaks.
const ProtocolVersion = "1.0"

// Binding names used in AgentInterface.ProtocolBinding.
const (
	BindingJSONRPC  = "JSONRPC"
	BindingHTTPJSON = "HTTP+JSON"
	BindingGRPC     = "GRPC"
)

// Metadata is a google.protobuf.Struct: a JSON object.
type Metadata = map[string]any

// Task is the unit of work of an agent.
type Task struct {
	ID        string     `json:"id"`
	ContextID string     `json:"contextId,omitempty"`
	Status    TaskStatus `json:"status"`
	Artifacts []Artifact `json:"artifacts,omitempty"`
	History   []Message  `json:"history,omitempty"`
	Metadata  Metadata   `json:"metadata,omitempty"`
}

// TaskStatus is the state of a task with the agent's latest status message.
type TaskStatus struct {
	State     TaskState  `json:"state"`
	Message   *Message   `json:"message,omitempty"`
	Timestamp *time.Time `json:"timestamp,omitempty"`
}

// Message is one turn of a conversation.
type Message struct {
	MessageID        string   `json:"messageId"`
	ContextID        string   `json:"contextId,omitempty"`
	TaskID           string   `json:"taskId,omitempty"`
	Role             Role     `json:"role"`
	Parts            []Part   `json:"parts"`
	Metadata         Metadata `json:"metadata,omitempty"`
	Extensions       []string `json:"extensions,omitempty"`
	ReferenceTaskIDs []string `json:"referenceTaskIds,omitempty"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID  string   `json:"artifactId"`
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Parts       []Part   `json:"parts"`
	Metadata    Metadata `json:"metadata,omitempty"`
	Extensions  []string `json:"extensions,omitempty"`
}

// PartKind says which member of the Part oneof is set.
type PartKind uint8

// Part kinds. PartUnknown is a part whose content member this version does
// not know; such parts are dropped when a message is parsed.
const (
	PartText PartKind = iota
	PartRaw
	PartURL
	PartData
	PartUnknown
)

// Part is one piece of content: text, raw bytes, a URL or structured data.
// Exactly one of the content members is on the wire; Kind says which.
// The zero Part is an empty text part.
type Part struct {
	Kind PartKind
	Text string
	Raw  []byte
	URL  string
	// Data is a google.protobuf.Value: any JSON value, kept as raw JSON.
	Data      json.RawMessage
	Metadata  Metadata
	Filename  string
	MediaType string
}

// TaskStatusUpdateEvent reports a change of a task's status.
type TaskStatusUpdateEvent struct {
	TaskID    string     `json:"taskId"`
	ContextID string     `json:"contextId"`
	Status    TaskStatus `json:"status"`
	Metadata  Metadata   `json:"metadata,omitempty"`
}

// TaskArtifactUpdateEvent delivers an artifact or a chunk of one.
type TaskArtifactUpdateEvent struct {
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  Artifact `json:"artifact"`
	Append    bool     `json:"append,omitempty"`
	LastChunk bool     `json:"lastChunk,omitempty"`
	Metadata  Metadata `json:"metadata,omitempty"`
}

// AuthenticationInfo is how a push receiver expects to be authenticated.
type AuthenticationInfo struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

// TaskPushNotificationConfig is a webhook registered for a task.
type TaskPushNotificationConfig struct {
	Tenant         string              `json:"tenant,omitempty"`
	ID             string              `json:"id,omitempty"`
	TaskID         string              `json:"taskId,omitempty"`
	URL            string              `json:"url"`
	Token          string              `json:"token,omitempty"`
	Authentication *AuthenticationInfo `json:"authentication,omitempty"`
	// Version is the protocol version the config was registered in: ""
	// for 1.0, "0.3" for a config an A2A 0.3 caller set (translated at the
	// edge), whose deliveries then take the 0.3 shape. It is the bridge's
	// own record, never on the wire of the API.
	Version string `json:"-"`
}

// SendMessageConfiguration tunes a SendMessage call.
type SendMessageConfiguration struct {
	AcceptedOutputModes        []string                    `json:"acceptedOutputModes,omitempty"`
	TaskPushNotificationConfig *TaskPushNotificationConfig `json:"taskPushNotificationConfig,omitempty"`
	HistoryLength              *int32                      `json:"historyLength,omitempty"`
	ReturnImmediately          bool                        `json:"returnImmediately,omitempty"`
}

// SendMessageRequest is the request of SendMessage and SendStreamingMessage.
type SendMessageRequest struct {
	Tenant        string                    `json:"tenant,omitempty"`
	Message       *Message                  `json:"message"`
	Configuration *SendMessageConfiguration `json:"configuration,omitempty"`
	Metadata      Metadata                  `json:"metadata,omitempty"`
}

// SendMessageResponse is either a task or a direct message.
type SendMessageResponse struct {
	Task    *Task    `json:"task,omitempty"`
	Message *Message `json:"message,omitempty"`
}

// StreamResponse is one event of a stream or a push notification body.
// Exactly one member is set; all nil means an event kind this version does
// not know (it is skipped by readers).
type StreamResponse struct {
	Task           *Task                    `json:"task,omitempty"`
	Message        *Message                 `json:"message,omitempty"`
	StatusUpdate   *TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
}

// GetTaskRequest asks for one task.
type GetTaskRequest struct {
	Tenant        string `json:"tenant,omitempty"`
	ID            string `json:"id"`
	HistoryLength *int32 `json:"historyLength,omitempty"`
}

// ListTasksRequest asks for the caller's tasks.
type ListTasksRequest struct {
	Tenant               string     `json:"tenant,omitempty"`
	ContextID            string     `json:"contextId,omitempty"`
	Status               TaskState  `json:"status,omitempty"`
	PageSize             *int32     `json:"pageSize,omitempty"`
	PageToken            string     `json:"pageToken,omitempty"`
	HistoryLength        *int32     `json:"historyLength,omitempty"`
	StatusTimestampAfter *time.Time `json:"statusTimestampAfter,omitempty"`
	IncludeArtifacts     *bool      `json:"includeArtifacts,omitempty"`
}

// ListTasksResponse is one page of tasks.
type ListTasksResponse struct {
	Tasks         []Task `json:"tasks"`
	NextPageToken string `json:"nextPageToken"`
	PageSize      int32  `json:"pageSize"`
	TotalSize     int32  `json:"totalSize"`
}

// CancelTaskRequest asks to cancel a task.
type CancelTaskRequest struct {
	Tenant   string   `json:"tenant,omitempty"`
	ID       string   `json:"id"`
	Metadata Metadata `json:"metadata,omitempty"`
}

// SubscribeToTaskRequest asks for a task's event stream.
type SubscribeToTaskRequest struct {
	Tenant string `json:"tenant,omitempty"`
	ID     string `json:"id"`
}

// GetTaskPushNotificationConfigRequest asks for one push config.
type GetTaskPushNotificationConfigRequest struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id"`
}

// DeleteTaskPushNotificationConfigRequest deletes one push config.
type DeleteTaskPushNotificationConfigRequest struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id"`
}

// ListTaskPushNotificationConfigsRequest lists a task's push configs.
type ListTaskPushNotificationConfigsRequest struct {
	Tenant    string `json:"tenant,omitempty"`
	TaskID    string `json:"taskId"`
	PageSize  int32  `json:"pageSize,omitempty"`
	PageToken string `json:"pageToken,omitempty"`
}

// ListTaskPushNotificationConfigsResponse is one page of push configs.
type ListTaskPushNotificationConfigsResponse struct {
	Configs       []TaskPushNotificationConfig `json:"configs,omitempty"`
	NextPageToken string                       `json:"nextPageToken,omitempty"`
}

// GetExtendedAgentCardRequest asks for the authenticated extended card.
type GetExtendedAgentCardRequest struct {
	Tenant string `json:"tenant,omitempty"`
}

// Empty is google.protobuf.Empty.
type Empty struct{}

// AgentCard describes an agent: who it is, where and how to call it.
type AgentCard struct {
	Name                 string                    `json:"name"`
	Description          string                    `json:"description"`
	SupportedInterfaces  []AgentInterface          `json:"supportedInterfaces"`
	Provider             *AgentProvider            `json:"provider,omitempty"`
	Version              string                    `json:"version"`
	DocumentationURL     *string                   `json:"documentationUrl,omitempty"`
	Capabilities         AgentCapabilities         `json:"capabilities"`
	SecuritySchemes      map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []SecurityRequirement     `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                  `json:"defaultInputModes"`
	DefaultOutputModes   []string                  `json:"defaultOutputModes"`
	Skills               []AgentSkill              `json:"skills"`
	Signatures           []AgentCardSignature      `json:"signatures,omitempty"`
	IconURL              *string                   `json:"iconUrl,omitempty"`
}

// AgentInterface is one URL and binding at which the agent is served.
type AgentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	Tenant          string `json:"tenant,omitempty"`
	ProtocolVersion string `json:"protocolVersion"`
}

// AgentProvider is the organisation behind an agent.
type AgentProvider struct {
	URL          string `json:"url"`
	Organization string `json:"organization"`
}

// AgentCapabilities lists optional protocol features the agent supports.
type AgentCapabilities struct {
	Streaming         *bool            `json:"streaming,omitempty"`
	PushNotifications *bool            `json:"pushNotifications,omitempty"`
	Extensions        []AgentExtension `json:"extensions,omitempty"`
	ExtendedAgentCard *bool            `json:"extendedAgentCard,omitempty"`
}

// AgentExtension declares an extension the agent supports.
type AgentExtension struct {
	URI         string   `json:"uri,omitempty"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Params      Metadata `json:"params,omitempty"`
}

// AgentSkill is one thing the agent can do.
type AgentSkill struct {
	ID                   string                `json:"id"`
	Name                 string                `json:"name"`
	Description          string                `json:"description"`
	Tags                 []string              `json:"tags"`
	Examples             []string              `json:"examples,omitempty"`
	InputModes           []string              `json:"inputModes,omitempty"`
	OutputModes          []string              `json:"outputModes,omitempty"`
	SecurityRequirements []SecurityRequirement `json:"securityRequirements,omitempty"`
}

// AgentCardSignature is a detached JWS over the canonical card.
type AgentCardSignature struct {
	Protected string   `json:"protected"`
	Signature string   `json:"signature"`
	Header    Metadata `json:"header,omitempty"`
}

// StringList is a list of strings (a proto wrapper for map values).
type StringList struct {
	List []string `json:"list,omitempty"`
}

// SecurityRequirement maps scheme names to the scopes needed; schemes in one
// requirement are all needed, requirements in a list are alternatives.
type SecurityRequirement struct {
	Schemes map[string]StringList `json:"schemes,omitempty"`
}

// SecurityScheme is one way to authenticate; exactly one member is set.
type SecurityScheme struct {
	APIKey        *APIKeySecurityScheme        `json:"apiKeySecurityScheme,omitempty"`
	HTTPAuth      *HTTPAuthSecurityScheme      `json:"httpAuthSecurityScheme,omitempty"`
	OAuth2        *OAuth2SecurityScheme        `json:"oauth2SecurityScheme,omitempty"`
	OpenIDConnect *OpenIDConnectSecurityScheme `json:"openIdConnectSecurityScheme,omitempty"`
	MTLS          *MutualTLSSecurityScheme     `json:"mtlsSecurityScheme,omitempty"`
}

// APIKeySecurityScheme is an API key in a header, query parameter or cookie.
type APIKeySecurityScheme struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

// HTTPAuthSecurityScheme is an HTTP authentication scheme such as Bearer.
type HTTPAuthSecurityScheme struct {
	Description  string `json:"description,omitempty"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// OAuth2SecurityScheme is OAuth 2.0 with one flow.
type OAuth2SecurityScheme struct {
	Description       string     `json:"description,omitempty"`
	Flows             OAuthFlows `json:"flows"`
	OAuth2MetadataURL string     `json:"oauth2MetadataUrl,omitempty"`
}

// OpenIDConnectSecurityScheme is OpenID Connect discovery.
type OpenIDConnectSecurityScheme struct {
	Description      string `json:"description,omitempty"`
	OpenIDConnectURL string `json:"openIdConnectUrl"`
}

// MutualTLSSecurityScheme is client certificate authentication.
type MutualTLSSecurityScheme struct {
	Description string `json:"description,omitempty"`
}

// OAuthFlows holds exactly one OAuth flow.
type OAuthFlows struct {
	AuthorizationCode *AuthorizationCodeOAuthFlow `json:"authorizationCode,omitempty"`
	ClientCredentials *ClientCredentialsOAuthFlow `json:"clientCredentials,omitempty"`
	Implicit          *ImplicitOAuthFlow          `json:"implicit,omitempty"`
	Password          *PasswordOAuthFlow          `json:"password,omitempty"`
	DeviceCode        *DeviceCodeOAuthFlow        `json:"deviceCode,omitempty"`
}

// AuthorizationCodeOAuthFlow is the authorization code flow.
type AuthorizationCodeOAuthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl"`
	TokenURL         string            `json:"tokenUrl"`
	RefreshURL       string            `json:"refreshUrl,omitempty"`
	Scopes           map[string]string `json:"scopes"`
	PKCERequired     bool              `json:"pkceRequired,omitempty"`
}

// ClientCredentialsOAuthFlow is the client credentials flow.
type ClientCredentialsOAuthFlow struct {
	TokenURL   string            `json:"tokenUrl"`
	RefreshURL string            `json:"refreshUrl,omitempty"`
	Scopes     map[string]string `json:"scopes"`
}

// ImplicitOAuthFlow is the deprecated implicit flow.
type ImplicitOAuthFlow struct {
	AuthorizationURL string            `json:"authorizationUrl,omitempty"`
	RefreshURL       string            `json:"refreshUrl,omitempty"`
	Scopes           map[string]string `json:"scopes,omitempty"`
}

// PasswordOAuthFlow is the deprecated password flow.
type PasswordOAuthFlow struct {
	TokenURL   string            `json:"tokenUrl,omitempty"`
	RefreshURL string            `json:"refreshUrl,omitempty"`
	Scopes     map[string]string `json:"scopes,omitempty"`
}

// DeviceCodeOAuthFlow is the device authorization flow.
type DeviceCodeOAuthFlow struct {
	DeviceAuthorizationURL string            `json:"deviceAuthorizationUrl"`
	TokenURL               string            `json:"tokenUrl"`
	RefreshURL             string            `json:"refreshUrl,omitempty"`
	Scopes                 map[string]string `json:"scopes"`
}
