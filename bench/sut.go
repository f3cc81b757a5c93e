// Package bench holds what the benchmark suite (bench/run.sh, make bench)
// runs beside the real `bridge serve`: its peers, a fast A2A agent (Agent,
// NewUpstream) and a fast MCP server (NewMCPServer); the key files and
// token `bridge serve` is started with (WriteServeKeys, bench/bridge.yaml);
// and a diagnostic, the front-A2A path composed in-process from the
// bridge's packages without the gateway's middleware (NewBridge). See
// bench/README.md.
package bench

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/front"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/auth"
	"github.com/a2a-mcp-bridge/bridge/gateway/hops"
	"github.com/a2a-mcp-bridge/bridge/policy"
	"github.com/a2a-mcp-bridge/bridge/ratelimit"
	"github.com/a2a-mcp-bridge/bridge/request"
)

// HoldText is the message text that makes Agent keep its task WORKING until
// the task is cancelled or the agent stops: the long task idle SSE streams
// subscribe to.
const HoldText = "hold"

// ProgressPrefix starts a message text that makes Agent report WORKING
// before its artifact: the streaming variant of the translation benchmarks
// (through expose, the WORKING update becomes an MCP progress notification).
const ProgressPrefix = "progress"

// Agent is a trivial fast executor: it answers every message with one text
// artifact and completes the task, except HoldText, which it holds open.
type Agent struct{}

var _ taskmanager.Executor = Agent{}

// Execute implements taskmanager.Executor.
func (Agent) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	text := ""
	if req.Message != nil && len(req.Message.Parts) > 0 {
		text = req.Message.Parts[0].Text
	}
	if text == HoldText {
		if err := u.Working(ctx, "holding"); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}
	if strings.HasPrefix(text, ProgressPrefix) {
		if err := u.Working(ctx, "working"); err != nil {
			return err
		}
	}
	if err := u.Artifact(ctx, a2a.Artifact{Name: "echo", Parts: []a2a.Part{a2a.TextPart("echo: " + text)}}, false, true); err != nil {
		return err
	}
	return u.Complete(ctx, "")
}

// Cancel implements taskmanager.Executor; the manager marks the task CANCELED.
func (Agent) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error { return nil }

// Card is the upstream's agent card for an agent served at baseURL.
func Card(baseURL string) *a2a.AgentCard {
	baseURL = strings.TrimSuffix(baseURL, "/")
	return &a2a.AgentCard{
		Name:        "bench upstream",
		Description: "Echoes a message as one artifact; 'hold' keeps the task working.",
		SupportedInterfaces: []a2a.AgentInterface{
			{URL: baseURL, ProtocolBinding: a2a.BindingJSONRPC, ProtocolVersion: a2a.ProtocolVersion},
		},
		Version:            "1.0.0",
		Capabilities:       a2a.AgentCapabilities{Streaming: a2a.Ptr(true), PushNotifications: a2a.Ptr(false)},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills:             []a2a.AgentSkill{{ID: "echo", Name: "Echo", Description: "Echoes text.", Tags: []string{"bench"}}},
	}
}

// Upstream is the fast agent behind an server.Server with an in-memory store.
type Upstream struct {
	// Handler serves the agent (card, JSON-RPC at "/").
	Handler http.Handler
	// Manager runs the agent's tasks; Wait on it after the listener closed.
	Manager *taskmanager.Manager
	// Store is the manager's store (the harness empties it between runs).
	Store *store.Memory
}

// NewUpstream builds the upstream agent for baseURL (where its card says it
// is served).
func NewUpstream(baseURL string, log *slog.Logger) (*Upstream, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := store.NewMemory()
	mgr, err := taskmanager.New(taskmanager.Config{Store: st, Executor: Agent{}, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("bench: upstream manager: %w", err)
	}
	srv, err := server.New(server.Config{Manager: mgr, Card: Card(baseURL), KeepAlive: time.Minute, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("bench: upstream server: %w", err)
	}
	return &Upstream{Handler: srv, Manager: mgr, Store: st}, nil
}

// Bench identity of the bridge's callers.
const (
	Issuer   = "https://idp.bench.invalid"
	Audience = "a2a-bridge-bench"
	Subject  = "bench-client"
	Scope    = "a2a.call"
	// AgentName is the fronted agent's name in hops, policy and limits.
	AgentName = "bench"
)

// BridgeConfig configures NewBridge.
type BridgeConfig struct {
	// UpstreamCardURL is the upstream's agent card. Required.
	UpstreamCardURL string
	// BaseURL is where the bridge itself is served (its card's URL). Required.
	BaseURL string
	// HTTPClient calls the upstream (default: the proxy's own default).
	HTTPClient *http.Client
	// Logger receives logs (default: discarded).
	Logger *slog.Logger
}

// Bridge is the bridge in front-A2A mode with every inbound check on:
// bearer JWT (ES256, verified-token cache), CEL policy per method and
// principal, and an in-memory rate limit per principal set high enough that
// it is counted but never reached.
type Bridge struct {
	// Handler serves the bridge's face of the agent.
	Handler http.Handler
	// Manager runs the bridge's tasks (the proxy executor).
	Manager *taskmanager.Manager
	// Token is a bearer JWT the bridge accepts, valid for a day.
	Token string
	// Limiter is the rate limiter (Close it when done).
	Limiter *ratelimit.Limiter
}

// NewBridge fetches the upstream card and builds the protected bridge.
func NewBridge(ctx context.Context, cfg BridgeConfig) (*Bridge, error) {
	if cfg.UpstreamCardURL == "" || cfg.BaseURL == "" {
		return nil, errors.New("bench: bridge config: UpstreamCardURL and BaseURL are required")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("bench: generate signing key: %w", err)
	}
	token, err := signToken(key, time.Now())
	if err != nil {
		return nil, err
	}
	jwks := auth.NewJWKSKeys(auth.JWKSConfig{Issuer: Issuer, Audience: []string{Audience}, Scopes: []string{Scope}, Algorithms: []string{"ES256"}},
		[]jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "bench", Algorithm: "ES256", Use: "sig"}}, auth.JWTOptions{})
	chain := auth.NewChain(auth.ChainOptions{Cache: auth.NewTokenCache(10_000, time.Hour, nil)}, jwks)

	engine, err := policy.Compile(policy.Config{
		Default: policy.DefaultDeny,
		Rules: []policy.Rule{
			{Name: "bench-calls", Allow: fmt.Sprintf(`principal.scopes.exists(s, s == %q) && hop.agent == %q && hop.method in ["SendMessage", "SendStreamingMessage", "GetTask", "SubscribeToTask", "CancelTask"]`, Scope, AgentName)},
			{Name: "no-bots", Deny: `principal.client_id.startsWith("bot-")`},
		},
	}, policy.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("bench: policy: %w", err)
	}
	lim, err := ratelimit.New(ratelimit.Config{Rules: []ratelimit.Rule{
		{Per: ratelimit.Fields{"principal"}, Rate: "1000000000/s"},
		{Per: ratelimit.Fields{"principal", "method"}, Rate: "1000000000/m"},
	}}, ratelimit.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("bench: rate limits: %w", err)
	}
	px, err := front.New(ctx, front.Config{
		CardURL: cfg.UpstreamCardURL, HTTPClient: cfg.HTTPClient, StateKey: make32(), Logger: log,
	})
	if err != nil {
		lim.Close()
		return nil, fmt.Errorf("bench: front executor: %w", err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: px, Logger: log})
	if err != nil {
		lim.Close()
		return nil, fmt.Errorf("bench: bridge manager: %w", err)
	}
	hops := &hops.Chain{Authn: chain, Authz: engine, Limits: lim, Realm: "bench", Log: log}
	srv, err := server.New(server.Config{
		Manager: mgr, Card: px.Card(cfg.BaseURL, false), KeepAlive: time.Minute, Logger: log,
		Guard: hops.A2AGuard(AgentName, request.DirFrontA2A),
	})
	if err != nil {
		lim.Close()
		return nil, fmt.Errorf("bench: bridge server: %w", err)
	}
	return &Bridge{Handler: hops.ProtectA2A(srv), Manager: mgr, Token: token, Limiter: lim}, nil
}

// make32 is a fresh random state key (the bench's tasks never outlive it).
func make32() []byte {
	k := make([]byte, 32)
	_, _ = io.ReadFull(rand.Reader, k)
	return k
}

// signToken mints the bench caller's access token.
func signToken(key *ecdsa.PrivateKey, now time.Time) (string, error) {
	return mint(key, map[string]any{
		"iss": Issuer, "aud": Audience, "sub": Subject, "scope": Scope,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(),
	})
}
