// Package view owns the MCP face's one strict reading of an MCP message:
// the JSON-RPC envelope and the params members the face decides on
// (Message), the strictjson schemas that make mcp-go's later decode agree
// with it, the 400 answer for a message with no single reading, and the
// context that carries the view to the tool handlers.
//
// It must not import mcp/endpoint or anything the face decides with
// (policy, auth, ratelimit, tasks): it only reads bytes.
package view

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
)

// The face decides on an MCP message from one view of it (Message),
// decoded once, strictly, before anything else reads the body: which
// method it is, whether it is a request, a notification or a response, the
// tool a tools/call names, a call's task augmentation, the task a tasks/*
// request names, the request a notifications/cancelled cancels. The task
// interception, the shared-cancel refusal, the sampling relay, the rate
// limits and the policy's hop all read this view; nothing inspects the raw
// bytes for a decision.
//
// mcp-go then decodes the same bytes again with encoding/json, which matches
// member names case-insensitively, lets the last of two equal names win and
// replaces invalid UTF-8. Its reading cannot disagree with the view's,
// because the view is only built from a body that has one reading:
//
//   - the body is checked (strictjson) against the union of every type the
//     face and mcp-go decode it into for its method (mcp-go's envelope
//     readers in streamable_http.go and request_handler.go, its request type
//     for the method with the fields of the types whose own UnmarshalJSON
//     decodes an alias of them, the face's own view), so a member name that
//     any of those struct decoders would match only by case folding is
//     refused ("argumentſ" is "arguments" to encoding/json);
//   - a duplicate member name anywhere (escapes resolved) is refused, so
//     "last one wins" and "first one wins" cannot differ;
//   - invalid UTF-8 and escaped lone surrogates are refused, so nothing is
//     replaced by U+FFFD on one side only;
//   - values that mcp-go reads through maps (_meta, notification params,
//     tool arguments) are read by exact key, as the view reads them.
//
// So for every member both read, both read the same bytes as the same
// value. A JSON-RPC batch is refused too: mcp-go's streamable HTTP server
// does not take one, and one view per message is the rule.
// TestViewAgreesWithMCPGo and FuzzMCPMessageView hold the argument to the
// code, and the tools/call handlers check it once more at run time
// (CheckToolName).

// Message is the face's view of one MCP message.
type Message struct {
	// Method is the method of a request or notification; "" for a response.
	Method string
	// ID is the request id as sent; nil for a notification.
	ID json.RawMessage
	// Response reports a response (result or error, no method).
	Response bool
	// Params holds the params members the face decides on.
	Params Params
	// raw is the params as sent.
	raw json.RawMessage
}

// methodTasksUpdate is the 2026-07-28 tasks extension's tasks/update.
const methodTasksUpdate = "tasks/update"

// Reply is a JSON-RPC response POSTed by a host: its answer to one of the
// face's own server requests (sampling, elicitation).
type Reply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Params are the params members the face reads.
type Params struct {
	// Name is the tool of a tools/call (the prompt of a prompts/get).
	Name string `json:"name"`
	// Task is a tools/call's task augmentation (2025-11-25).
	Task *mcp.TaskParams `json:"task"`
	// TaskID is the task of tasks/get, tasks/result and tasks/cancel.
	TaskID string `json:"taskId"`
	// Cursor is a list request's cursor.
	Cursor string `json:"cursor"`
	// URI is the resource of resources/read and resources/subscribe.
	URI string `json:"uri"`
	// RequestID is the request a notifications/cancelled cancels.
	RequestID json.RawMessage `json:"requestId"`
	// Meta is _meta (the protocol version of a 2026-07-28 request).
	Meta *mcp.Meta `json:"_meta"`
	// Notifications is what a subscriptions/listen asks for; the face
	// reads its taskIds (2026-07-28 tasks extension).
	Notifications struct {
		TaskIDs []string `json:"taskIds"`
	} `json:"notifications"`
}

// envelopeIn is the JSON-RPC envelope as the view reads it.
type envelopeIn struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type viewIn struct {
	envelopeIn
	Params Params `json:"params"`
}

// mcpGoReaders are the types mcp-go v1.2.1 decodes every message into
// before it knows the method: handlePost's response check, HandleMessage's
// base message and notification, the protocol-era and _meta peeks.
var mcpGoReaders = []reflect.Type{
	reflect.TypeFor[struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result,omitempty"`
		Error  json.RawMessage `json:"error,omitempty"`
		Method mcp.MCPMethod   `json:"method,omitempty"`
	}](),
	reflect.TypeFor[struct {
		JSONRPC string        `json:"jsonrpc"`
		Method  mcp.MCPMethod `json:"method"`
		ID      any           `json:"id,omitempty"`
		Result  any           `json:"result,omitempty"`
	}](),
	reflect.TypeFor[struct {
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}](),
	reflect.TypeFor[mcp.JSONRPCNotification](),
	reflect.TypeFor[Reply](),
	reflect.TypeFor[viewIn](),
}

// mcpGoRequests is the type mcp-go decodes each request method into.
var mcpGoRequests = map[mcp.MCPMethod]reflect.Type{
	mcp.MethodInitialize:             reflect.TypeFor[mcp.InitializeRequest](),
	mcp.MethodPing:                   reflect.TypeFor[mcp.PingRequest](),
	mcp.MethodServerDiscover:         reflect.TypeFor[mcp.DiscoverRequest](),
	mcp.MethodSubscriptionsListen:    reflect.TypeFor[mcp.SubscriptionsListenRequest](),
	mcp.MethodSetLogLevel:            reflect.TypeFor[mcp.SetLevelRequest](),
	mcp.MethodResourcesList:          reflect.TypeFor[mcp.ListResourcesRequest](),
	mcp.MethodResourcesTemplatesList: reflect.TypeFor[mcp.ListResourceTemplatesRequest](),
	mcp.MethodResourcesRead:          reflect.TypeFor[mcp.ReadResourceRequest](),
	mcp.MethodResourcesSubscribe:     reflect.TypeFor[mcp.SubscribeRequest](),
	mcp.MethodResourcesUnsubscribe:   reflect.TypeFor[mcp.UnsubscribeRequest](),
	mcp.MethodPromptsList:            reflect.TypeFor[mcp.ListPromptsRequest](),
	mcp.MethodPromptsGet:             reflect.TypeFor[mcp.GetPromptRequest](),
	mcp.MethodToolsList:              reflect.TypeFor[mcp.ListToolsRequest](),
	mcp.MethodToolsCall:              reflect.TypeFor[mcp.CallToolRequest](),
	mcp.MethodTasksGet:               reflect.TypeFor[mcp.GetTaskRequest](),
	mcp.MethodTasksList:              reflect.TypeFor[mcp.ListTasksRequest](),
	mcp.MethodTasksResult:            reflect.TypeFor[mcp.TaskResultRequest](),
	mcp.MethodTasksCancel:            reflect.TypeFor[mcp.CancelTaskRequest](),
	mcp.MethodCompletionComplete:     reflect.TypeFor[mcp.CompleteRequest](),
}

var (
	readersOnce   sync.Once
	genericSchema *strictjson.Schema
	methodSchemas map[string]*strictjson.Schema
)

// schemaFor is the union schema of every reader of a message of method.
func schemaFor(method string) *strictjson.Schema {
	readersOnce.Do(func() {
		// mcp-go's own UnmarshalJSON methods (CallToolParams,
		// CompleteParams, …) decode aliases of their types with
		// encoding/json: their fields are walked, not skipped.
		// Meta, NotificationParams and RequestId read maps or a scalar by
		// exact key; InputRequest and InputResponse pick a variant by
		// method: these stay opaque (duplicates and UTF-8 still checked).
		opts := strictjson.Options{WalkUnmarshalers: true, Opaque: []reflect.Type{
			reflect.TypeFor[mcp.Meta](), reflect.TypeFor[mcp.NotificationParams](), reflect.TypeFor[mcp.RequestId](),
			reflect.TypeFor[mcp.InputRequest](), reflect.TypeFor[mcp.InputResponse](),
		}}
		var all []*strictjson.Schema
		for _, t := range mcpGoReaders {
			all = append(all, strictjson.For(t, opts))
		}
		genericSchema = strictjson.Union(all...)
		methodSchemas = map[string]*strictjson.Schema{}
		for m, t := range mcpGoRequests {
			methodSchemas[string(m)] = strictjson.Union(genericSchema, strictjson.For(t, opts))
		}
	})
	if s, ok := methodSchemas[method]; ok {
		return s
	}
	return genericSchema
}

// Error is a message that has no single reading, answered as a
// JSON-RPC error with HTTP 400 before any guard runs.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Parse builds the view of body, or refuses it.
func Parse(body []byte) (*Message, *Error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &Error{mcp.INVALID_REQUEST, "empty request body"}
	}
	if trimmed[0] == '[' {
		if strictjson.Check(trimmed) != nil {
			return nil, &Error{mcp.PARSE_ERROR, "request body is not valid JSON"}
		}
		return nil, &Error{mcp.INVALID_REQUEST, "JSON-RPC batches are not supported: send one message per request"}
	}
	if trimmed[0] != '{' {
		return nil, &Error{mcp.INVALID_REQUEST, "a message must be a JSON object"}
	}
	// The method decides the schema, so it is read first, with the generic
	// schema, which already refuses a case-folded "method".
	if err := schemaFor("").Check(trimmed); err != nil {
		return nil, strictViewError(err)
	}
	// The envelope and the message in one allocation (the envelope escapes
	// to json.Unmarshal either way).
	pm := new(parsed)
	env := &pm.env
	if err := json.Unmarshal(trimmed, env); err != nil {
		return nil, &Error{mcp.INVALID_REQUEST, "malformed JSON-RPC envelope"}
	}
	if env.JSONRPC != mcp.JSONRPC_VERSION {
		return nil, &Error{mcp.INVALID_REQUEST, `"jsonrpc" must be "2.0"`}
	}
	m := &pm.m
	m.raw = env.Params
	if len(env.ID) > 0 && string(env.ID) != "null" {
		m.ID = env.ID
	}
	if env.Method == nil {
		if m.ID == nil || (env.Result == nil && env.Error == nil) {
			return nil, &Error{mcp.INVALID_REQUEST, `a message without "method" must be a response with an id and a result or an error`}
		}
		m.Response = true
		return m, nil
	}
	m.Method = *env.Method
	if m.Method == "" {
		return nil, &Error{mcp.INVALID_REQUEST, `"method" must be a non-empty string`}
	}
	if s := schemaFor(m.Method); s != schemaFor("") {
		if err := s.Check(trimmed); err != nil {
			return nil, strictViewError(err)
		}
	}
	if len(env.Params) > 0 && env.Params[0] == '{' && readsParams(m.Method) {
		if err := json.Unmarshal(env.Params, &m.Params); err != nil {
			return nil, &Error{mcp.INVALID_PARAMS, fmt.Sprintf("invalid params of %s", ClipMethod(m.Method))}
		}
	}
	return m, nil
}

// parsed is what Parse allocates for one message.
type parsed struct {
	m   Message
	env envelopeIn
}

// readsParams reports the methods whose params the face decides on.
func readsParams(method string) bool {
	switch mcp.MCPMethod(method) {
	case mcp.MethodToolsCall, mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel, mcp.MethodTasksList, methodTasksUpdate, mcp.MethodSubscriptionsListen,
		mcp.MethodNotificationCancelled, mcp.MethodResourcesRead, mcp.MethodPromptsGet:
		return true
	}
	return false
}

func strictViewError(err error) *Error {
	se, _ := err.(*strictjson.Error)
	if se == nil || se.Kind == strictjson.KindSyntax {
		return &Error{mcp.PARSE_ERROR, "request body is not valid JSON"}
	}
	switch se.Kind {
	case strictjson.KindInvalidUTF8:
		return &Error{mcp.PARSE_ERROR, "request body is not valid JSON: it holds invalid UTF-8 or a lone surrogate escape"}
	case strictjson.KindDuplicate:
		return &Error{mcp.INVALID_REQUEST, fmt.Sprintf("member %s appears twice", se.Path())}
	}
	return &Error{mcp.INVALID_REQUEST, fmt.Sprintf("member %s: member names are case-sensitive: write %q", se.Path(), se.Field)}
}

// ClipMethod shortens a method name for a log line or an error message.
func ClipMethod(m string) string {
	if len(m) > 64 {
		m = m[:64] + "…"
	}
	return strings.ToValidUTF8(m, "?")
}

// WriteError answers a message that has no single reading: HTTP 400
// with a JSON-RPC error.
func WriteError(w http.ResponseWriter, id json.RawMessage, e *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusBadRequest)
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": e.Code, "message": e.Msg}})
	_, _ = w.Write(b)
}

type viewKey struct{}

// With returns ctx carrying the view of the request being served.
func With(ctx context.Context, m *Message) context.Context {
	return context.WithValue(ctx, viewKey{}, m)
}

// From is the view of the request in ctx (nil over stdio, where mcp-go
// reads the lines itself).
func From(ctx context.Context) *Message {
	m, _ := ctx.Value(viewKey{}).(*Message)
	return m
}

// CheckedCall is the tool handler middleware that holds mcp-go's decode of a
// tools/call to the view (CheckToolName): a call whose tool mcp-go read
// otherwise than the guards did is refused, never run.
func CheckedCall(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := CheckToolName(ctx, req.Params.Name); err != nil {
			return nil, err
		}
		return next(ctx, req)
	}
}

// CheckToolName holds mcp-go's decode to the view at run time: the tool
// mcp-go is about to call is the tool the guards decided on.
func CheckToolName(ctx context.Context, name string) error {
	if m := From(ctx); m != nil && m.Method == string(mcp.MethodToolsCall) && m.Params.Name != name {
		return fmt.Errorf("endpoint: mcp-go read tool %q where the request view names %q", name, m.Params.Name)
	}
	return nil
}
