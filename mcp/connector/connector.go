// Package connector connects the bridge to one MCP server: a stdio child
// process, a streamable HTTP server or a legacy HTTP+SSE server. A Conn
// negotiates the protocol era (2025-06-18, 2025-11-25 or 2026-07-28), reads
// the tool list raw so that schemas keep every keyword, follows tool list
// changes, calls tools with progress, elicitation, log and sampling relays
// and cancellation wired to what the transport and era need, reads prompts,
// resources and resource templates, completes arguments, subscribes to
// resource updates, and heals itself: a stdio child that exits, a
// connection that breaks, or an HTTP server that no longer knows the
// session (a 404, or a 400 that says so, as servers that lost their
// sessions in a restart answer) is reconnected with backoff and jitter,
// re-initialized and its tool list re-read; listeners hear of a changed
// list. Open starts a Conn whose server is not up yet; Check is the active
// health check; Status tells why a server is down.
//
// It is built on mcp-go's client and works around its traps: the client is
// always Started (handlers wired), a child's environment is built from an
// allow-list only, tools/list and tools/call results are captured raw from
// the transport, and on HTTP transports of the handshake eras the
// notifications/cancelled that mcp-go omits is sent here.
package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Protocol eras a Conn may be pinned to. The empty string negotiates: the
// newest the server supports wins (see Conn.ProtocolVersion).
const (
	Era20250618 = mcp.ProtocolVersion20250618
	Era20251125 = mcp.ProtocolVersion20251125
	Era20260728 = mcp.ProtocolVersion20260728
)

// Config describes one upstream MCP server. Exactly one of Stdio, HTTP and
// SSE is set.
type Config struct {
	// Name identifies the server in logs and errors.
	Name string
	// Stdio runs the server as a child process speaking MCP on stdin/stdout.
	Stdio *StdioConfig
	// HTTP reaches a streamable HTTP server.
	HTTP *HTTPConfig
	// SSE reaches a legacy HTTP+SSE server (protocol 2024-11-05 style).
	SSE *HTTPConfig
	// ProtocolVersion pins the era (one of the Era constants). Default "":
	// negotiate, preferring 2026-07-28.
	ProtocolVersion string
	// NoElicitation and NoSampling withhold the elicitation and sampling
	// client capabilities: set them when no caller of this server can be
	// asked (the bridge relays neither), so that the server does not offer
	// what would always fail. Such a request is then refused, never
	// answered on the user's behalf. Default false: both declared.
	NoElicitation, NoSampling bool
	// ToolsTTL, if positive, re-reads the tool list on this interval, for
	// servers that cannot notify changes (HTTP servers of the handshake eras
	// have no stream to notify on). Default 0: rely on notifications only.
	ToolsTTL time.Duration
	// MinBackoff and MaxBackoff bound the wait before reconnecting after a
	// child died or a connection broke (defaults 250ms and 30s; doubled on
	// each failure, reset when a connection lived longer than MaxBackoff;
	// each wait is drawn from [wait/2, wait], so that connections that lost
	// one server do not all come back at the same instant).
	MinBackoff, MaxBackoff time.Duration
	// ConnectTimeout bounds one connection attempt: start the child or
	// reach the URL, negotiate, read the tool list (default 30s).
	ConnectTimeout time.Duration
	// ConnectWait is how long, after the connection was lost, a call waits
	// for it to be re-established before failing with ErrUnavailable
	// (default 5s; negative: never wait). A server that stays down answers
	// calls at once.
	ConnectWait time.Duration
	// OnStateChange, if set, is called after every change of Status: a
	// connection made, lost, or a reconnect that failed. It runs on the
	// goroutine that connects and must return quickly.
	OnStateChange func()
	// ClientName and ClientVersion identify the bridge to the server
	// (default "a2a-mcp-bridge", "1.0").
	ClientName, ClientVersion string
	// Logger receives connection events and a child's stderr (default slog.Default()).
	Logger *slog.Logger
	// OnRestart, if set, is called with Name each time the connection is
	// back after the server died or the connection broke: after a
	// successful reconnect, never for the first connection. It runs on the
	// goroutine that reconnects, before the new connection serves calls,
	// so it must return quickly.
	OnRestart func(name string)
}

// StdioConfig runs an MCP server as a child process.
type StdioConfig struct {
	// Command is the program to run (looked up in the PATH given to the
	// child by Env or InheritEnv, else the bridge's PATH).
	Command string
	// Args are its arguments.
	Args []string
	// Dir is its working directory (default: the bridge's).
	Dir string
	// Env sets variables for the child. The child's environment is exactly
	// Env plus the InheritEnv variables: never the bridge's whole
	// environment, which holds the bridge's own secrets.
	Env map[string]string
	// InheritEnv names variables copied from the bridge's environment when
	// set there (e.g. PATH, HOME). Env wins over an inherited value.
	InheritEnv []string
	// StopGrace is how long the child gets to exit after its stdin is
	// closed, and again after SIGTERM, before it is killed (default 3s).
	StopGrace time.Duration
}

// HTTPConfig reaches an MCP server over HTTP.
type HTTPConfig struct {
	// URL is the MCP endpoint (streamable HTTP) or the SSE endpoint (legacy).
	URL string
	// Credentials, if set, give the bridge its identity towards the server;
	// they are applied to every request (the caller's token never is).
	Credentials auth.Credentials
	// Client sends the requests. Required: use netguard.Trusted for a URL
	// from the operator's config (with a negative Timeout: calls are bounded
	// by their context, and streams are long-lived).
	Client *http.Client
	// Headers are extra static headers sent on every request (values are
	// never logged; prefer Credentials for secrets).
	Headers map[string]string
}

// Tool is one tool as the server listed it.
type Tool struct {
	// Name is the tool's name, unique per server.
	Name string
	// Title is the human-readable name (the tool's title, else its
	// annotations' title), possibly empty.
	Title string
	// Description is the tool's description.
	Description string
	// InputSchema is the raw JSON Schema of the arguments, every keyword kept.
	InputSchema json.RawMessage
	// OutputSchema is the raw JSON Schema of structuredContent, if declared.
	OutputSchema json.RawMessage
	// Annotations are the server's behaviour hints (untrusted).
	Annotations Annotations
	// Raw is the tool object exactly as the server sent it.
	Raw json.RawMessage
}

// Annotations are a tool's behaviour hints; nil means not stated.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ReadOnly reports whether the tool says it does not modify anything.
func (a Annotations) ReadOnly() bool { return a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// Destructive reports whether the tool may destroy data: per the MCP spec
// the default is true unless the tool is read-only or says otherwise.
func (a Annotations) Destructive() bool {
	if a.ReadOnly() {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint
}

// ProgressFunc receives a call's progress notifications, in the order the
// server sent them, never after CallTool returned.
type ProgressFunc func(progress, total float64, message string)

// Elicitation is a server's request for input from the user during a call.
type Elicitation struct {
	// Mode is "form" or "url".
	Mode string
	// Message is the question shown to the user.
	Message string
	// RequestedSchema is the raw JSON Schema of the expected answer (form mode).
	RequestedSchema json.RawMessage
	// URL is the page the user should open (url mode).
	URL string
}

// Elicitation actions.
const (
	ActionAccept  = "accept"
	ActionDecline = "decline"
	ActionCancel  = "cancel"
)

// ElicitResult is the user's answer to an Elicitation.
type ElicitResult struct {
	// Action is ActionAccept, ActionDecline or ActionCancel.
	Action string
	// Content is the answer when accepted.
	Content map[string]any
}

// ElicitFunc answers one elicitation of a call; it may block until the user
// answers or ctx ends.
type ElicitFunc func(ctx context.Context, e Elicitation) (ElicitResult, error)

// ServerError is a JSON-RPC error the server answered a call with (an
// unknown tool, invalid arguments, a failure it reports this way). Message
// is the server's own text: untrusted, but it names nothing of the bridge.
type ServerError struct {
	// Code is the JSON-RPC error code (0 where mcp-go's client did not
	// keep it: prompts, resources, completions).
	Code    int
	Message string
}

func (e *ServerError) Error() string {
	if e.Code == 0 {
		return "the server answered: " + e.Message
	}
	return fmt.Sprintf("the server answered error %d: %s", e.Code, e.Message)
}

// Unreachable reports whether err means the server could not be reached or
// went away (ErrDied, ErrUnavailable, or a transport failure), as opposed
// to an answer of the server's or a cancelled call. Its text then names
// the bridge's side of the hop (URLs, addresses, dial errors): log it and
// show callers that the server is unavailable.
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, ErrDied) || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrClosed) {
		return true
	}
	var te *transport.Error
	return errors.As(err, &te)
}

// Errors a Conn returns; match them with errors.Is.
var (
	// ErrDied means the server (or the connection to it) went away during
	// the call. The Conn reconnects; a later call may succeed.
	ErrDied = errors.New("connector: the MCP server went away during the call")
	// ErrClosed means the Conn was closed.
	ErrClosed = errors.New("connector: connection closed")
	// ErrUnavailable means the server is not connected (down, or not up
	// yet) and was not back within ConnectWait. The Conn keeps
	// reconnecting; a later call may succeed.
	ErrUnavailable = errors.New("connector: the MCP server is not connected")
)
