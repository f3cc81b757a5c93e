// Package upstream turns the configuration's upstream entries into the
// typed options the parts that reach them take: an MCP server of publish
// or front.mcp into a connector.Config (or the built-in server it names),
// an agent's URL into its card URL. The bridge's build and check-config's
// preflight read the entries the same way through it.
//
// It converts and connects nothing: it must not import gateway, the faces'
// servers (a2a/server, mcp/endpoint) or observe.
package upstream

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples/demomcp"
	"github.com/a2a-mcp-bridge/bridge/mcp/connector"
)

// StopGrace is each wait of a stdio child's stop (stdin closed,
// SIGTERM, SIGKILL).
const StopGrace = 300 * time.Millisecond

// MCP converts one publish entry (or a front.mcp entry as one) into the
// connector's options; a builtin is checked to exist (BuiltinServer).
func MCP(p *config.PublishedServer, client *http.Client, log *slog.Logger) (connector.Config, error) {
	u := connector.Config{Name: p.Name, Logger: log} // the Conn adds upstream=NAME
	var creds auth.Credentials
	if p.HTTP != nil || p.SSE != nil {
		c, err := auth.NewCredentials(p.Credentials, client)
		if err != nil {
			return u, fmt.Errorf("gateway: publish[%s].credentials: %w", p.Name, err)
		}
		creds = c
	}
	switch {
	case p.Stdio != nil:
		// A child that has not exited StopGrace after its stdin
		// closed is sent SIGTERM, then SIGKILL: short enough that a
		// shutdown ends within its grace plus 2s.
		u.Stdio = &connector.StdioConfig{Command: p.Stdio.Command, Args: p.Stdio.Args, Dir: p.Stdio.Dir, Env: p.Stdio.Env, InheritEnv: p.Stdio.InheritEnv, StopGrace: StopGrace}
	case p.HTTP != nil:
		u.HTTP = &connector.HTTPConfig{URL: p.HTTP.URL, Credentials: creds, Client: client, Headers: p.HTTP.Headers}
		u.ToolsTTL = 5 * time.Minute
	case p.SSE != nil:
		u.SSE = &connector.HTTPConfig{URL: p.SSE.URL, Credentials: creds, Client: client, Headers: p.SSE.Headers}
	case p.Builtin != "":
		if _, err := BuiltinServer(p.Builtin); err != nil {
			return u, fmt.Errorf("gateway: publish[%s].builtin: %w", p.Name, err)
		}
	default:
		return u, fmt.Errorf("gateway: publish[%s]: no stdio, http, sse or builtin upstream", p.Name)
	}
	return u, nil
}

// BuiltinServer is the MCP server publish[].builtin or front.mcp[].builtin
// names.
func BuiltinServer(name string) (*server.MCPServer, error) {
	switch name {
	case config.BuiltinDemo:
		return demomcp.New(), nil
	}
	return nil, fmt.Errorf("no MCP server %q is built in: use %q", name, config.BuiltinDemo)
}

// CardURL accepts a card URL or an agent's base URL.
func CardURL(u string) string {
	if strings.Contains(u, "/.well-known/") {
		return u
	}
	return strings.TrimRight(u, "/") + "/.well-known/agent-card.json"
}

// RedactURL drops the password and query of a URL for messages.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		if i := strings.IndexAny(s, "@?"); i >= 0 {
			return s[:i] + "…"
		}
		return s
	}
	u.RawQuery = ""
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}
