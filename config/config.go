// Package config is the bridge's configuration: one YAML file for every face
// (publish, expose, front), with what is shared (auth, policy, limits, keys,
// store) written once.
//
// The lifecycle is decode → defaults → validate, all at start-up. [Load] and
// [Parse] expand ${ENV} and ${file:PATH} references inside scalar values,
// decode strictly (an unknown key is an error with its line and column), fill
// defaults from the `default` struct tags, and run [Config.Validate], which
// reports every problem at once as [Problems], each naming the field path
// (publish[1].stdio.command) and the fix.
//
// The doc comments on the fields below are the configuration reference:
// `go generate ./config` turns them into docs/config.md and the JSON Schema
// config/schema.json.
package config

import (
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/config/internal/yamlwalk"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
)

//go:generate go run ./internal/gen

// Config is the whole bridge configuration.
type Config struct {
	// Listen is the TCP address the HTTP faces listen on. A non-loopback
	// address makes the bridge reachable from the network: anonymous access
	// and every Unsafe… option are then refused unless explicitly confirmed.
	Listen string `yaml:"listen" default:"127.0.0.1:8080"`
	// PublicURL is the absolute URL clients reach the bridge at; it is used in
	// agent cards, OAuth protected-resource metadata and as the token audience.
	// Required when listen is not loopback. Default: http://LISTEN.
	PublicURL string `yaml:"public_url"`
	// Store holds tasks, event logs and push configs: "memory:" (lost on
	// restart; tests), "sqlite:PATH" (one process) or "postgres://…"
	// (replicas). On SQLite and PostgreSQL an event is on disk before
	// anyone is told of it; concurrent writes share one commit
	// (docs/stores.md). "sqlite:PATH?synchronous=normal" syncs SQLite's
	// WAL at checkpoints only: acknowledged events still survive a crash of
	// the process, not a power loss or a kernel crash (docs/stores.md); the
	// default is synchronous=full. The URL may carry a password; it is never
	// logged.
	Store string `yaml:"store" default:"sqlite:./bridge.db" secret:"url"`
	// Redis is a redis:// or rediss:// URL shared by replicas for rate-limit
	// counters (it fills limits.redis when that is empty). Default: none,
	// counters are kept per process. Use ${REDIS_URL} to keep the password out
	// of the file.
	Redis string `yaml:"redis" secret:"url"`
	// Keys are the card-signing keys; their public halves are served at
	// /.well-known/jwks.json.
	Keys Keys `yaml:"keys"`
	// Auth authenticates inbound callers on every face.
	Auth auth.Config `yaml:"auth"`
	// Policy authorizes every hop with CEL rules. Required: policy.default
	// must be set ("deny" is the safe choice). Rules see only the principal
	// and the hop, so each decision is remembered for that authenticated
	// principal and hop and a repeated call is answered without running the
	// rules (still audited); a reload starts afresh.
	Policy policy.Config `yaml:"policy"`
	// Limits are rate limits applied to every hop.
	Limits ratelimit.Config `yaml:"limits"`
	// Publish lists MCP servers published as A2A agents, each at /a2a/{name}.
	Publish []PublishedServer `yaml:"publish"`
	// Expose makes A2A agents callable as MCP tools, at expose.mcp.path and
	// over `bridge mcp` (stdio).
	Expose Expose `yaml:"expose"`
	// Front puts existing A2A agents and MCP servers behind the bridge's hop
	// chain (auth, limits, policy) without translating them.
	Front Front `yaml:"front"`
	// Push configures A2A push notifications (outbound webhooks to URLs that
	// clients supply).
	Push Push `yaml:"push"`
	// Netguard guards every outbound request to a URL the bridge did not get
	// from this file (push webhooks, jku, card-declared endpoints).
	Netguard Netguard `yaml:"netguard"`
	// Observability configures logs, metrics and traces.
	Observability Observability `yaml:"observability"`
	// Server configures the HTTP server.
	Server Server `yaml:"server"`
	// Retention bounds how long finished tasks are kept.
	Retention Retention `yaml:"retention"`
	// Tasks configures how running tasks are looked after.
	Tasks Tasks `yaml:"tasks"`
	// Reload configures reloading this file while serving (SIGHUP always
	// reloads it).
	Reload Reload `yaml:"reload"`
	// Health configures the upstreams' active checks, reconnection and card
	// refresh, and what /readyz requires.
	Health Health `yaml:"health"`
	// Admin configures the admin listener: the status page, the admin API
	// (`bridge status`) and metrics, on an address of their own.
	Admin Admin `yaml:"admin"`

	// file is the name passed to Parse; pos maps field paths to positions.
	file string
	pos  yamlwalk.Positions
}

// Position is a 1-based line and column in the configuration file.
type Position = yamlwalk.Position

// Keys are the bridge's card-signing keys.
type Keys struct {
	// Signing is the PEM file of the private key (ES256, ES384 or Ed25519)
	// that signs the cards the bridge serves. Default: none, cards are served
	// unsigned. Keep the file readable by the bridge only.
	Signing string `yaml:"signing"`
	// Previous are PEM files of retired keys: their public halves stay in the
	// JWKS so cards signed before a rotation still verify; they never sign.
	Previous []string `yaml:"previous"`
}

// MCPUpstream is how the bridge reaches an MCP server: exactly one of stdio,
// http, sse or builtin.
type MCPUpstream struct {
	// Stdio runs the server as a child process speaking MCP on stdin/stdout.
	Stdio *Stdio `yaml:"stdio"`
	// HTTP reaches the server over streamable HTTP.
	HTTP *HTTPUpstream `yaml:"http"`
	// SSE reaches the server over the legacy HTTP+SSE transport.
	SSE *SSEUpstream `yaml:"sse"`
	// Builtin names an MCP server compiled into the bridge, run inside the
	// bridge's process: "demo" (tools echo, add, upper and slow; the one `bridge
	// demo` publishes). Default: none. Nothing built in is served unless a
	// file names it.
	Builtin string `yaml:"builtin"`
}

// Builtin names what the bridge carries compiled in, for publish[].builtin,
// front.mcp[].builtin and front.a2a[].builtin.
const (
	// BuiltinDemo is the demo MCP server (publish, front.mcp) or the demo
	// A2A agent (front.a2a) of `bridge demo`.
	BuiltinDemo = "demo"
)

// Stdio is an MCP server run as a child process.
type Stdio struct {
	// Command is the executable, looked up in PATH. Required.
	Command string `yaml:"command"`
	// Args are passed to the command as they are (no shell).
	Args []string `yaml:"args" secret:"value"`
	// Env sets variables in the child's environment. The child does not
	// inherit the bridge's environment (which holds its secrets) except for
	// the names listed in inherit_env.
	Env map[string]string `yaml:"env" secret:"value"`
	// InheritEnv names variables copied from the bridge's environment
	// (e.g. PATH, HOME). Default: none. Every name listed is visible to the
	// child, so never list a variable holding a bridge secret.
	InheritEnv []string `yaml:"inherit_env"`
	// Dir is the child's working directory. Default: the bridge's.
	Dir string `yaml:"dir"`
}

// HTTPUpstream is an MCP server reached over streamable HTTP.
type HTTPUpstream struct {
	// URL is the server's MCP endpoint (http or https). Required. Plain http
	// is sent in clear text; use it only on loopback or a private network.
	URL string `yaml:"url" secret:"url"`
	// Headers are added to every request (e.g. a static API key from
	// ${ENV}). Values are never logged.
	Headers map[string]string `yaml:"headers" secret:"value"`
}

// SSEUpstream is an MCP server reached over the legacy HTTP+SSE transport.
type SSEUpstream struct {
	// URL is the server's SSE endpoint (http or https). Required.
	URL string `yaml:"url" secret:"url"`
	// Headers are added to every request. Values are never logged.
	Headers map[string]string `yaml:"headers" secret:"value"`
}

// PublishedServer is an MCP server published as an A2A agent at /a2a/{name}.
type PublishedServer struct {
	// Name is the agent's path segment and policy name (hop.agent). Required,
	// unique among publish and front.a2a; lower-case letters, digits, '-'
	// and '_'.
	Name string `yaml:"name"`
	// Description is the agent card's description. Default: the server's own
	// instructions, if any.
	Description string `yaml:"description"`
	// MCPUpstream is how the server is reached: exactly one of stdio, http,
	// sse, builtin.
	MCPUpstream `yaml:",inline"`
	// Credentials are sent to an http or sse server. Default: none.
	Credentials auth.CredentialsConfig `yaml:"credentials"`
	// ToolTimeout bounds one tool call. Default 60s.
	ToolTimeout Duration `yaml:"tool_timeout" default:"60s"`
	// AllowTools, when set, publishes only the tools whose names match one of
	// these patterns (path.Match syntax: "search_*"). Default: every tool.
	AllowTools []string `yaml:"allow_tools"`
	// DenyTools hides the tools whose names match one of these patterns, even
	// when allow_tools matches them. Hidden tools cannot be called.
	DenyTools []string `yaml:"deny_tools"`
	// Audience lists the token audiences ("aud") this agent accepts, instead
	// of the issuers' auth.*.audience lists: a token issued for another
	// agent or for the MCP endpoint is then refused here. Default: the
	// issuers' lists. Never list the MCP endpoint's resource URL.
	Audience []string `yaml:"audience"`
}

// Expose makes A2A agents callable from MCP hosts.
type Expose struct {
	// Agents are the A2A agents offered as MCP tools.
	Agents []ExposedAgent `yaml:"agents"`
	// ToolNameSeparator joins an alias and a skill id in the name of a
	// per-skill tool (alias_skill). 1 to 8 characters of letters, digits,
	// '-' and '_': tool names stay within the function-name rule of major
	// hosts (^[a-zA-Z0-9_-]{1,64}$). Changing it renames every per-skill
	// tool. Default "_".
	ToolNameSeparator string `yaml:"tool_name_separator" default:"_"`
	// MCP configures the MCP endpoint that offers them.
	MCP MCPEndpoint `yaml:"mcp"`
}

// ExposedAgent is an A2A agent offered to MCP hosts as tools.
type ExposedAgent struct {
	// Alias names the agent in tool names and policy (hop.agent). Required,
	// unique; lower-case letters, digits, '-' and '_'.
	Alias string `yaml:"alias"`
	// URL is the agent card's URL (https://host/.well-known/agent-card.json)
	// or the agent's base URL. Exactly one of url and agent.
	URL string `yaml:"url" secret:"url"`
	// Agent names an agent this bridge serves (a publish or front.a2a name)
	// instead of url: it is called at public_url/a2a/NAME through that
	// agent's own hop chain (auth, limits, policy), like any caller, with
	// the credentials below if any (without them it is called anonymously,
	// which only auth.anonymous admits). Default: none.
	Agent string `yaml:"agent"`
	// Credentials are sent to the agent. Default: none.
	Credentials auth.CredentialsConfig `yaml:"credentials"`
	// CredentialHosts lists the hosts (host or host:port, exact) besides the
	// card URL's own that may receive the credentials when the card names
	// its interfaces there (a service name, another port). Default: none;
	// a card verified with a pinned key may also name any host. Only
	// meaningful with credentials: without them every host the card names
	// is called.
	CredentialHosts []string `yaml:"credential_hosts"`
	// Card sets how the agent's card is verified.
	Card CardVerification `yaml:"card"`
	// Binding picks the agent's binding: JSONRPC, HTTP+JSON or GRPC.
	// Default: the card's first JSON-RPC or HTTP+JSON interface, else its
	// GRPC one (an agent whose card offers only gRPC is called over gRPC).
	// gRPC dials the interface's host:port through netguard, over TLS, or
	// in clear text (h2c) when the card URL is http and
	// netguard.unsafe_allow_http is set; the credential goes there only if
	// that host:port is the card URL's or is listed in credential_hosts.
	Binding string `yaml:"binding"`
	// PerSkillTools also offers one MCP tool per skill in the card, named
	// alias, expose.tool_name_separator and the skill id (billing_refund).
	// Default false.
	PerSkillTools bool `yaml:"per_skill_tools"`
	// Timeout bounds one call to the agent, streaming included. Default 5m.
	Timeout Duration `yaml:"timeout" default:"5m"`
}

// CardVerification is the policy for an upstream agent card's signatures.
type CardVerification struct {
	// RequireSignature refuses a card that carries no valid signature from a
	// trusted key. Default false: unsigned cards are accepted (and logged),
	// which lets anyone who can alter the card in transit or at rest redirect
	// calls. Requires keys or trusted_jku_hosts.
	RequireSignature bool `yaml:"require_signature"`
	// Keys pins the trusted keys: a JWKS file path, or an https URL of a JWKS
	// document. Default: none.
	Keys string `yaml:"keys"`
	// TrustedJKUHosts lists hosts (host or host:port, exact, no wildcards)
	// whose https "jku" URL in a signature header may be followed to fetch a
	// key. Default: none, jku is never followed. Each host can vouch for the
	// card, so list only hosts you trust as much as the pinned keys.
	TrustedJKUHosts []string `yaml:"trusted_jku_hosts"`
	// Algorithms is the signature allow-list. Default ES256, ES384, EdDSA.
	// Only asymmetric algorithms can be listed; "none" and HS* never verify.
	Algorithms []string `yaml:"algorithms"`
	// SpecFormOnly accepts only signatures over the spec's canonical form.
	// Default false: lenient forms derived from the same bytes are also tried.
	SpecFormOnly bool `yaml:"spec_form_only"`
	// MaxCardBytes caps the card size. Default 256KiB.
	MaxCardBytes ByteSize `yaml:"max_card_bytes" default:"256KiB"`
}

// MCPEndpoint is the bridge's MCP face for exposed agents.
type MCPEndpoint struct {
	// Path is where the streamable-HTTP MCP endpoint is mounted. Default /mcp.
	Path string `yaml:"path" default:"/mcp"`
	// AllowedOrigins lists the browser origins (scheme://host[:port]) whose
	// requests are accepted; requests with any other Origin header are
	// refused, which stops DNS-rebinding attacks from web pages. Default:
	// none (requests without an Origin header, i.e. non-browser clients, are
	// accepted). "*" is refused.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// Stdio also serves the exposed agents over `bridge mcp` on
	// stdin/stdout, for desktop hosts. The stdio caller is trusted as the
	// local user. Default false.
	Stdio bool `yaml:"stdio"`
	// Audience lists the token audiences ("aud") the endpoint accepts, in
	// place of the issuers' auth.*.audience lists (which are the A2A
	// agents'). Default: its canonical resource URL, public_url + path, the
	// resource its OAuth protected-resource metadata names and MCP clients
	// ask their authorization server for (RFC 8707). A token for an A2A
	// agent is refused here, and an A2A token audience may not be listed.
	Audience []string `yaml:"audience"`
	// RateLimitedMethods are the MCP methods the limits count at the
	// endpoint's front door, before mcp-go or a tool sees the request:
	// exact method names ("tools/call"), "prefix/*" for a family
	// ("resources/*") or "*" for every request. A request over a limit gets
	// HTTP 429 with Retry-After, RateLimit and RateLimit-Policy and a
	// JSON-RPC error (code -32029). Notifications and responses are never
	// counted; stdio counts tool calls only. Default: every request ("*").
	RateLimitedMethods []string `yaml:"rate_limited_methods"`
	// Sessions gives MCP hosts of the 2025 protocol versions an
	// Mcp-Session-Id over streamable HTTP, usable only by the caller who
	// initialized it, so that the host can be asked during a tool call, on
	// the call's own response stream: elicitation and sampling requests from
	// front.mcp servers, and questions from exposed agents (elicitation).
	// Default false: every request is served statelessly (any replica can
	// serve it); a fronted server's elicitation and sampling still reach a
	// host that declared them at its latest initialize in this process, on
	// the event stream of the tools/call that caused them (the answer, a new
	// POST from the same principal, is routed by a bridge-minted id and must
	// reach the same replica; elsewhere it is refused with a JSON-RPC
	// error), and an exposed agent's question comes back as an
	// input-required result; stdio is unaffected. Sessions live in one process's memory: with several
	// replicas, route each session's requests to the replica that created it
	// (sticky routing on the Mcp-Session-Id header).
	Sessions bool `yaml:"sessions"`
}

// Front lists existing agents and servers served behind the hop chain.
type Front struct {
	// A2A are A2A agents proxied at /a2a/{name}.
	A2A []FrontedAgent `yaml:"a2a"`
	// MCP are MCP servers aggregated into the bridge's MCP endpoint.
	MCP []FrontedMCPServer `yaml:"mcp"`
}

// FrontedAgent is an existing A2A agent proxied at /a2a/{name}.
type FrontedAgent struct {
	// Name is the agent's path segment and policy name (hop.agent). Required,
	// unique among publish and front.a2a.
	Name string `yaml:"name"`
	// URL is the agent's card URL or base URL. Exactly one of url and
	// builtin. The bridge calls the agent over HTTP/1.1 (over TLS for
	// https, offering only http/1.1), keeping idle connections for reuse.
	URL string `yaml:"url" secret:"url"`
	// Builtin names an A2A agent compiled into the bridge, served inside
	// the bridge's process behind the same hop chain (hop.direction "local")
	// instead of one reached at url: "demo" (the echo agent of `bridge
	// demo`). Credentials, credential_hosts, card and binding do not apply
	// to it. Default: none. Nothing built in is served unless a file names
	// it.
	Builtin string `yaml:"builtin"`
	// Credentials are sent to the agent instead of the caller's. Default:
	// none (the caller's credentials are never forwarded).
	Credentials auth.CredentialsConfig `yaml:"credentials"`
	// CredentialHosts lists the hosts (host or host:port, exact) besides the
	// card URL's own that may receive the credentials, for a card that
	// names its interfaces on another host or port (localhost for
	// 127.0.0.1, a service name). A call to any other host is refused
	// rather than sent without them. Default: none. Only meaningful with
	// credentials: without them every host the card names is called.
	CredentialHosts []string `yaml:"credential_hosts"`
	// Card sets how the agent's card is verified.
	Card CardVerification `yaml:"card"`
	// Binding picks the agent's binding: JSONRPC, HTTP+JSON or GRPC.
	// Default: the card's first JSON-RPC or HTTP+JSON interface, else its
	// GRPC one (an agent whose card offers only gRPC is called over gRPC).
	// gRPC dials the interface's host:port through netguard, over TLS, or
	// in clear text (h2c) when the card URL is http; the credential
	// goes there only if that host:port is the card URL's or is listed in
	// credential_hosts.
	Binding string `yaml:"binding"`
	// Audience lists the token audiences ("aud") this agent accepts, instead
	// of the issuers' auth.*.audience lists. Default: the issuers' lists.
	// Never list the MCP endpoint's resource URL.
	Audience []string `yaml:"audience"`
}

// FrontedMCPServer is an existing MCP server aggregated into /mcp.
type FrontedMCPServer struct {
	// Name identifies the server in policy (hop.agent) and metrics. Required,
	// unique among front.mcp.
	Name string `yaml:"name"`
	// MCPUpstream is how the server is reached: exactly one of stdio, http,
	// sse, builtin.
	MCPUpstream `yaml:",inline"`
	// Credentials are sent to an http or sse server. Default: none.
	Credentials auth.CredentialsConfig `yaml:"credentials"`
	// ToolPrefix is prepended to the server's tool names so servers cannot
	// shadow each other's tools. Default: NAME + "_". Unique among front.mcp.
	ToolPrefix string `yaml:"tool_prefix"`
}

// Push configures A2A push notifications.
type Push struct {
	// Enabled lets clients register webhooks; the bridge then makes requests
	// to client-chosen URLs, always through netguard. Default false.
	Enabled bool `yaml:"enabled"`
	// MaxAttempts is how many times one notification is tried. Default 5.
	MaxAttempts int `yaml:"max_attempts" default:"5"`
	// Timeout bounds one delivery attempt. Default 10s.
	Timeout Duration `yaml:"timeout" default:"10s"`
}

// Netguard is the egress guard for URLs the bridge did not get from this file.
type Netguard struct {
	// UnsafeAllow lists CIDR prefixes let through although they are private,
	// loopback, link-local or otherwise refused (e.g. 127.0.0.1/32 for tests
	// or a sidecar). Default: none. Every entry weakens SSRF protection and
	// is logged at start; on a non-loopback listener it also needs
	// unsafe_allow_confirm.
	UnsafeAllow []string `yaml:"unsafe_allow"`
	// UnsafeAllowHTTP lets guarded requests use plain http (and port 80).
	// Default false: https only. Responses can then be read and altered in
	// transit. On a non-loopback listener it needs unsafe_allow_confirm.
	UnsafeAllowHTTP bool `yaml:"unsafe_allow_http"`
	// UnsafeAllowConfirm confirms unsafe_allow and unsafe_allow_http on a
	// non-loopback listener. Default false.
	UnsafeAllowConfirm bool `yaml:"unsafe_allow_confirm"`
	// Ports lists the destination ports allowed. Default: 443 (and 80 with
	// unsafe_allow_http).
	Ports []uint16 `yaml:"ports"`
	// MaxRedirects is how many redirects are followed, each checked like the
	// first request. Default 0.
	MaxRedirects int `yaml:"max_redirects"`
	// Timeout bounds a whole guarded request. Default 30s.
	Timeout Duration `yaml:"timeout" default:"30s"`
	// MaxBodyBytes caps a guarded response body. Default 1MiB.
	MaxBodyBytes ByteSize `yaml:"max_body_bytes" default:"1MiB"`
}

// Observability configures logs, metrics and traces.
type Observability struct {
	// LogLevel is debug, info, warn or error. Default info. Logs never carry
	// tokens or secrets at any level.
	LogLevel string `yaml:"log_level" default:"info"`
	// LogFormat is json or text. Default json.
	LogFormat string `yaml:"log_format" default:"json"`
	// LogFlushInterval is how long a log line (access, audit, any record
	// below warn) may wait in a buffer before it is written, so that a busy
	// bridge makes one write for many lines instead of one each; warnings
	// and errors are written at once, with every line before them, and
	// the buffer is flushed at shutdown. No line is dropped; what a kill
	// -9 or a crash of the process takes with it is the lines of the last
	// interval. 0 writes every line as it is logged. Default 100ms.
	LogFlushInterval Duration `yaml:"log_flush_interval" default:"100ms"`
	// Metrics serves Prometheus metrics at metrics_path on the listener.
	// Default true. The endpoint is not authenticated; metrics carry agent,
	// skill and tool names but no principals.
	Metrics *bool `yaml:"metrics" default:"true"`
	// MetricsPath is where metrics are served. Default /metrics.
	MetricsPath string `yaml:"metrics_path" default:"/metrics"`
	// OTLPEndpoint is the OTLP/HTTP traces endpoint (http(s)://host:4318).
	// Default: none, tracing off.
	OTLPEndpoint string `yaml:"otlp_endpoint" secret:"url"`
	// ServiceName is the service.name of traces. Default a2a-mcp-bridge.
	ServiceName string `yaml:"service_name" default:"a2a-mcp-bridge"`
}

// MetricsEnabled reports whether metrics are served (default true).
func (o Observability) MetricsEnabled() bool { return o.Metrics == nil || *o.Metrics }

// Server configures the HTTP server.
type Server struct {
	// RootAgent names the agent (a publish or front.a2a name) whose card is
	// also served at /.well-known/agent-card.json and which answers gRPC
	// calls that name no tenant. Default: the published agent when
	// publish has exactly one entry, else the fronted one when front.a2a
	// has exactly one and publish none; otherwise none.
	RootAgent string `yaml:"root_agent"`
	// ReadHeaderTimeout bounds reading request headers (slowloris). Default 10s.
	ReadHeaderTimeout Duration `yaml:"read_header_timeout" default:"10s"`
	// ReadTimeout bounds reading a request's body, on every endpoint,
	// counted from the end of its headers: a body that has not arrived in
	// full by then (a client trickling it) is answered 408 where the
	// endpoint reads it, and its connection is closed. It does not bound
	// the response, so event streams stay open. Default 60s.
	ReadTimeout Duration `yaml:"read_timeout" default:"60s"`
	// WriteTimeout bounds writing a response. Default 0: none, because SSE
	// streams stay open; streams are bounded by their own idle timeouts.
	WriteTimeout Duration `yaml:"write_timeout"`
	// IdleTimeout closes idle keep-alive connections. Default 120s.
	IdleTimeout Duration `yaml:"idle_timeout" default:"120s"`
	// MaxBodyBytes caps a request body. Default 1MiB.
	MaxBodyBytes ByteSize `yaml:"max_body_bytes" default:"1MiB"`
	// MaxConnections caps the connections open at once, in total (the main
	// listener and server.grpc.listen together): one more
	// is closed as soon as it is accepted, and counted in
	// bridge_connections_refused_total{limit="total"}. Released event
	// streams count until they end. Default 10000; 0 turns the limit off.
	MaxConnections int `yaml:"max_connections" default:"10000"`
	// MaxConnectionsPerClient caps the connections open at once from one
	// client address (IPv4 address, IPv6 /64), on both listeners together,
	// counted in
	// bridge_connections_refused_total{limit="per_client"} when it bites.
	// Default 0: no limit, since behind a load balancer or proxy every
	// client has the proxy's address; set it when clients connect directly.
	MaxConnectionsPerClient int `yaml:"max_connections_per_client"`
	// GCMinHeap lets the Go heap grow to this size before the garbage
	// collector's pacing (GOGC=100: a collection each time the heap has
	// doubled since the last one's live data) takes over. A bridge's live
	// heap is small, so under load it collects tens of times a second,
	// about a fifth of its CPU; with the floor it collects a few times as
	// rarely. The cost is memory: the process may hold up to this much
	// more heap than with the runtime's default (no more once the live
	// heap is half of it). GOGC or GOMEMLIMIT in the environment still
	// rule: with GOGC set this does nothing. 0 turns it off. Default 64MiB.
	GCMinHeap ByteSize `yaml:"gc_min_heap" default:"64MiB"`
	// ShutdownGrace is how long running requests, streams and tasks may
	// finish after SIGTERM. Then the tasks still running end FAILED ("the
	// bridge shut down"), their streams get that final event, what is
	// still open is closed, and the process exits within 2s more. Default
	// 30s.
	ShutdownGrace Duration `yaml:"shutdown_grace" default:"30s"`
	// A2AErrorTable selects the JSON-RPC error codes: "1.0.1" or "1.0.0".
	// Default 1.0.1.
	A2AErrorTable string `yaml:"a2a_error_table" default:"1.0.1"`
	// AllowMissingA2AVersion serves requests without an A2A-Version header as
	// 1.0 instead of refusing them. Default false.
	AllowMissingA2AVersion bool `yaml:"allow_missing_a2a_version"`
	// A2AV03 says what every agent the bridge serves does with A2A 0.3
	// callers: "accept" answers them (the 0.3 JSON-RPC methods such as
	// message/send, the 0.3 HTTP+JSON paths under /rest/v1/ in the
	// ProtoJSON shapes the 0.3 SDKs send, and a card with the 0.3 members
	// url, preferredTransport, additionalInterfaces and protocolVersion
	// beside the 1.0 ones, still signed, served as a2a_v03_card says),
	// each request translated once into the 1.0 call, so that
	// authentication, policy, limits, owner scoping, push and the event
	// log are those of 1.0; "refuse" answers
	// them VersionNotSupported (-32009) and serves the 1.0 card only. A
	// request is 0.3 when it has no A2A-Version header (or one of major
	// version 0) and its method contains "/" or its path starts with
	// /v1/. Default accept.
	A2AV03 string `yaml:"a2a_v03" default:"accept"`
	// A2AV03Card says which card readers get the card with the 0.3
	// members (with a2a_v03: accept): "on_request" serves it to readers
	// that ask for A2A 0.3 (an A2A-Version: 0.3 header, or
	// ?A2A-Version=0.3 on the card URL, which a 0.3 client can be given as
	// its card URL), and the 1.0 card to readers that name no version, as
	// the A2A 1.0 schema and conformance kit require; "default" serves it
	// to readers that name no version too, which is how the 0.3 SDK
	// clients fetch a card, at the cost of members the 1.0 schema does not
	// allow. Default on_request.
	A2AV03Card string `yaml:"a2a_v03_card" default:"on_request"`
	// AllowedHosts are host names (without port) requests may name in their
	// Host header besides the host of public_url, the listen host, the
	// loopback names and IP literals, such as the internal name a load
	// balancer or a Kubernetes Service uses. Any other name is refused with
	// 403 on every route but /healthz, /readyz and metrics: that is how a
	// web page that rebinds its own name to the bridge's address (DNS
	// rebinding) is stopped, on loopback and anonymous configs too.
	// Default: none.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// AllowedOrigins lists the browser origins (scheme://host[:port]) whose
	// requests every route accepts; a request with any other Origin header
	// (but the bridge's own) is refused with 403. expose.mcp.allowed_origins
	// adds origins for the MCP endpoint only. Default: none. "*" is refused.
	AllowedOrigins []string `yaml:"allowed_origins"`
	// GRPC serves the A2A gRPC binding (lf.a2a.v1.A2AService) for every
	// agent the bridge serves, published and fronted.
	GRPC GRPC `yaml:"grpc"`
}

// GRPC configures the A2A gRPC binding. Calls go through the same
// authentication (metadata authorization: Bearer …, or the API key
// header), audiences, limits, policy, owner scoping and task store as
// JSON-RPC and HTTP+JSON: a task created over gRPC is its owner's on every
// binding. A call names its agent by the request's tenant field, which
// each served card's GRPC interface gives (the agent's name); an empty
// tenant reaches the agent the root card describes.
type GRPC struct {
	// Enabled serves the binding and lists a GRPC interface in every
	// served card. Default false.
	Enabled bool `yaml:"enabled"`
	// Listen is the address of a listener of the binding's own (plain
	// HTTP/2, or TLS with cert_file and key_file), where keepalive_* and
	// max_connection_* apply. Default: none, the binding is served on the
	// main listener, which then also accepts HTTP/2 without TLS (h2c) and
	// routes requests of content type application/grpc to it; its HTTP/2
	// connections follow the server.* timeouts.
	Listen string `yaml:"listen"`
	// PublicAddress is the host:port clients reach the binding at, named
	// in the cards' GRPC interfaces. Default: the host of public_url with
	// the port of listen (or public_url's port on the main listener).
	PublicAddress string `yaml:"public_address"`
	// CertFile is the PEM certificate chain of the binding's own listener
	// (TLS 1.2 or later), with key_file. Default: none, plain HTTP/2 (use
	// it only on loopback or behind a TLS-terminating proxy).
	CertFile string `yaml:"cert_file"`
	// KeyFile is the PEM private key of cert_file. Keep it readable by the
	// bridge only.
	KeyFile string `yaml:"key_file"`
	// MaxRecvMessageBytes caps one request message. Default 4MiB.
	MaxRecvMessageBytes ByteSize `yaml:"max_recv_message_bytes" default:"4MiB"`
	// MaxSendMessageBytes caps one response message or stream event.
	// Default 16MiB.
	MaxSendMessageBytes ByteSize `yaml:"max_send_message_bytes" default:"16MiB"`
	// MaxUnaryDuration bounds one unary call whatever deadline the caller
	// sets; a caller's shorter deadline is kept. A blocking SendMessage
	// whose task has not stopped by then is answered DEADLINE_EXCEEDED and
	// its task goes on (SubscribeToTask, GetTask follow it). Streams last
	// as long as their task or caller. Default 5m.
	MaxUnaryDuration Duration `yaml:"max_unary_duration" default:"5m"`
	// KeepaliveTime is how long a connection of the own listener may be
	// silent before the bridge pings it. Default 2m.
	KeepaliveTime Duration `yaml:"keepalive_time" default:"2m"`
	// KeepaliveTimeout is how long the answer to that ping may take before
	// the connection is closed. Default 20s.
	KeepaliveTimeout Duration `yaml:"keepalive_timeout" default:"20s"`
	// MinPingInterval is the shortest interval between a client's pings;
	// a client pinging more often is disconnected. Default 30s.
	MinPingInterval Duration `yaml:"min_ping_interval" default:"30s"`
	// MaxConnectionIdle closes a connection of the own listener without
	// calls for that long. Default 15m; 0 never.
	MaxConnectionIdle Duration `yaml:"max_connection_idle" default:"15m"`
	// MaxConnectionAge sends a connection of the own listener GOAWAY once
	// that old, so that clients spread over replicas again; its calls may
	// finish during max_connection_age_grace. Default 0: never.
	MaxConnectionAge Duration `yaml:"max_connection_age"`
	// MaxConnectionAgeGrace is how long calls may finish on a connection
	// past max_connection_age. Default 30s.
	MaxConnectionAgeGrace Duration `yaml:"max_connection_age_grace" default:"30s"`
}

// Health configures how the bridge watches its upstreams (published and
// fronted MCP servers, fronted and exposed A2A agents) and what /readyz
// requires. Every upstream is checked actively (an MCP ping, or a re-read of
// the tool list on 2026-07-28; an A2A card fetch with If-None-Match); one
// that is down or whose card fails verification is reported in /readyz,
// bridge_upstream_up{upstream,kind} and the log within check_interval, and
// retried until it is back. An upstream down at start never stops the
// bridge from starting.
type Health struct {
	// Readiness is what /readyz requires: "upstreams" (the bridge and every
	// upstream up: a sidecar, whose pod is useless without its upstream) or
	// "bridge" (the bridge itself, i.e. its store: a shared gateway that
	// must keep serving the upstreams that are up). Default upstreams.
	// /readyz lists every upstream's state either way.
	Readiness string `yaml:"readiness" default:"upstreams"`
	// CheckInterval is how often each upstream is checked. Default 15s.
	CheckInterval Duration `yaml:"check_interval" default:"15s"`
	// CheckTimeout bounds one check; a check that times out counts as a
	// failure (an MCP connection is then re-established). Default 5s.
	CheckTimeout Duration `yaml:"check_timeout" default:"5s"`
	// ReconnectMin is the first wait before reconnecting to an MCP server
	// that went away (at once when its connection had lived longer than
	// reconnect_max); the wait doubles after each failed attempt, and each
	// one is drawn from [wait/2, wait] so that bridges do not all come back
	// at the same instant. Default 250ms.
	ReconnectMin Duration `yaml:"reconnect_min" default:"250ms"`
	// ReconnectMax caps the wait between reconnection attempts. Default 30s.
	ReconnectMax Duration `yaml:"reconnect_max" default:"30s"`
	// CardRefreshMin is the least time a fronted or exposed agent's card is
	// used before it is fetched again (If-None-Match) and re-verified
	// against the pinned keys: its Cache-Control max-age is clamped to
	// [card_refresh_min, card_refresh_max] (no-cache means the minimum; no
	// header, 5m). The health check fetches it too, so a changed card is
	// seen within check_interval. Default 30s.
	CardRefreshMin Duration `yaml:"card_refresh_min" default:"30s"`
	// CardRefreshMax is the longest a card is used before it is fetched and
	// verified again, whatever its max-age says. Default 1h.
	CardRefreshMax Duration `yaml:"card_refresh_max" default:"1h"`
}

// Admin configures the admin listener, which serves the status page at
// /admin/, the same data as JSON at /admin/api/status (what `bridge status`
// prints) and the metrics at observability.metrics_path. It reads the state
// /readyz and the metrics read. Off by default: a second port nobody asked
// for would collide between bridges on one machine (and 9090 with
// Prometheus'); set listen to turn it on.
type Admin struct {
	// Listen is the admin listener's TCP address, e.g. 127.0.0.1:9090.
	// Default: none, no admin listener. On a loopback address the page is
	// open to everyone on this machine unless admin.auth is set; any other
	// address requires admin.auth.
	Listen string `yaml:"listen"`
	// Auth authenticates the admin listener's callers: API keys, JWKS files
	// or OIDC issuers of its own (the same keys as the top-level auth
	// section, kept apart so that a caller's key never opens the admin
	// view). Every caller must also hold admin.scope. Default: none, which
	// is allowed only on a loopback listen address; when set, it is
	// required on loopback too. anonymous is refused here.
	Auth auth.Config `yaml:"auth"`
	// Scope is the scope an admin caller's API key or token must carry.
	// Default bridge:admin.
	Scope string `yaml:"scope" default:"bridge:admin"`
	// Refresh is how often the status page reloads itself (an HTML meta
	// refresh; no JavaScript). Default 10s; from 1s to 1h.
	Refresh Duration `yaml:"refresh" default:"10s"`
}

// Enabled reports whether the admin listener is on (admin.listen set).
func (a Admin) Enabled() bool { return a.Listen != "" }

// AuthConfigured reports whether admin.auth names any way in.
func (a Admin) AuthConfigured() bool {
	return len(a.Auth.OIDC) > 0 || len(a.Auth.JWKS) > 0 || len(a.Auth.APIKeys) > 0
}

// Readiness values.
const (
	ReadinessUpstreams = "upstreams"
	ReadinessBridge    = "bridge"
)

// Retention bounds how long finished tasks are kept.
type Retention struct {
	// FinishedTasks is how long a task in a terminal state is kept. Default
	// 168h (7 days).
	FinishedTasks Duration `yaml:"finished_tasks" default:"168h"`
	// SweepInterval is how often expired tasks are deleted. Default 10m.
	SweepInterval Duration `yaml:"sweep_interval" default:"10m"`
}

// Tasks configures how running tasks are looked after.
type Tasks struct {
	// LeaseTTL is how long a task's run lease lasts without renewal; the
	// process running the task renews it every third of the TTL. When that
	// process dies (crash, kill, lost network), the task is ended FAILED,
	// with its history intact, by any replica on the store, or by the same
	// process after a restart, within lease_ttl plus at most 4s (recovery
	// looks every quarter of the TTL, at least every 4s, and at start-up).
	// Shorter ends dead tasks sooner and costs more store writes. Default
	// 15s; from 1s to 10m.
	LeaseTTL Duration `yaml:"lease_ttl" default:"15s"`
}

// Reload configures reloading the configuration while serving. A reload
// applies auth (API keys, issuers, JWKS files), policy, limits and the
// signing keys (the JWKS and every served card follow), and logs one line
// naming what changed and what needs a restart (listen, store, server, …);
// a file with problems changes nothing and the problems are logged.
type Reload struct {
	// Watch re-reads the file, and the key and JWKS files it names, every
	// watch_interval, and reloads when their content changed (as SIGHUP
	// does). Default false: reload on SIGHUP only.
	Watch bool `yaml:"watch"`
	// WatchInterval is how often watched files are read. Default 5s; at
	// least 1s.
	WatchInterval Duration `yaml:"watch_interval" default:"5s"`
}
