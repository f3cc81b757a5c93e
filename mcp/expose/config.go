// Package expose exposes A2A agents as MCP tools: one tool per
// configured agent (per-skill tools as an option), named from the configured
// alias, whose calls become A2A SendMessage / SendStreamingMessage calls.
// Cards are fetched through an injected (netguard) client, verified with
// a2a/card and refreshed by their cache headers; a card that fails
// verification keeps its agent's tools out.
//
// It is a face.ToolSource: the MCP server face lists and serves its tools,
// filters them per principal and puts the principal in the call context.
package expose

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
	"github.com/a2a-mcp-bridge/bridge/auth"
)

// Defaults.
const (
	DefaultTimeout        = 5 * time.Minute
	DefaultCardTTL        = 5 * time.Minute
	MinCardTTL            = 30 * time.Second
	MaxCardTTL            = time.Hour
	DefaultMaxDescription = 2048
	// MaxToolName is the longest tool name: hosts' function-name rules
	// (^[a-zA-Z0-9_-]{1,64}$) are stricter than MCP's 128.
	MaxToolName = 64
	// DefaultToolNameSeparator joins an alias and a skill id.
	DefaultToolNameSeparator = "_"
	// MaxSeparator is the longest ToolNameSeparator.
	MaxSeparator = 8
	// DefaultCancelTimeout bounds the CancelTask sent when a call is cancelled.
	DefaultCancelTimeout = 5 * time.Second
	// MaxElicitRounds bounds the elicitation round trips of one call.
	MaxElicitRounds = 5
)

// AgentConfig is one A2A agent exposed as tools.
type AgentConfig struct {
	// Alias names the agent's tool (sanitized to [A-Za-z0-9_-], at most
	// MaxToolName characters). Required, unique. Tool names never come from the remote
	// card.
	Alias string
	// CardURL is the agent card's URL (https://host/.well-known/agent-card.json),
	// or the agent's base URL (see CardURLOf). Required.
	CardURL string
	// Credentials give the bridge its identity towards the agent. The MCP
	// caller's token is never forwarded. Default: none.
	Credentials auth.Credentials
	// CredentialHosts are hosts (host or host:port) besides the card URL's
	// that may receive the credentials (a card verified with a pinned key
	// may name any host). Calls to other hosts go without them.
	CredentialHosts []string
	// RequireSignature refuses unsigned cards. With Keys it refuses cards
	// not signed by a pinned key.
	RequireSignature bool
	// Keys are the pinned card-verification keys (card.LoadJWKSFile,
	// card.NewRemoteJWKS). Nil: signatures cannot verify, so a signed card
	// is refused and an unsigned one is accepted unless RequireSignature.
	Keys card.KeyResolver
	// Timeout bounds one tool call, elicitation rounds included (default
	// DefaultTimeout).
	Timeout time.Duration
	// SkillTools adds one tool per skill, named alias, the separator
	// (Config.ToolNameSeparator) and the skill id, next to the agent's tool.
	SkillTools bool
	// Description overrides the description built from the card.
	Description string
	// Binding forces the A2A binding (a2a.BindingJSONRPC,
	// a2a.BindingHTTPJSON or, with GRPC set, a2a.BindingGRPC).
	// Default: the card's first JSON-RPC or HTTP+JSON interface, else its
	// GRPC one.
	Binding string
	// GRPC, if set, lets this agent be called over its card's GRPC
	// interface (see Binding), with the same credential rules.
	GRPC client.TransportFactory
}

// Validate returns every problem of the agent list, naming the field.
func Validate(agents []AgentConfig) error {
	var errs []error
	seen := map[string]bool{}
	for i, a := range agents {
		p := fmt.Sprintf("expose.agents[%d]", i)
		if a.Alias == "" {
			errs = append(errs, fmt.Errorf("%s.alias: required", p))
		} else if seen[a.Alias] {
			errs = append(errs, fmt.Errorf("%s.alias: %q is used twice; aliases must be unique", p, a.Alias))
		}
		seen[a.Alias] = true
		u, err := url.Parse(a.CardURL)
		if a.CardURL == "" {
			errs = append(errs, fmt.Errorf("%s.url: required", p))
		} else if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			errs = append(errs, fmt.Errorf("%s.url: %q must be an absolute http(s) URL without credentials", p, a.CardURL))
		}
		if a.Timeout < 0 {
			errs = append(errs, fmt.Errorf("%s.timeout: must not be negative", p))
		}
	}
	return errors.Join(errs...)
}
