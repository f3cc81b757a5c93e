package a2a

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
)

// ErrorDomain is the ErrorInfo domain of A2A errors.
const ErrorDomain = "a2a-protocol.org"

// Error is an A2A or JSON-RPC error. It maps to every binding: a JSON-RPC
// error code, an HTTP status with a google.rpc.Status body, and ErrorInfo.
type Error struct {
	// Code is the JSON-RPC error code.
	Code int
	// Reason is the ErrorInfo reason (UPPER_SNAKE_CASE), empty for plain JSON-RPC errors.
	Reason string
	// Message is safe to show to the caller.
	Message string
	// Metadata is ErrorInfo metadata (string values only).
	Metadata map[string]string
	// Violations lists invalid fields (google.rpc.BadRequest).
	Violations []FieldViolation
	// Status, when set, overrides the HTTP status of the error's kind.
	Status int
	// Header holds HTTP headers to send with the error (WWW-Authenticate,
	// Retry-After, RateLimit…).
	Header http.Header
}

// FieldViolation names one invalid field of a request.
type FieldViolation struct {
	Field       string `json:"field"`
	Description string `json:"description"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("a2a: error %d", e.Code)
	}
	return "a2a: " + e.Message
}

// Is matches errors of the same kind (same code), so
// errors.Is(err, ErrTaskNotFound) works on any task-not-found error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// With returns a copy of the error kind e with message msg.
func (e *Error) With(msg string) *Error {
	c := *e
	c.Message = msg
	c.Metadata = nil
	c.Violations = nil
	c.Header = nil
	return &c
}

// Withf is With with formatting.
func (e *Error) Withf(format string, args ...any) *Error {
	return e.With(fmt.Sprintf(format, args...))
}

// WithStatus returns a copy answered with HTTP status code.
func (e *Error) WithStatus(code int) *Error {
	c := *e
	c.Status = code
	return &c
}

// WithMeta returns a copy with metadata key k set to v.
func (e *Error) WithMeta(k, v string) *Error {
	c := *e
	c.Metadata = make(map[string]string, len(e.Metadata)+1)
	for mk, mv := range e.Metadata {
		c.Metadata[mk] = mv
	}
	c.Metadata[k] = v
	return &c
}

// Error kinds. Use With/Withf for a specific message; compare with errors.Is.
var (
	ErrParse          = &Error{Code: -32700, Message: "request body is not valid JSON"}
	ErrInvalidRequest = &Error{Code: -32600, Message: "request is not a valid JSON-RPC 2.0 request"}
	ErrMethodNotFound = &Error{Code: -32601, Message: "method not found"}
	ErrInvalidParams  = &Error{Code: -32602, Message: "invalid parameters"}
	ErrInternal       = &Error{Code: -32603, Message: "internal error"}

	ErrTaskNotFound                   = &Error{Code: -32001, Reason: "TASK_NOT_FOUND", Message: "task not found"}
	ErrTaskNotCancelable              = &Error{Code: -32002, Reason: "TASK_NOT_CANCELABLE", Message: "task cannot be canceled"}
	ErrPushNotificationNotSupported   = &Error{Code: -32003, Reason: "PUSH_NOTIFICATION_NOT_SUPPORTED", Message: "push notifications are not supported"}
	ErrUnsupportedOperation           = &Error{Code: -32004, Reason: "UNSUPPORTED_OPERATION", Message: "operation not supported"}
	ErrContentTypeNotSupported        = &Error{Code: -32005, Reason: "CONTENT_TYPE_NOT_SUPPORTED", Message: "content type not supported"}
	ErrInvalidAgentResponse           = &Error{Code: -32006, Reason: "INVALID_AGENT_RESPONSE", Message: "invalid agent response"}
	ErrExtendedAgentCardNotConfigured = &Error{Code: -32007, Reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED", Message: "extended agent card not configured"}
	ErrExtensionSupportRequired       = &Error{Code: -32008, Reason: "EXTENSION_SUPPORT_REQUIRED", Message: "extension support required"}
	ErrVersionNotSupported            = &Error{Code: -32009, Reason: "VERSION_NOT_SUPPORTED", Message: "protocol version not supported"}

	// Errors of the hop chain. A2A assigns no JSON-RPC codes to these; the
	// bridge uses codes outside the A2A range so they never collide with it.
	ErrUnauthenticated  = &Error{Code: -31401, Reason: "UNAUTHENTICATED", Message: "authentication required"}
	ErrPermissionDenied = &Error{Code: -31403, Reason: "PERMISSION_DENIED", Message: "permission denied"}
	ErrRateLimited      = &Error{Code: -31429, Reason: "RATE_LIMITED", Message: "rate limit exceeded"}
	ErrUnavailable      = &Error{Code: -31503, Reason: "UNAVAILABLE", Message: "service unavailable"}

	// ErrAgentUnavailable is the answer when the agent or MCP server the
	// bridge relays to cannot be reached (down, not up yet, or taken out
	// because its card failed verification): JSON-RPC -32603 with the
	// ErrorInfo reason AGENT_UNAVAILABLE, HTTP 503 on HTTP+JSON, UNAVAILABLE
	// on gRPC. Build it with AgentUnavailable.
	ErrAgentUnavailable = &Error{Code: -32603, Reason: "AGENT_UNAVAILABLE", Message: "the agent is unavailable"}
)

// AgentUnavailableRetryAfter is the Retry-After (seconds) of
// AgentUnavailable errors.
const AgentUnavailableRetryAfter = "5"

// AgentUnavailable is ErrAgentUnavailable for the named agent: why says
// in a sentence what is wrong ("its server cannot be reached") and must
// reveal no address, URL or dial error (those belong in the log). The
// ErrorInfo metadata carries the agent's name; Retry-After is set.
func AgentUnavailable(agent, why string) *Error {
	e := ErrAgentUnavailable.Withf("agent %s is unavailable: %s; retry later", agent, why).WithMeta("agent", agent)
	e.Header = http.Header{"Retry-After": {AgentUnavailableRetryAfter}}
	return e
}

// ErrorTable selects the HTTP status mapping of A2A errors.
type ErrorTable int

const (
	// ErrorTableV101 is the status table of A2A v1.0.1 (the default).
	ErrorTableV101 ErrorTable = iota
	// ErrorTableV100 is the table of A2A v1.0.0, which the conformance kit
	// still expects (409 for not-cancelable, 415, 502).
	ErrorTableV100
)

// HTTPStatus is the HTTP status of the error under table t.
func (e *Error) HTTPStatus(t ErrorTable) int {
	if e.Status != 0 {
		return e.Status
	}
	if e.Reason == ErrAgentUnavailable.Reason {
		return http.StatusServiceUnavailable
	}
	switch e.Code {
	case -32700, -32600, -32602:
		return http.StatusBadRequest
	case -32601:
		return http.StatusNotFound
	case -32001:
		return http.StatusNotFound
	case -32002:
		if t == ErrorTableV100 {
			return http.StatusConflict
		}
		return http.StatusBadRequest
	case -32005:
		if t == ErrorTableV100 {
			return http.StatusUnsupportedMediaType
		}
		return http.StatusBadRequest
	case -32006:
		if t == ErrorTableV100 {
			return http.StatusBadGateway
		}
		return http.StatusInternalServerError
	case -32003, -32004, -32007, -32008, -32009:
		return http.StatusBadRequest
	case -31401:
		return http.StatusUnauthorized
	case -31403:
		return http.StatusForbidden
	case -31429:
		return http.StatusTooManyRequests
	case -31503:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// GRPCStatusIn is GRPCStatus under table t: the v1.0.0 table answered
// PushNotificationNotSupported, UnsupportedOperation and
// VersionNotSupported with UNIMPLEMENTED.
func (e *Error) GRPCStatusIn(t ErrorTable) string {
	if t == ErrorTableV100 {
		switch e.Code {
		case -32003, -32004, -32009:
			return "UNIMPLEMENTED"
		}
	}
	return e.GRPCStatus()
}

// GRPCStatus is the name of the google.rpc.Code of the error (v1.0.1).
func (e *Error) GRPCStatus() string {
	if e.Reason == ErrAgentUnavailable.Reason {
		return "UNAVAILABLE"
	}
	switch e.Code {
	case -32700, -32600, -32602, -32005:
		return "INVALID_ARGUMENT"
	case -32601:
		return "UNIMPLEMENTED"
	case -32001:
		return "NOT_FOUND"
	case -32002, -32003, -32004, -32007, -32008, -32009:
		return "FAILED_PRECONDITION"
	case -31401:
		return "UNAUTHENTICATED"
	case -31403:
		return "PERMISSION_DENIED"
	case -31429:
		return "RESOURCE_EXHAUSTED"
	case -31503:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}

// IsA2AError reports whether err is (or wraps) an *Error: an answer in the
// protocol's own terms, as opposed to a transport failure.
func IsA2AError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// AsError turns any error into an *Error: A2A errors pass through, anything
// else becomes an internal error whose message reveals nothing.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return ErrInternal
}

// Details is the google.protobuf.Any list of e carried by both bindings
// (ErrorInfo, BadRequest with the field violations).
func (e *Error) Details() []map[string]any {
	var out []map[string]any
	if e.Reason != "" {
		info := map[string]any{
			"@type":  "type.googleapis.com/google.rpc.ErrorInfo",
			"reason": e.Reason,
			"domain": ErrorDomain,
		}
		if len(e.Metadata) > 0 {
			info["metadata"] = e.Metadata
		}
		out = append(out, info)
	}
	if len(e.Violations) > 0 {
		out = append(out, map[string]any{
			"@type":           "type.googleapis.com/google.rpc.BadRequest",
			"fieldViolations": e.Violations,
		})
	}
	return out
}

// ErrorFromWire rebuilds an *Error from a code, message and details list.
func ErrorFromWire(code int, status int, msg string, details []map[string]any) *Error {
	e := &Error{Code: code, Message: msg}
	for _, d := range details {
		switch d["@type"] {
		case "type.googleapis.com/google.rpc.ErrorInfo":
			if r, ok := d["reason"].(string); ok {
				e.Reason = r
			}
			if m, ok := d["metadata"].(map[string]any); ok {
				e.Metadata = make(map[string]string, len(m))
				for k, v := range m {
					if s, ok := v.(string); ok {
						e.Metadata[k] = s
					}
				}
			}
		}
	}
	if k := kindByReason(e.Reason); k != nil {
		e.Code = k.Code
	} else if e.Code == 0 {
		e.Code = codeByHTTPStatus(status)
	}
	return e
}

var allKinds = []*Error{
	ErrParse, ErrInvalidRequest, ErrMethodNotFound, ErrInvalidParams, ErrInternal,
	ErrTaskNotFound, ErrTaskNotCancelable, ErrPushNotificationNotSupported, ErrUnsupportedOperation,
	ErrContentTypeNotSupported, ErrInvalidAgentResponse, ErrExtendedAgentCardNotConfigured,
	ErrExtensionSupportRequired, ErrVersionNotSupported,
	ErrUnauthenticated, ErrPermissionDenied, ErrRateLimited, ErrUnavailable, ErrAgentUnavailable,
}

func kindByReason(reason string) *Error {
	if reason == "" {
		return nil
	}
	for _, k := range allKinds {
		if k.Reason == reason {
			return k
		}
	}
	return nil
}

func codeByHTTPStatus(status int) int {
	switch status {
	case http.StatusBadRequest:
		return ErrInvalidParams.Code
	case http.StatusNotFound:
		return ErrMethodNotFound.Code
	case http.StatusUnauthorized:
		return ErrUnauthenticated.Code
	case http.StatusForbidden:
		return ErrPermissionDenied.Code
	case http.StatusTooManyRequests:
		return ErrRateLimited.Code
	case http.StatusServiceUnavailable:
		return ErrUnavailable.Code
	case http.StatusUnsupportedMediaType:
		return ErrContentTypeNotSupported.Code
	}
	return ErrInternal.Code
}

// WireError rebuilds an error another binding's client received: the
// ErrorInfo reason picks the kind (an unknown reason is kept, on fallback's
// code); without a reason, fallback is the kind.
func WireError(reason, msg string, meta map[string]string, fallback *Error) *Error {
	kind := kindByReason(reason)
	if kind == nil {
		kind = fallback
	}
	e := kind.With(msg)
	if reason != "" {
		e.Reason = reason
	}
	if len(meta) > 0 {
		e.Metadata = make(map[string]string, len(meta))
		for k, v := range meta {
			e.Metadata[k] = v
		}
	}
	return e
}

// WithViolation returns a copy with a BadRequest field violation added.
func (e *Error) WithViolation(field, desc string) *Error {
	c := *e
	c.Violations = append(slices.Clip(e.Violations), FieldViolation{field, desc})
	return &c
}
