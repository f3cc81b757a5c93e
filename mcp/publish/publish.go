// Package publish publishes one MCP server as an A2A agent: an
// taskmanager.Executor whose skills are the server's tools. A message selects a tool
// with a data part {"tool": NAME, "arguments": {...}} (or a skill id in the
// metadata plus a data part of arguments, or plain text for a server with a
// single one-string-argument tool); the arguments are validated against the
// tool's raw input schema before any call; the result becomes one artifact,
// progress becomes WORKING updates, an upstream elicitation becomes
// INPUT_REQUIRED resumed by the next message on the task, and CancelTask
// cancels the upstream call.
package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// Upstream is what the agent needs of an MCP server; *connector.Conn has it.
type Upstream interface {
	// Tools returns the current tool list with raw schemas.
	Tools(ctx context.Context) ([]connector.Tool, error)
	// CallTool calls a tool and returns the raw CallToolResult.
	CallTool(ctx context.Context, name string, args json.RawMessage, progress connector.ProgressFunc, elicit connector.ElicitFunc) (json.RawMessage, error)
	// OnToolsChanged registers a callback for tool list changes.
	OnToolsChanged(f func([]connector.Tool))
}

var _ Upstream = (*connector.Conn)(nil)

// Availability is implemented by upstreams that know whether their server
// can be reached now (*connector.Conn). A message to an agent whose server
// is down is then answered a2a.ErrAgentUnavailable at once, before any task
// is created, instead of a task that fails.
type Availability interface {
	// Available returns nil while calls would be served.
	Available() error
}

var _ Availability = (*connector.Conn)(nil)

// SchemaExtensionURI is the card extension carrying each tool's raw input
// schema: params maps tool name → inputSchema (AgentSkill has no schema
// field, and clients need the schema to build arguments).
const SchemaExtensionURI = "https://a2a-mcp-bridge.dev/ext/mcp-tool-schema/v1"

// Config configures a published MCP server.
type Config struct {
	// Name and Description of the agent in its card (default: the server's
	// configured name and a generated description).
	Name, Description string
	// Version of the card; a suffix derived from the tool list is added so
	// that the version changes with the tools (default "1.0.0").
	Version string
	// Provider, if set, is the card's provider.
	Provider *a2a.AgentProvider
	// Timeout bounds one tool call, time waiting for input excluded
	// (default 5m). ToolTimeouts overrides it per tool.
	Timeout      time.Duration
	ToolTimeouts map[string]time.Duration
	// InputTimeout is how long an upstream call waits, parked, for the A2A
	// client's answer to an elicitation before it is cancelled and the task
	// fails (default 10m).
	InputTimeout time.Duration
	// ProgressInterval is the least time between two WORKING updates made
	// from progress notifications; the latest progress wins (default 250ms;
	// negative: no limit, every notification is reported). Whatever the
	// interval, the last progress the upstream sent before its result is
	// reported, and before the result.
	ProgressInterval time.Duration
	// Authorize, if set, is called before every tool call with the caller's
	// request context (principal), the tool and whether it is destructive;
	// an error refuses the call and the task ends REJECTED with its message
	// (the gateway fills it with policy and rate limits).
	Authorize func(ctx context.Context, tool string, destructive bool) error
	// Store, if set, is the task store of the agent's manager: a task
	// cancelled while its call waits for input then cancels the upstream
	// call at once (without it, at InputTimeout).
	Store taskmanager.TaskStore
	// Logger receives the agent's logs (default slog.Default()).
	Logger *slog.Logger
}

// Agent is an taskmanager.Executor backed by one MCP server.
type Agent struct {
	cfg Config
	up  Upstream
	log *slog.Logger

	mu        sync.Mutex
	tools     *toolSet
	listed    bool // a tool list was read (the server was reached)
	listeners []func()

	runsMu sync.Mutex
	runs   map[string]*run // by task id
}

var _ taskmanager.Executor = (*Agent)(nil)

// New returns the agent of one MCP server; it reads the tool list once.
func New(cfg Config, up Upstream) (*Agent, error) {
	if up == nil {
		return nil, errors.New("publish: an upstream is required")
	}
	if cfg.Version == "" {
		cfg.Version = "1.0.0"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	if cfg.InputTimeout <= 0 {
		cfg.InputTimeout = 10 * time.Minute
	}
	if cfg.ProgressInterval == 0 {
		cfg.ProgressInterval = 250 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	a := &Agent{cfg: cfg, up: up, log: cfg.Logger, runs: map[string]*run{}}
	a.tools = newToolSet(nil, a.log)
	// Registered first: a server that connects while the list is read
	// below is not missed.
	up.OnToolsChanged(a.setTools)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := up.Tools(ctx)
	switch {
	case err == nil:
		a.mu.Lock()
		if !a.listed {
			a.tools, a.listed = newToolSet(tools, a.log), true
		}
		a.mu.Unlock()
	case connector.Unreachable(err):
		// The server is down or not up yet: the agent starts with no
		// skills and gets them when the server's list arrives.
		a.log.Warn("publish: the MCP server is not reachable yet; the agent has no skills until it is", "err", err)
	default:
		return nil, fmt.Errorf("publish: read tools: %w", err)
	}
	return a, nil
}

func (a *Agent) setTools(tools []connector.Tool) {
	ts := newToolSet(tools, a.log)
	a.mu.Lock()
	a.tools, a.listed = ts, true
	ls := append([]func(){}, a.listeners...)
	a.mu.Unlock()
	for _, f := range ls {
		f()
	}
}

// Skills is the number of tools the agent serves as skills now.
func (a *Agent) Skills() int { return a.toolSet().len() }

// OnCardChanged registers f, called after the tool list changed: rebuild the
// card with Card, sign it and SetCard it on the server (its ETag follows).
func (a *Agent) OnCardChanged(f func()) {
	a.mu.Lock()
	a.listeners = append(a.listeners, f)
	a.mu.Unlock()
}

func (a *Agent) toolSet() *toolSet {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tools
}

func (a *Agent) timeout(tool string) time.Duration {
	if d, ok := a.cfg.ToolTimeouts[tool]; ok && d > 0 {
		return d
	}
	return a.cfg.Timeout
}

// name is the agent's name in errors shown to callers.
func (a *Agent) name() string {
	if a.cfg.Name != "" {
		return a.cfg.Name
	}
	return "agent"
}
