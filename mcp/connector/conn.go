package connector

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/observe"
)

// Conn is a supervised connection to one MCP server. It is safe for
// concurrent use.
type Conn struct {
	cfg  Config
	log  *slog.Logger
	dial func(ctx context.Context, s *session) (transport.Interface, *process, error)

	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	sess     *session
	ready    chan struct{} // closed when sess is set
	tools    []Tool
	toolsSum [32]byte
	// headerTools names the tools whose schema has x-mcp-header
	// annotations: their calls go through the client (call.go).
	headerTools map[string]bool
	listeners   []func([]Tool)
	lastErr     error     // why the server is not connected (nil while it is)
	since       time.Time // when the connection was made or lost
	connected   bool      // a connection was made at least once

	resListeners []func(uri string)
	listChangedF []func()
	subsMu       sync.Mutex
	subs         map[string]func() // modern-era subscription streams by URI

	tokenSeq atomic.Uint64
	idSeq    atomic.Uint64 // JSON-RPC ids of direct calls (call.go)
	callsMu  sync.Mutex
	calls    map[string]*call // by progress token

	// asking lets one call that may be asked something run at a time on a
	// session whose questions cannot be told apart (asksUncorrelated).
	asking chan struct{}
}

type session struct {
	c       *client.Client
	rt      *rawTransport
	proc    *process
	era     string
	info    mcp.Implementation
	started time.Time
	dead    chan struct{}
	once    sync.Once
	cause   error // why it died, set once by kill
	// meta is the session's part of a direct call's _meta (sessionMeta);
	// nil: calls go through the client.
	meta []byte
	// reader sends a direct call and reads its response itself
	// (reader.go); nil: through the transport.
	reader *callReader
}

// errConnLost is the cause of a session killed without a more precise one.
var errConnLost = errors.New("connection lost")

// kill marks the session dead (idempotent; the first cause is kept).
func (s *session) kill() { s.killWith(errConnLost) }

func (s *session) killWith(cause error) {
	s.once.Do(func() {
		s.cause = cause
		close(s.dead)
	})
}

func (s *session) isDead() bool {
	select {
	case <-s.dead:
		return true
	default:
		return false
	}
}

// call is one tool call in flight.
type call struct {
	token    string
	progress ProgressFunc
	elicit   ElicitFunc
	log      LogFunc
	sample   SampleFunc
	mu       sync.Mutex
	done     bool
	last     float64
}

type callKey struct{}

// Dial starts the server (or connects to it), negotiates the era and reads
// the tool list. It fails if the first connection fails; later failures are
// retried in the background with backoff. Open is the form for a server
// that may not be up yet.
func Dial(ctx context.Context, cfg Config) (*Conn, error) {
	c, err := newChecked(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.start(ctx); err != nil {
		c.cancel()
		return nil, err
	}
	return c, nil
}

// Open is Dial for a server that may be down: it tries to connect once
// (bounded by ctx and ConnectTimeout) and, when that fails, returns the
// Conn down, reconnecting in the background with backoff and jitter until
// the server answers or the Conn is closed. Meanwhile Status reports why it
// is down, and calls fail with ErrUnavailable. Only a configuration error
// is returned.
func Open(ctx context.Context, cfg Config) (*Conn, error) {
	c, err := newChecked(cfg)
	if err != nil {
		return nil, err
	}
	if err := c.start(ctx); err != nil {
		if c.life.Err() != nil {
			return nil, err
		}
		c.log.Warn("MCP server not reachable; retrying in the background", "err", err)
		c.markDown(err)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.reconnect(c.cfg.MinBackoff)
		}()
		c.startPoll()
	}
	return c, nil
}

// newChecked validates cfg and returns a Conn that is not connected yet.
func newChecked(cfg Config) (*Conn, error) {
	n := 0
	for _, set := range []bool{cfg.Stdio != nil, cfg.HTTP != nil, cfg.SSE != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("upstream %q: exactly one of stdio, http and sse must be set", cfg.Name)
	}
	if v := cfg.ProtocolVersion; v != "" && v != Era20250618 && v != Era20251125 && v != Era20260728 {
		return nil, fmt.Errorf("upstream %q: protocol version %q is not one of %s, %s, %s", cfg.Name, v, Era20250618, Era20251125, Era20260728)
	}
	switch {
	case cfg.Stdio != nil:
		if cfg.Stdio.Command == "" {
			return nil, fmt.Errorf("upstream %q: stdio command is required", cfg.Name)
		}
	case cfg.HTTP != nil:
		if err := checkHTTP(cfg.HTTP); err != nil {
			return nil, fmt.Errorf("upstream %q: %w", cfg.Name, err)
		}
	default:
		if err := checkHTTP(cfg.SSE); err != nil {
			return nil, fmt.Errorf("upstream %q: %w", cfg.Name, err)
		}
	}
	c := newConn(cfg)
	switch {
	case cfg.Stdio != nil:
		c.dial = c.dialStdio
	case cfg.HTTP != nil:
		c.dial = c.dialStreamable
	default:
		c.dial = c.dialSSE
	}
	return c, nil
}

// InProcess connects to an mcp-go server in the same process (tests,
// benchmarks, and servers the bridge hosts itself).
func InProcess(ctx context.Context, s *server.MCPServer, cfg Config) (*Conn, error) {
	c := newConn(cfg)
	c.dial = func(ctx context.Context, _ *session) (transport.Interface, *process, error) {
		var el server.ElicitationHandler
		var sa server.SamplingHandler
		if !cfg.NoElicitation {
			el = elicitAdapter{c}
		}
		if !cfg.NoSampling {
			sa = samplingAdapter{c}
		}
		return newInProcess(s, sa, el), nil, nil
	}
	if err := c.start(ctx); err != nil {
		c.cancel()
		return nil, err
	}
	return c, nil
}

func newConn(cfg Config) *Conn {
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 250 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = cfg.MinBackoff
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 30 * time.Second
	}
	if cfg.ConnectWait == 0 {
		cfg.ConnectWait = 5 * time.Second
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "a2a-mcp-bridge"
	}
	if cfg.ClientVersion == "" {
		cfg.ClientVersion = "1.0"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	life, cancel := context.WithCancel(context.Background())
	return &Conn{
		cfg: cfg, log: log.With("upstream", cfg.Name),
		life: life, cancel: cancel, asking: make(chan struct{}, 1),
		ready: make(chan struct{}),
		since: time.Now(),
		calls: map[string]*call{},
		subs:  map[string]func(){},
	}
}

// start makes the first connection and reads the tool list.
func (c *Conn) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout)
	defer cancel()
	s, err := c.connect(ctx)
	if err != nil {
		return err
	}
	if _, _, err := c.refresh(ctx, s); err != nil {
		c.closeSession(s)
		return err
	}
	c.install(s)
	c.startPoll()
	return nil
}

func (c *Conn) startPoll() {
	if c.cfg.ToolsTTL > 0 {
		c.wg.Add(1)
		go c.poll()
	}
}

// connect opens one session: transport, Start (so that notification and
// request handlers are wired), Initialize.
func (c *Conn) connect(ctx context.Context) (*session, error) {
	s := &session{dead: make(chan struct{}), started: time.Now()}
	t, proc, err := c.dial(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: connect: %w", c.cfg.Name, err)
	}
	s.proc = proc
	s.rt = newRawTransport(t, c, s)
	var opts []client.ClientOption
	if !c.cfg.NoElicitation {
		opts = append(opts, client.WithElicitationHandler(elicitAdapter{c}))
	}
	if !c.cfg.NoSampling {
		opts = append(opts, client.WithSamplingHandler(samplingAdapter{c}))
	}
	if c.cfg.ProtocolVersion != "" {
		opts = append(opts, client.WithProtocolVersion(c.cfg.ProtocolVersion))
	}
	s.c = client.NewClient(s.rt.wrapped(), opts...)
	s.c.OnNotification(func(n mcp.JSONRPCNotification) { c.onNotification(s, n) })
	fail := func(err error) (*session, error) {
		s.kill()
		_ = s.c.Close()
		if proc != nil {
			proc.stop()
		}
		return nil, fmt.Errorf("upstream %q: connect: %w", c.cfg.Name, err)
	}
	if err := s.c.Start(c.life); err != nil {
		return fail(err)
	}
	res, err := s.c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: c.cfg.ProtocolVersion,
		ClientInfo:      mcp.Implementation{Name: c.cfg.ClientName, Version: c.cfg.ClientVersion},
	}})
	if err != nil {
		return fail(err)
	}
	s.era, s.info = res.ProtocolVersion, res.ServerInfo
	if s.rt.http != nil && !s.rt.sse {
		s.meta = c.sessionMeta(s.era)
	}
	if mcp.IsModernProtocol(s.era) {
		// 2026-07-28 delivers list changes only on a subscription stream.
		caps := res.Capabilities
		filter := mcp.SubscriptionFilter{
			ToolsListChanged:     caps.Tools != nil && caps.Tools.ListChanged,
			PromptsListChanged:   caps.Prompts != nil && caps.Prompts.ListChanged,
			ResourcesListChanged: caps.Resources != nil && caps.Resources.ListChanged,
		}
		if !filter.IsEmpty() {
			if _, err := s.c.ListenAsync(c.life, filter, func(err error) {
				c.log.Debug("list change subscription ended", "err", err)
			}); err != nil {
				c.log.Warn("could not subscribe to list changes", "err", err)
			}
		}
	}
	if !mcp.IsModernProtocol(s.era) && res.Capabilities.Logging != nil {
		// Handshake eras set the level per session: ask for everything;
		// messages no call asked for are dropped here.
		if err := s.c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
			c.log.Debug("could not set the server's log level", "err", err)
		}
	}
	if proc != nil {
		go func() {
			select {
			case <-proc.exited:
				s.killWith(errors.New(proc.exitReason()))
			case <-s.dead:
			}
		}()
	}
	c.log.Info("connected to MCP server", "protocolVersion", s.era, "server", s.info.Name, "serverVersion", s.info.Version)
	return s, nil
}

// install makes s the current session and supervises it.
func (c *Conn) install(s *session) {
	c.mu.Lock()
	c.sess = s
	c.lastErr = nil
	c.since = time.Now()
	c.connected = true
	close(c.ready)
	c.mu.Unlock()
	c.wg.Add(1)
	go c.supervise(s)
	c.stateChanged()
}

// markDown records that the server is not connected, and why.
func (c *Conn) markDown(err error) {
	c.mu.Lock()
	if c.lastErr == nil {
		c.since = time.Now()
	}
	c.lastErr = err
	c.mu.Unlock()
	c.stateChanged()
}

func (c *Conn) stateChanged() {
	if f := c.cfg.OnStateChange; f != nil {
		f()
	}
}

// supervise waits for s to die and reconnects with backoff.
func (c *Conn) supervise(s *session) {
	defer c.wg.Done()
	select {
	case <-c.life.Done():
		return
	case <-s.dead:
	}
	c.mu.Lock()
	if c.sess == s {
		c.sess = nil
		c.ready = make(chan struct{})
	}
	c.mu.Unlock()
	cause := s.cause
	if s.proc != nil {
		cause = errors.New(s.proc.exitReason())
	}
	c.log.Warn("MCP server went away; reconnecting", "reason", cause.Error())
	c.closeSession(s)
	c.markDown(cause)
	wait := c.cfg.MinBackoff
	if time.Since(s.started) > c.cfg.MaxBackoff {
		wait = 0 // a connection that lived long: reconnect at once
	}
	c.reconnect(wait)
}

// reconnect connects again, waiting wait (with jitter) before the first
// attempt and doubling the wait after each failure up to MaxBackoff.
func (c *Conn) reconnect(wait time.Duration) {
	for {
		if wait > 0 {
			t := time.NewTimer(jitter(wait))
			select {
			case <-c.life.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		ctx, cancel := context.WithTimeout(c.life, c.cfg.ConnectTimeout)
		ns, err := c.connect(ctx)
		if err == nil {
			_, _, err = c.refresh(ctx, ns)
			if err != nil {
				c.closeSession(ns)
			}
		}
		cancel()
		if err == nil {
			c.mu.Lock()
			restart := c.connected
			c.mu.Unlock()
			if restart && c.cfg.OnRestart != nil {
				c.cfg.OnRestart(c.cfg.Name)
			}
			c.install(ns)
			c.listChanged() // a restarted server may serve other prompts and resources
			return
		}
		if c.life.Err() != nil {
			return
		}
		c.markDown(err)
		wait = min(max(2*wait, c.cfg.MinBackoff), c.cfg.MaxBackoff)
		c.log.Warn("reconnect failed", "err", err, "retryIn", wait.String())
	}
}

// jitter spreads a backoff wait over [d/2, d], so that the bridges and
// connections that lost one server do not all come back at the same
// instant.
func jitter(d time.Duration) time.Duration {
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

func (c *Conn) closeSession(s *session) {
	s.kill()
	_ = s.c.Close()
	if s.proc != nil {
		s.proc.stop()
	}
}

// drop ends the current session s (the server lost it, or it failed a
// health check); the supervisor reconnects.
func (c *Conn) drop(s *session, cause error) {
	if !s.isDead() {
		c.log.Debug("dropping the connection", "reason", cause.Error())
	}
	s.killWith(cause)
}

// current returns the live session. While the connection is being
// re-established it waits, for at most ConnectWait after the connection was
// lost (and never past ctx); then it fails with ErrUnavailable, so that a
// server that stays down answers calls at once. A server never reached
// fails at once.
func (c *Conn) current(ctx context.Context) (*session, error) {
	for {
		c.mu.Lock()
		s, ready, last, since := c.sess, c.ready, c.lastErr, c.since
		c.mu.Unlock()
		if c.life.Err() != nil {
			return nil, ErrClosed
		}
		if s != nil && !s.isDead() {
			return s, nil
		}
		wait := c.cfg.ConnectWait - time.Since(since)
		c.mu.Lock()
		never := !c.connected
		c.mu.Unlock()
		switch {
		case s != nil || last == nil && !never:
			wait = c.cfg.ConnectWait // lost just now: the supervisor has not noticed yet
		case never && last != nil:
			wait = 0 // never reached: nothing to wait for
		}
		if wait <= 0 {
			return nil, c.unavailable(last)
		}
		t := time.NewTimer(wait)
		select {
		case <-ready:
			t.Stop()
		case <-t.C:
			c.mu.Lock()
			last = c.lastErr
			c.mu.Unlock()
			return nil, c.unavailable(last)
		case <-ctx.Done():
			t.Stop()
			if last != nil {
				return nil, fmt.Errorf("upstream %q: not connected (%v): %w", c.cfg.Name, last, ctx.Err())
			}
			return nil, fmt.Errorf("upstream %q: not connected: %w", c.cfg.Name, ctx.Err())
		case <-c.life.Done():
			t.Stop()
			return nil, ErrClosed
		}
	}
}

func (c *Conn) unavailable(last error) error {
	if last == nil {
		return fmt.Errorf("upstream %q: %w", c.cfg.Name, ErrUnavailable)
	}
	return fmt.Errorf("upstream %q: %w: %v", c.cfg.Name, ErrUnavailable, last)
}

// Status is the connection's state, for health checks and status pages.
type Status struct {
	// Connected reports whether a connection is up now.
	Connected bool
	// Since is when the connection was made (connected) or lost, or when
	// the Conn was created if it never connected.
	Since time.Time
	// Err is why the server is not connected (nil while connected). Its
	// text may name the server's URL: log it, do not show it to callers.
	Err error
	// Tools is the number of tools in the last list read (kept while
	// disconnected).
	Tools int
	// ProtocolVersion is the era negotiated on the current connection.
	ProtocolVersion string
}

// Status reports the connection's state.
func (c *Conn) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Since: c.since, Err: c.lastErr, Tools: len(c.tools)}
	switch {
	case c.sess != nil && !c.sess.isDead():
		st.Connected, st.ProtocolVersion, st.Err = true, c.sess.era, nil
	case c.sess != nil:
		// Lost just now; the supervisor has not taken it down yet.
		st.Err = c.sess.cause
	case st.Err == nil:
		st.Err = errors.New("not connected yet")
	}
	return st
}

// Available returns nil while a call would be served: the server is
// connected, or its connection was lost less than ConnectWait ago (the call
// would wait for the reconnect). Otherwise (never reached, or down for
// longer) it returns the error such a call fails with (wrapping
// ErrUnavailable or ErrClosed), at once.
func (c *Conn) Available() error {
	if c.life.Err() != nil {
		return ErrClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, last, since := c.sess, c.lastErr, c.since
	switch {
	case s != nil && !s.isDead():
		return nil
	case !c.connected:
		return c.unavailable(last) // never reached
	case last == nil || time.Since(since) < c.cfg.ConnectWait:
		return nil // lost just now: a call waits for the reconnect
	}
	return c.unavailable(last)
}

// Check is the active health check, run on the current connection: a ping
// on the handshake eras, a re-read of the tool list on 2026-07-28 (which
// has no ping; a changed list reaches the OnToolsChanged listeners). A
// transport failure or a timeout drops the connection, which is then
// re-established with backoff; an answer that is a JSON-RPC error still
// proves the server alive. While not connected it returns ErrUnavailable
// (wrapped) at once.
func (c *Conn) Check(ctx context.Context) error {
	c.mu.Lock()
	s, last := c.sess, c.lastErr
	c.mu.Unlock()
	if c.life.Err() != nil {
		return ErrClosed
	}
	if s == nil || s.isDead() {
		return c.unavailable(last)
	}
	var err error
	if mcp.IsModernProtocol(s.era) {
		_, _, err = c.refresh(ctx, s)
	} else {
		err = s.c.Ping(ctx)
	}
	if err == nil {
		return nil
	}
	if c.life.Err() != nil {
		return ErrClosed
	}
	var te *transport.Error
	if errors.As(err, &te) || s.isDead() || ctx.Err() != nil {
		cause := fmt.Errorf("health check failed: %w", err)
		if ctx.Err() != nil {
			cause = fmt.Errorf("health check timed out: %w", context.DeadlineExceeded)
		}
		c.drop(s, cause)
		return fmt.Errorf("upstream %q: check: %w", c.cfg.Name, err)
	}
	return nil
}

// Name is the configured name of the server.
func (c *Conn) Name() string { return c.cfg.Name }

// ProtocolVersion is the era negotiated on the current connection ("" while
// reconnecting).
func (c *Conn) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil {
		return ""
	}
	return c.sess.era
}

// ServerInfo is the name and version the server gave ("" while reconnecting).
func (c *Conn) ServerInfo() (name, version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil {
		return "", ""
	}
	return c.sess.info.Name, c.sess.info.Version
}

// Close stops the server (stdio: stdin closed, then SIGTERM, then kill, each
// after StopGrace) or closes the connection, and ends every call.
func (c *Conn) Close() error {
	c.cancel()
	c.mu.Lock()
	s := c.sess
	c.sess = nil
	c.mu.Unlock()
	if s != nil {
		c.closeSession(s)
	}
	c.wg.Wait()
	return nil
}

// Tools returns the tool list, raw, in the server's order.
func (c *Conn) Tools(ctx context.Context) ([]Tool, error) {
	c.mu.Lock()
	tools := c.tools
	c.mu.Unlock()
	if tools != nil {
		return tools, nil
	}
	tools, _, err := c.Refresh(ctx)
	return tools, err
}

// Refresh re-reads the tool list and reports whether it changed; listeners
// are called when it did.
func (c *Conn) Refresh(ctx context.Context) ([]Tool, bool, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, false, err
	}
	return c.refresh(ctx, s)
}

// OnToolsChanged registers f, called with the new list whenever the tool
// list changes (notification, subscription, poll, or reconnect).
func (c *Conn) OnToolsChanged(f func([]Tool)) {
	c.mu.Lock()
	c.listeners = append(c.listeners, f)
	c.mu.Unlock()
}

func (c *Conn) refresh(ctx context.Context, s *session) ([]Tool, bool, error) {
	raw, err := listToolsRaw(ctx, s.c)
	if err != nil {
		return nil, false, fmt.Errorf("upstream %q: list tools: %w", c.cfg.Name, err)
	}
	tools, err := decodeTools(raw)
	if err != nil {
		return nil, false, fmt.Errorf("upstream %q: list tools: %w", c.cfg.Name, err)
	}
	h := sha256.New()
	for _, r := range raw {
		h.Write(r)
		h.Write([]byte{0})
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	c.mu.Lock()
	changed := c.tools == nil || sum != c.toolsSum
	first := c.tools == nil
	c.tools, c.toolsSum = tools, sum
	c.headerTools = nil
	for _, t := range tools {
		if bytes.Contains(t.Raw, []byte("x-mcp-header")) {
			if c.headerTools == nil {
				c.headerTools = map[string]bool{}
			}
			c.headerTools[t.Name] = true
		}
	}
	ls := append([]func([]Tool){}, c.listeners...)
	c.mu.Unlock()
	if changed && (!first || len(ls) > 0) {
		// The first list reaches listeners too when they were registered
		// before it (a server that was down when the Conn was opened).
		c.log.Info("tool list changed", "tools", len(tools), "first", first)
		for _, f := range ls {
			f(tools)
		}
	}
	return tools, changed, nil
}

func (c *Conn) poll() {
	defer c.wg.Done()
	t := time.NewTicker(c.cfg.ToolsTTL)
	defer t.Stop()
	for {
		select {
		case <-c.life.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(c.life, c.cfg.ToolsTTL)
		if _, _, err := c.Refresh(ctx); err != nil {
			c.log.Debug("tool list poll failed", "err", err)
		}
		cancel()
	}
}

// captureKey carries a *[]byte that the raw transport fills with the last
// result of the request.
type captureKey struct{}

// rpcErrKey carries a **ServerError that the raw transport fills when the
// server answers the request with a JSON-RPC error.
type rpcErrKey struct{}

// listToolsRaw sends tools/list through the client (so that the era's
// request metadata is applied) and keeps each page's result raw, following
// cursors.
func listToolsRaw(ctx context.Context, cl *client.Client) ([]json.RawMessage, error) {
	var all []json.RawMessage
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page > 1000 {
			return nil, errors.New("more than 1000 pages of tools")
		}
		var raw []byte
		cctx := context.WithValue(ctx, captureKey{}, &raw)
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = mcp.Cursor(cursor)
		if _, err := cl.ListToolsByPage(cctx, req); err != nil {
			return nil, err
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("decode tools/list result: %w", err)
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list cursor %q repeated", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

func decodeTools(raw []json.RawMessage) ([]Tool, error) {
	tools := make([]Tool, 0, len(raw))
	names := map[string]bool{}
	for _, r := range raw {
		var t struct {
			Name         string          `json:"name"`
			Title        string          `json:"title"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
			Annotations  Annotations     `json:"annotations"`
		}
		if err := json.Unmarshal(r, &t); err != nil {
			return nil, fmt.Errorf("decode tool: %w", err)
		}
		if t.Name == "" || names[t.Name] {
			// A nameless or duplicate tool cannot be addressed: skip it.
			continue
		}
		names[t.Name] = true
		title := t.Title
		if title == "" {
			title = t.Annotations.Title
		}
		in := bytes.TrimSpace(t.InputSchema)
		if len(in) == 0 || string(in) == "null" {
			in = json.RawMessage(`{"type":"object"}`)
		}
		out := bytes.TrimSpace(t.OutputSchema)
		if string(out) == "null" {
			out = nil
		}
		tools = append(tools, Tool{
			Name: t.Name, Title: title, Description: t.Description,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Annotations: t.Annotations, Raw: r,
		})
	}
	return tools, nil
}

// CallTool calls a tool and returns its result exactly as the server sent it
// (a CallToolResult object: content, structuredContent, isError). A JSON-RPC
// error from the server is returned as an error. progress and elicit may be
// nil. Cancelling ctx cancels the call upstream the way the transport and
// era need: stdio sends notifications/cancelled, 2026-07-28 HTTP closes the
// request's stream, handshake-era HTTP sends notifications/cancelled.
func (c *Conn) CallTool(ctx context.Context, name string, args json.RawMessage, progress ProgressFunc, elicit ElicitFunc) (json.RawMessage, error) {
	return c.CallToolWith(ctx, name, args, CallHandlers{Progress: progress, Elicit: elicit})
}

// CallToolWith is CallTool with every relay: besides progress and
// elicitation, the server's log messages (notifications/message) and
// sampling requests made during the call reach h.Log and h.Sample. Log
// messages and sampling requests carry no call id on most transports: they
// go to the call in the request's context, else to the only call in flight
// that accepts them, else they are dropped (logs) or refused (sampling), so
// that one caller never sees another's.
func (c *Conn) CallToolWith(ctx context.Context, name string, args json.RawMessage, h CallHandlers) (json.RawMessage, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if (h.Elicit != nil && !c.cfg.NoElicitation) || (h.Sample != nil && !c.cfg.NoSampling) {
		if c.asksUncorrelated(s) {
			// The server's questions carry nothing that names the call
			// they belong to: two calls that may ask take turns, so that
			// each question reaches the caller whose call asked (never
			// another caller, never declined for want of knowing).
			select {
			case c.asking <- struct{}{}:
				defer func() { <-c.asking }()
			case <-ctx.Done():
				return nil, fmt.Errorf("upstream %q: call %s: waiting for the call that is asking the user: %w", c.cfg.Name, name, ctx.Err())
			}
		}
	}
	cl := &call{token: "bridge-" + strconv.FormatUint(c.tokenSeq.Add(1), 10), progress: h.Progress, elicit: h.Elicit, log: h.Log, sample: h.Sample}
	c.callsMu.Lock()
	c.calls[cl.token] = cl
	c.callsMu.Unlock()
	defer func() {
		cl.mu.Lock()
		cl.done = true
		cl.mu.Unlock()
		c.callsMu.Lock()
		delete(c.calls, cl.token)
		c.callsMu.Unlock()
	}()
	// The caller's W3C trace context, so that the server's spans join the
	// trace (the MCP _meta convention, the same keys as the HTTP headers).
	tc := map[string]any{}
	observe.InjectMeta(ctx, tc)
	lvl := ""
	if h.Log != nil {
		lvl = h.LogLevel
		if lvl == "" {
			lvl = string(mcp.LoggingLevelDebug)
		}
	}
	var raw []byte
	var rpcErr *ServerError
	if c.direct(s, name) {
		wire, err := c.callArgs(args)
		if err != nil {
			return nil, err
		}
		meta, err := callMeta(s, cl.token, tc, lvl)
		if err != nil {
			return nil, fmt.Errorf("upstream %q: call %s: encode _meta: %w", c.cfg.Name, name, err)
		}
		raw, rpcErr, err = c.callDirect(context.WithValue(ctx, callKey{}, cl), s, name, wire, meta)
		if err != nil {
			return nil, c.callError(ctx, s, name, rpcErr, err)
		}
		return raw, nil
	}
	argv, err := c.decodeArgs(args)
	if err != nil {
		return nil, err
	}
	cctx := context.WithValue(context.WithValue(ctx, captureKey{}, &raw), callKey{}, cl)
	cctx = context.WithValue(cctx, rpcErrKey{}, &rpcErr)
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = argv
	req.Params.Meta = &mcp.Meta{ProgressToken: cl.token}
	if len(tc) > 0 {
		req.Params.Meta.AdditionalFields = tc
	}
	if lvl != "" {
		req.Params.Meta.SetLogLevel(mcp.LoggingLevel(lvl))
	}
	if _, err = s.c.CallTool(cctx, req); err != nil {
		return nil, c.callError(ctx, s, name, rpcErr, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("upstream %q: call %s: no result captured", c.cfg.Name, name)
	}
	return raw, nil
}

// callError maps a failed call's error: the caller's context, a dead
// session (ErrDied), the server's JSON-RPC error (ServerError), else the
// error itself.
func (c *Conn) callError(ctx context.Context, s *session, name string, rpcErr *ServerError, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("upstream %q: call %s: %w", c.cfg.Name, name, ctx.Err())
	}
	if s.isDead() || errors.Is(err, transport.ErrTransportClosed) {
		s.kill()
		return fmt.Errorf("upstream %q: call %s: %w", c.cfg.Name, name, ErrDied)
	}
	if rpcErr != nil {
		return fmt.Errorf("upstream %q: call %s: %w", c.cfg.Name, name, rpcErr)
	}
	return fmt.Errorf("upstream %q: call %s: %w", c.cfg.Name, name, err)
}

func (c *Conn) onNotification(s *session, n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		f := n.Params.AdditionalFields
		tok := fmt.Sprint(f["progressToken"])
		c.callsMu.Lock()
		cl := c.calls[tok]
		c.callsMu.Unlock()
		if cl == nil || cl.progress == nil {
			return // unknown or finished call: late notifications are dropped
		}
		p, _ := toFloat(f["progress"])
		total, _ := toFloat(f["total"])
		msg, _ := f["message"].(string)
		cl.mu.Lock()
		defer cl.mu.Unlock()
		if cl.done || p < cl.last {
			return
		}
		cl.last = p
		cl.progress(p, total, msg)
	case string(mcp.MethodNotificationMessage):
		cl := c.onlyCall(func(x *call) bool { return x.log != nil })
		if cl == nil {
			return
		}
		// Params arrive decoded (transports) or typed (in-process):
		// normalize through JSON.
		var m LogMessage
		var p struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		}
		if b, err := json.Marshal(n.Params.AdditionalFields); err == nil && json.Unmarshal(b, &p) == nil {
			m = LogMessage{Level: p.Level, Logger: p.Logger, Data: p.Data}
		}
		cl.mu.Lock()
		defer cl.mu.Unlock()
		if !cl.done {
			cl.log(m)
		}
	case mcp.MethodNotificationPromptsListChanged, mcp.MethodNotificationResourcesListChanged:
		go c.listChanged()
	case mcp.MethodNotificationResourceUpdated:
		uri, _ := n.Params.AdditionalFields["uri"].(string)
		c.mu.Lock()
		ls := append([]func(string){}, c.resListeners...)
		c.mu.Unlock()
		for _, f := range ls {
			f(uri)
		}
	case string(mcp.MethodNotificationToolsListChanged):
		go func() {
			ctx, cancel := context.WithTimeout(c.life, 30*time.Second)
			defer cancel()
			if _, _, err := c.refresh(ctx, s); err != nil {
				c.log.Warn("re-reading the tool list after a change failed", "err", err)
			}
		}()
	}
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// elicitAdapter routes an upstream elicitation to the call it belongs to:
// the call in the request's context (2026-07-28 round trips, HTTP streams,
// in-process), else the only call in flight that accepts elicitations
// (CallToolWith lets only one run where questions cannot be told apart).
// With none it refuses with an error: showing one caller's question to
// another would leak it, and declining would answer for a user who was
// never asked.
type elicitAdapter struct{ c *Conn }

func (a elicitAdapter) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	cl, _ := ctx.Value(callKey{}).(*call)
	if cl == nil || cl.elicit == nil {
		cl = a.c.onlyCall(func(x *call) bool { return x.elicit != nil })
		if cl == nil {
			a.c.log.Warn("refusing an elicitation that matches no call that can ask its user")
			return nil, errors.New("connector: no caller of this request can be asked")
		}
	}
	e := Elicitation{Mode: req.Params.Mode, Message: req.Params.Message, URL: req.Params.URL}
	if e.Mode == "" {
		e.Mode = "form"
	}
	if req.Params.RequestedSchema != nil {
		b, err := json.Marshal(req.Params.RequestedSchema)
		if err == nil {
			e.RequestedSchema = b
		}
	}
	res, err := cl.elicit(ctx, e)
	if err != nil {
		return nil, err
	}
	out := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseAction(res.Action)}}
	if res.Action == ActionAccept {
		out.Content = res.Content
	}
	return out, nil
}

// asksUncorrelated reports whether the server's elicitation and sampling
// requests on s arrive without the call they belong to: over stdio and
// legacy SSE in the handshake eras they are sent on the shared stream
// (streamable HTTP sends them on the call's own response stream, the
// 2026-07-28 era inside the call's result, in-process with the call).
func (c *Conn) asksUncorrelated(s *session) bool {
	return (c.cfg.Stdio != nil || c.cfg.SSE != nil) && !mcp.IsModernProtocol(s.era)
}

// onlyCall returns the only call in flight that ok accepts, or nil.
func (c *Conn) onlyCall(ok func(*call) bool) *call {
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	var only *call
	for _, x := range c.calls {
		if ok(x) {
			if only != nil {
				return nil
			}
			only = x
		}
	}
	return only
}

// samplingAdapter routes an upstream's sampling request to the call it
// belongs to, as elicitAdapter does; without one it refuses.
type samplingAdapter struct{ c *Conn }

func (a samplingAdapter) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	cl, _ := ctx.Value(callKey{}).(*call)
	if cl == nil || cl.sample == nil {
		cl = a.c.onlyCall(func(x *call) bool { return x.sample != nil })
	}
	if cl == nil {
		a.c.log.Warn("refusing a sampling request that matches no single call")
		return nil, errors.New("connector: sampling is not available for this request")
	}
	return cl.sample(ctx, req.CreateMessageParams)
}
