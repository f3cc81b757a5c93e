package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/httpbody"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// Call describes one parsed request, for the server's Guard hook.
type Call struct {
	// Method is the A2A method name.
	Method string
	// Binding is BindingJSONRPC, BindingHTTPJSON or BindingGRPC.
	Binding string
	// TaskID is the task the call names, if any.
	TaskID string
	// Skill is the skill the message asks for (metadata "skillId"), if any.
	Skill string
	// Params is the decoded request message (e.g. *SendMessageRequest).
	Params any
	// Version is the protocol version the caller spoke: "" for 1.0, "0.3"
	// for a request translated at the edge (ServerConfig.Legacy).
	Version string
	// Request is the HTTP request.
	Request *http.Request

	// bodyRead is how many bytes of the request's body the server read,
	// to its end (-1: the body was not read).
	bodyRead int64
}

// Config configures an agent's http.Handler.
type Config struct {
	// Manager runs tasks. Required.
	Manager *taskmanager.Manager
	// Card is the public agent card. Required. Replace it later with SetCard.
	Card *a2a.AgentCard
	// ExtendedCard returns the extended card for an authenticated caller.
	// Nil means the card declares one but none is configured.
	ExtendedCard func(ctx context.Context) (*a2a.AgentCard, error)
	// Owner returns the owner key of the caller (default: OwnerFromContext).
	Owner func(ctx context.Context) (string, error)
	// Guard, if set, runs after a request is parsed and before it is served
	// (authorization, rate limits); its error is answered in the binding's form.
	Guard func(ctx context.Context, c *Call) error
	// PushEnabled turns on the push notification config methods.
	PushEnabled bool
	// CheckPushURL validates a webhook URL when a config is created.
	CheckPushURL func(ctx context.Context, url string) error
	// ErrorTable picks the HTTP status table of errors (default v1.0.1).
	ErrorTable a2a.ErrorTable
	// AllowMissingVersion serves requests without A2A-Version as 1.0
	// (strictly, an absent header means 0.3 and is refused).
	AllowMissingVersion bool
	// Legacy, if set, answers requests of an older protocol version (A2A
	// 0.3) at the edge, translated into the 1.0 calls; nil refuses them
	// with VersionNotSupported.
	Legacy Legacy
	// LegacyCard, if set, derives and signs the card served to readers of
	// the older version (see Legacy); it runs whenever the card is set. It
	// is served to readers that ask for it (A2A-Version 0.x, as a header
	// or a query parameter) and, with LegacyCardDefault, to readers that
	// name no version.
	LegacyCard LegacyCard
	// LegacyCardDefault serves the LegacyCard to card readers that name no
	// version (the 0.3 SDK clients). Off, they get the 1.0 card, which is
	// what 1.0 readers that validate the card against the 1.0 schema (whose
	// AgentCard allows no other members) need.
	LegacyCardDefault bool
	// MaxBodyBytes caps request bodies (default 1 MiB).
	MaxBodyBytes int64
	// ReadTimeout bounds reading a request body (default 30s).
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a non-streaming response (default 60s
	// plus the time a blocking SendMessage waits).
	WriteTimeout time.Duration
	// KeepAlive is the SSE keep-alive comment interval (default 15s).
	KeepAlive time.Duration
	// CardMaxAge is the card's Cache-Control max-age (default 300s).
	CardMaxAge time.Duration
	// Logger receives the server's logs (default slog.Default()).
	Logger *slog.Logger
}

// Server serves one agent: the card, JSON-RPC at "/", HTTP+JSON under
// "/rest". Mount it at the agent's base path with http.StripPrefix.
type Server struct {
	cfg  Config
	card atomic.Pointer[servedCard]
	mux  *http.ServeMux
}

type servedCard struct {
	card     *a2a.AgentCard
	body     []byte
	etag     string
	modified time.Time
	// legacy is the card for readers of the older version, if any.
	legacy *servedCard
}

type ownerKey struct{}

// WithOwner returns ctx carrying the caller's owner key.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// AnonymousOwner owns the tasks of unauthenticated callers.
const AnonymousOwner = "anonymous"

// OwnerValue answers the owner key's lookup for a context type that carries
// the owner among other values in one allocation (see gateway/hops): when
// key is the owner's, it returns the value OwnerFromContext reads (a
// pointer: a boxed string would allocate per lookup).
func OwnerValue(key any, owner *string) (any, bool) {
	if _, ok := key.(ownerKey); ok {
		return owner, true
	}
	return nil, false
}

// OwnerFromContext returns the owner key set by WithOwner, or AnonymousOwner.
func OwnerFromContext(ctx context.Context) (string, error) {
	switch o := ctx.Value(ownerKey{}).(type) {
	case string:
		if o != "" {
			return o, nil
		}
	case *string: // OwnerValue's
		if *o != "" {
			return *o, nil
		}
	}
	return AnonymousOwner, nil
}

// New returns the handler of one agent.
func New(cfg Config) (*Server, error) {
	if cfg.Manager == nil || cfg.Card == nil {
		return nil, errors.New("server: server needs a manager and a card")
	}
	if cfg.Owner == nil {
		cfg.Owner = OwnerFromContext
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 30 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 60 * time.Second
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 15 * time.Second
	}
	if cfg.CardMaxAge <= 0 {
		cfg.CardMaxAge = 300 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux()}
	if err := s.SetCard(cfg.Card); err != nil {
		return nil, err
	}
	s.mux.HandleFunc("/.well-known/agent-card.json", s.serveCard)
	s.mux.HandleFunc("/rest/", s.serveREST)
	s.mux.HandleFunc("/rest", s.serveREST)
	s.mux.HandleFunc("/{$}", s.serveJSONRPC)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeRESTError(w, a2a.ErrMethodNotFound.Withf("no A2A route for %s %s", r.Method, r.URL.Path))
	})
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.cfg.Logger.Error("a2a: handler panicked", "path", r.URL.Path, "panic", fmt.Sprint(v))
			s.WriteError(w, r, a2a.ErrInternal)
		}
	}()
	s.mux.ServeHTTP(w, r)
}

// SetCard replaces the served card (after a rebuild or re-signing).
func (s *Server) SetCard(c *a2a.AgentCard) error {
	body, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("server: encode card: %w", err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	sc := &servedCard{card: c, body: body, etag: etagOf(body), modified: now}
	if s.cfg.LegacyCard != nil {
		lb, err := s.cfg.LegacyCard(body)
		if err != nil {
			return fmt.Errorf("server: card for %s readers: %w", legacyVersionName, err)
		}
		sc.legacy = &servedCard{card: c, body: lb, etag: etagOf(lb), modified: now}
	}
	s.card.Store(sc)
	return nil
}

func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// Card returns the served card.
func (s *Server) Card() *a2a.AgentCard { return s.card.Load().card }

// ServeCard writes the agent card with caching headers; it answers 304 to a
// matching If-None-Match.
func (s *Server) ServeCard(w http.ResponseWriter, r *http.Request) { s.serveCard(w, r) }

func (s *Server) serveCard(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.writeRESTError(w, a2a.ErrMethodNotFound.With("the agent card is read with GET").WithStatus(http.StatusMethodNotAllowed))
		return
	}
	c := s.card.Load()
	h := w.Header()
	vary := "Accept-Encoding"
	if c.legacy != nil {
		// A reader that names 0.x (or, with LegacyCardDefault, no
		// version) is a 0.3 reader: it gets the card with the 0.3 members
		// beside the 1.0 ones.
		vary += ", A2A-Version"
		if v := requestVersion(r); v != "" && legacyVersion(r) || v == "" && s.cfg.LegacyCardDefault {
			c = c.legacy
		}
	}
	h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(s.cfg.CardMaxAge.Seconds())))
	h.Set("ETag", c.etag)
	h.Set("Last-Modified", c.modified.Format(http.TimeFormat))
	h.Set("Vary", vary)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, c.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(c.body)
	}
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		t = strings.TrimPrefix(t, "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// checkVersion applies version negotiation: 1.0 and 1.0.x are served.
func (s *Server) checkVersion(r *http.Request) error {
	// The canonical form of A2A-Version: Get canonicalises a name that
	// is not, an allocation per request.
	v := strings.TrimSpace(r.Header.Get("A2a-Version"))
	if v == "" {
		v = strings.TrimSpace(r.URL.Query().Get("A2A-Version"))
	}
	if v == "" {
		if s.cfg.AllowMissingVersion {
			return nil
		}
		return a2a.ErrVersionNotSupported.With("missing A2A-Version header (absent means 0.3); this agent speaks A2A 1.0: send A2A-Version: 1.0").WithMeta("supportedVersions", a2a.ProtocolVersion)
	}
	if !versionSupported(v) {
		return a2a.ErrVersionNotSupported.Withf("A2A-Version %q is not supported; this agent speaks A2A 1.0", a2a.Truncate([]byte(v), 16)).WithMeta("supportedVersions", a2a.ProtocolVersion)
	}
	return nil
}

func versionSupported(v string) bool {
	// "1.0" or "1.0.<digits>", read in place: it is checked on every request.
	if v == "1.0" {
		return true
	}
	patch, ok := strings.CutPrefix(v, "1.0.")
	if !ok || patch == "" {
		return false
	}
	for i := 0; i < len(patch); i++ {
		if c := patch[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkContentType refuses bodies that are not JSON.
func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" || ct == "application/json" || ct == "application/a2a+json" {
		return nil // the usual forms, without parsing
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || mt == "application/a2a+json") {
		return nil
	}
	return a2a.ErrContentTypeNotSupported.Withf("request content type %q is not supported; send application/json or application/a2a+json", a2a.Truncate([]byte(ct), 64)).WithStatus(http.StatusUnsupportedMediaType)
}

// readBody reads a capped request body within the read timeout. A body
// that could not be read in full closes the connection after the answer:
// the rest of it must not be taken for the next request, nor waited for
// (net/http would read what is left of it before answering, without a
// deadline).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.ReadTimeout))
	body, err := httpbody.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), r.ContentLength, s.cfg.MaxBodyBytes)
	if err != nil {
		// The deadline stays: a read of the rest fails at once.
		w.Header().Set("Connection", "close")
	} else {
		_ = rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		var mbe *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &mbe):
			return nil, a2a.ErrInvalidRequest.Withf("request body exceeds %d bytes", s.cfg.MaxBodyBytes).WithStatus(http.StatusRequestEntityTooLarge)
		case errors.As(err, &ne) && ne.Timeout():
			return nil, a2a.ErrInvalidRequest.Withf("reading the request body took longer than %s", s.cfg.ReadTimeout).WithStatus(http.StatusRequestTimeout)
		}
		return nil, a2a.ErrInvalidRequest.With("could not read the request body")
	}
	return body, nil
}

// WriteError answers err in the form of the binding the request used: a
// google.rpc.Status body under /rest, a JSON-RPC error elsewhere.
func (s *Server) WriteError(w http.ResponseWriter, r *http.Request, err error) {
	if isRESTPath(r.URL.Path) || r.Method != http.MethodPost {
		// Only a POST can be JSON-RPC: anything else (the card, the
		// HTTP+JSON binding) gets a google.rpc.Status body with the
		// error's HTTP status.
		s.writeRESTError(w, err)
		return
	}
	s.writeRPCError(w, nil, err)
}

// WriteError answers err, outside any agent's server (a front-door
// refusal before the request reaches one, an agent whose card is not
// loaded or that is taken out), in the form of the binding the request's
// path names, with the v1.0.1 error table.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	frontDoor.WriteError(w, r, err)
}

var frontDoor = &Server{cfg: Config{ErrorTable: a2a.ErrorTableV101, WriteTimeout: 60 * time.Second, Logger: slog.Default()}}

func isRESTPath(p string) bool {
	return p == "/rest" || strings.HasPrefix(p, "/rest/") || strings.Contains(p, "/rest/") || strings.HasSuffix(p, "/rest")
}

// dispatch runs a unary method.
func (s *Server) dispatch(ctx context.Context, c *Call) (any, error) {
	owner, err := s.cfg.Owner(ctx)
	if err != nil {
		return nil, err
	}
	if s.cfg.Guard != nil {
		if err := s.cfg.Guard(ctx, c); err != nil {
			return nil, err
		}
	}
	m := s.cfg.Manager
	switch p := c.Params.(type) {
	case *a2a.SendMessageRequest:
		if err := s.checkInlinePush(ctx, p); err != nil {
			return nil, err
		}
		return m.SendMessageNoCopy(ctx, owner, p) // p was decoded for this call
	case *a2a.GetTaskRequest:
		return m.GetTask(ctx, owner, p)
	case *a2a.ListTasksRequest:
		return m.ListTasks(ctx, owner, p)
	case *a2a.CancelTaskRequest:
		return m.CancelTask(ctx, owner, p)
	case *a2a.TaskPushNotificationConfig:
		return s.createPushConfig(ctx, owner, p)
	case *a2a.GetTaskPushNotificationConfigRequest:
		if err := s.pushAllowed(); err != nil {
			return nil, err
		}
		if p.TaskID == "" || p.ID == "" {
			return nil, a2a.ErrInvalidParams.With("taskId and id are required")
		}
		return m.Store().GetPushConfig(ctx, owner, p.TaskID, p.ID)
	case *a2a.ListTaskPushNotificationConfigsRequest:
		if err := s.pushAllowed(); err != nil {
			return nil, err
		}
		if p.TaskID == "" {
			return nil, a2a.ErrInvalidParams.With("taskId is required")
		}
		list, err := m.Store().ListPushConfigs(ctx, owner, p.TaskID)
		if err != nil {
			return nil, err
		}
		return &a2a.ListTaskPushNotificationConfigsResponse{Configs: list}, nil
	case *a2a.DeleteTaskPushNotificationConfigRequest:
		if err := s.pushAllowed(); err != nil {
			return nil, err
		}
		if p.TaskID == "" || p.ID == "" {
			return nil, a2a.ErrInvalidParams.With("taskId and id are required")
		}
		if err := m.Store().DeletePushConfig(ctx, owner, p.TaskID, p.ID); err != nil {
			return nil, err
		}
		return &a2a.Empty{}, nil
	case *a2a.GetExtendedAgentCardRequest:
		card := s.Card()
		if card.Capabilities.ExtendedAgentCard == nil || !*card.Capabilities.ExtendedAgentCard {
			return nil, a2a.ErrUnsupportedOperation.With("this agent has no extended agent card")
		}
		if s.cfg.ExtendedCard == nil {
			return nil, a2a.ErrExtendedAgentCardNotConfigured
		}
		return s.cfg.ExtendedCard(ctx)
	}
	return nil, a2a.ErrMethodNotFound
}

// openStream checks a streaming call (owner, guard, capability, inline
// push config) and returns what runs it; send writes one event. The checks
// run in the handler's goroutine, so that a stream's producer starts with
// a small stack, which matters while it waits (see sse_release.go).
func (s *Server) openStream(ctx context.Context, c *Call) (streamFunc, error) {
	owner, err := s.cfg.Owner(ctx)
	if err != nil {
		return nil, err
	}
	if s.cfg.Guard != nil {
		if err := s.cfg.Guard(ctx, c); err != nil {
			return nil, err
		}
	}
	card := s.Card()
	if card.Capabilities.Streaming == nil || !*card.Capabilities.Streaming {
		return nil, a2a.ErrUnsupportedOperation.With("this agent does not support streaming")
	}
	switch p := c.Params.(type) {
	case *a2a.SendMessageRequest:
		if err := s.checkInlinePush(ctx, p); err != nil {
			return nil, err
		}
		return func(ctx context.Context, send func(*a2a.StreamResponse) error) error {
			return s.cfg.Manager.SendStreamingMessageNoCopy(ctx, owner, p, send) // p was decoded for this call
		}, nil
	case *a2a.SubscribeToTaskRequest:
		return func(ctx context.Context, send func(*a2a.StreamResponse) error) error {
			return s.cfg.Manager.SubscribeToTask(ctx, owner, p, send)
		}, nil
	}
	return nil, a2a.ErrMethodNotFound
}

func (s *Server) pushAllowed() error {
	if !s.cfg.PushEnabled {
		return a2a.ErrPushNotificationNotSupported.With("this agent does not send push notifications")
	}
	return nil
}

func (s *Server) checkInlinePush(ctx context.Context, p *a2a.SendMessageRequest) error {
	if p.Configuration == nil || p.Configuration.TaskPushNotificationConfig == nil {
		return nil
	}
	if err := s.pushAllowed(); err != nil {
		return err
	}
	return s.validatePushConfig(ctx, p.Configuration.TaskPushNotificationConfig)
}

func (s *Server) validatePushConfig(ctx context.Context, p *a2a.TaskPushNotificationConfig) error {
	if p.URL == "" {
		return a2a.ErrInvalidParams.With("url is required").WithViolation("url", "required")
	}
	if s.cfg.CheckPushURL != nil {
		if err := s.cfg.CheckPushURL(ctx, p.URL); err != nil {
			// The reason stays in the log: how names resolve, and where,
			// is nothing a caller may learn.
			s.cfg.Logger.Info("a2a: push notification url refused", "reason", err.Error())
			return a2a.ErrInvalidParams.With("push notification url refused by the outbound network policy").WithViolation("url", "refused by the outbound network policy")
		}
	}
	if a := p.Authentication; a != nil && (a.Scheme == "" || strings.ContainsAny(a.Scheme+a.Credentials, "\r\n")) {
		return a2a.ErrInvalidParams.With("authentication.scheme is required and credentials may not contain line breaks")
	}
	return nil
}

func (s *Server) createPushConfig(ctx context.Context, owner string, p *a2a.TaskPushNotificationConfig) (*a2a.TaskPushNotificationConfig, error) {
	if err := s.pushAllowed(); err != nil {
		return nil, err
	}
	if p.TaskID == "" {
		return nil, a2a.ErrInvalidParams.With("taskId is required").WithViolation("taskId", "required")
	}
	if _, err := s.cfg.Manager.Store().GetTask(ctx, owner, p.TaskID); err != nil {
		return nil, err
	}
	if err := s.validatePushConfig(ctx, p); err != nil {
		return nil, err
	}
	cfg := *p
	if cfg.ID == "" {
		cfg.ID = uuid.NewString()
	}
	if err := s.cfg.Manager.Store().PutPushConfig(ctx, owner, &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// SkillID is the skill a message asks for: the "skillId" member of the
// message's metadata or of the request's. It is the one reading of it that
// the guards and the executors share. Asking for two different skills, or
// naming one with anything but a string, is an error: no reader may pick
// one of two answers.
func SkillID(msg *a2a.Message, reqMeta a2a.Metadata) (string, error) {
	skill, inMsg, err := skillMember(msgMeta(msg))
	if err != nil {
		return "", err
	}
	other, inReq, err := skillMember(reqMeta)
	if err != nil {
		return "", err
	}
	if inMsg && inReq && skill != other {
		return "", a2a.ErrInvalidParams.Withf("the message asks for skill %q and the request for skill %q: name one", a2a.Truncate([]byte(skill), 64), a2a.Truncate([]byte(other), 64)).WithViolation("metadata.skillId", "conflicts with message.metadata.skillId")
	}
	if !inMsg {
		skill = other
	}
	return skill, nil
}

func skillMember(md a2a.Metadata) (string, bool, error) {
	v, ok := md["skillId"]
	if !ok {
		return "", false, nil
	}
	s, isString := v.(string)
	if !isString {
		return "", false, a2a.ErrInvalidParams.With("metadata skillId must be a string").WithViolation("metadata.skillId", "must be a string")
	}
	return s, true, nil
}

// skillOf is SkillID of a decoded request; checkView has refused a
// request for which it fails.
func skillOf(p *a2a.SendMessageRequest) string {
	if p == nil {
		return ""
	}
	s, _ := SkillID(p.Message, p.Metadata)
	return s
}

// checkView refuses a decoded request whose view (method, task, skill)
// cannot be read one way only; it runs before any guard.
func checkView(params any) error {
	if p, ok := params.(*a2a.SendMessageRequest); ok && p != nil {
		if _, err := SkillID(p.Message, p.Metadata); err != nil {
			return err
		}
	}
	return nil
}

func msgMeta(m *a2a.Message) a2a.Metadata {
	if m == nil {
		return nil
	}
	return m.Metadata
}

// taskIDOf returns the task a request names.
func taskIDOf(p any) string {
	switch p := p.(type) {
	case *a2a.SendMessageRequest:
		if p.Message != nil {
			return p.Message.TaskID
		}
	case *a2a.GetTaskRequest:
		return p.ID
	case *a2a.CancelTaskRequest:
		return p.ID
	case *a2a.SubscribeToTaskRequest:
		return p.ID
	case *a2a.TaskPushNotificationConfig:
		return p.TaskID
	case *a2a.GetTaskPushNotificationConfigRequest:
		return p.TaskID
	case *a2a.ListTaskPushNotificationConfigsRequest:
		return p.TaskID
	case *a2a.DeleteTaskPushNotificationConfigRequest:
		return p.TaskID
	}
	return ""
}

func newCall(r *http.Request, method, binding string, params any) *Call {
	c := &Call{Method: method, Binding: binding, Params: params, Request: r, TaskID: taskIDOf(params), bodyRead: -1}
	if p, ok := params.(*a2a.SendMessageRequest); ok {
		c.Skill = skillOf(p)
	}
	return c
}

// setWriteDeadline bounds writing a unary response; streams clear it.
func (s *Server) setWriteDeadline(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	if d <= 0 {
		_ = rc.SetWriteDeadline(time.Time{})
		return
	}
	_ = rc.SetWriteDeadline(time.Now().Add(d))
}
