// Package relay owns the MCP face's own server requests to streamable HTTP
// hosts: sampling/createMessage (and elicitation/create for session-less
// hosts) written on the POST response stream of the tools/call that caused
// them (Stream), the bridge-minted ids bound to the caller's principal and
// session, and the routing of the host's POSTed answer back to the waiting
// call (Relay.Deliver).
//
// It must not import mcp/endpoint, the guards or the config: the face hands
// it the session check it needs (Sessions) and wires it into mcp-go.
package relay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/mcp/endpoint/view"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultTimeout bounds how long a sampling/createMessage relayed to
// an HTTP host waits for the host's answer when Config.SamplingTimeout is
// zero. A host asks its user before sampling, so this is minutes, not
// seconds; the call's own context (the host closing its stream) ends the
// wait sooner.
const DefaultTimeout = 2 * time.Minute

// Limits on sampling requests waiting for an HTTP host's answer.
const (
	maxPendingSamples           = 4096
	maxPendingSamplesPerSession = 16
)

// sampleIDPrefix starts the JSON-RPC id of every sampling request the face
// sends over HTTP. mcp-go numbers its own server requests, so a string id
// with this prefix is always ours.
const sampleIDPrefix = "bridge-sampling-"

// elicitIDPrefix starts the JSON-RPC id of every elicitation/create the face
// sends itself: to session-less (stateless) HTTP hosts, where mcp-go's own
// elicitation has no session to route the answer by.
const elicitIDPrefix = "bridge-elicitation-"

var (
	errSampleStreamEnded = errors.New("endpoint: the call's response stream has ended")
	errSampleStreamJSON  = errors.New("endpoint: the call's response was already sent as JSON")
	errSampleTooMany     = errors.New("too many requests waiting for the host")
	errSampleModern      = errors.New("endpoint: sampling/createMessage: a 2026-07-28 caller takes no server requests")
	errElicitModern      = errors.New("endpoint: elicitation/create: a 2026-07-28 caller takes no server requests")
)

// Relay sends sampling/createMessage to streamable HTTP hosts on the
// POST response stream of the tools/call that caused it, and routes the
// host's answer (a JSON-RPC response the host POSTs) back to the waiting
// call. mcp-go v1.2.1 writes elicitation/create on that stream
// (requestScopedSSE) but sampling only on the standalone GET stream, which
// the face does not serve; so the face sends sampling itself, through the
// in-process sampling hook that server.MCPServer.RequestSampling consults
// first (server.WithInProcessSamplingHandler).
//
// A request is bound to the principal and the Mcp-Session-Id of the call
// that caused it and its id is 128 random bits, seen only on that call's
// stream. An answer is taken only from the same principal and session;
// anyone else gets 404, as for an id that does not exist, and the request
// keeps waiting for its own host.
type Relay struct {
	timeout time.Duration
	log     *slog.Logger
	sess    Sessions

	mu         sync.Mutex
	pending    map[string]*pendingSample
	perSession map[string]int
}

type pendingSample struct {
	owner, session string
	reply          chan sampleReply
}

type sampleReply struct {
	result json.RawMessage
	err    error
}

// Sessions is what the relay asks of the face's session store: whether
// session is still owner's (not expired, not deleted).
type Sessions interface {
	Live(owner, session string) bool
}

// New returns a relay whose requests wait at most timeout (DefaultTimeout
// when zero) for the host's answer. sess may be nil (no sessions: every
// answer is checked against its request's owner and session only).
func New(timeout time.Duration, log *slog.Logger, sess Sessions) *Relay {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Relay{timeout: timeout, log: log, sess: sess, pending: map[string]*pendingSample{}, perSession: map[string]int{}}
}

// add registers a request (sampling/createMessage or elicitation/create,
// its id starting with prefix) of owner's session and returns its id.
func (r *Relay) add(owner, session, prefix string) (string, *pendingSample, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("endpoint: server request id: %w", err)
	}
	id := prefix + hex.EncodeToString(b[:])
	key := owner + "\x00" + session
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) >= maxPendingSamples || r.perSession[key] >= maxPendingSamplesPerSession {
		return "", nil, errSampleTooMany
	}
	p := &pendingSample{owner: owner, session: session, reply: make(chan sampleReply, 1)}
	r.pending[id] = p
	r.perSession[key]++
	return id, p, nil
}

// remove forgets a sampling request (answered, timed out or abandoned).
func (r *Relay) remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pending[id]
	if !ok {
		return
	}
	delete(r.pending, id)
	key := p.owner + "\x00" + p.session
	if r.perSession[key] <= 1 {
		delete(r.perSession, key)
	} else {
		r.perSession[key]--
	}
}

// ReplyID reports whether the message m is a host's answer to one of
// the face's own server requests (sampling, stateless elicitation), and its
// id.
func ReplyID(m *view.Message) (string, bool) {
	if !m.Response {
		return "", false
	}
	var id string
	if json.Unmarshal(m.ID, &id) != nil || !(strings.HasPrefix(id, sampleIDPrefix) || strings.HasPrefix(id, elicitIDPrefix)) {
		return "", false
	}
	return id, true
}

// Deliver hands a host's answer to the sampling request it names, if the
// answer comes from the principal (owner) and session the request was sent
// to. It reports whether the answer was taken.
func (r *Relay) Deliver(owner, session, id string, rep view.Reply) bool {
	if r.sess != nil && session != "" {
		// The session must still be the caller's (not expired or deleted).
		if !r.sess.Live(owner, session) {
			return false
		}
	}
	r.mu.Lock()
	p, ok := r.pending[id]
	if ok && (p.owner != owner || p.session != session) {
		r.mu.Unlock()
		r.log.Warn("endpoint: refused an answer to a server request from another principal or session")
		return false
	}
	r.mu.Unlock()
	if !ok {
		return false
	}
	var out sampleReply
	if rep.Error != nil {
		out.err = fmt.Errorf("endpoint: the host answered error %d: %s", rep.Error.Code, SanitizeLog(rep.Error.Message))
	} else {
		out.result = rep.Result
	}
	select {
	case p.reply <- out:
		return true
	default:
		return false // already answered: the id is single-use
	}
}

// Sampler is the sampling hook of one POST: it writes the request onto
// that POST's response stream and waits for the host's answer.
type Sampler struct {
	Relay  *Relay
	Stream *Stream
	// Principal is the caller's: a request is bound to its Key, made when a
	// request is sent (a tools/call that sends none makes none).
	Principal Owner
	Session   string
}

// Owner is who a relayed request belongs to: a caller's principal
// (request.Principal).
type Owner interface {
	Key() string
}

var _ server.SamplingHandler = (*Sampler)(nil)

// CreateMessage implements server.SamplingHandler.
func (s *Sampler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if server.IsModernRequest(ctx) {
		return nil, errSampleModern
	}
	raw, err := s.ask(ctx, mcp.MethodSamplingCreateMessage, sampleIDPrefix, req.CreateMessageParams)
	if err != nil {
		return nil, fmt.Errorf("endpoint: sampling/createMessage: %w", err)
	}
	var res mcp.CreateMessageResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("endpoint: sampling/createMessage: decode the host's result: %w", err)
	}
	content, err := mcp.ParseSamplingContent(res.Content)
	if err != nil {
		return nil, fmt.Errorf("endpoint: sampling/createMessage: decode the host's content: %w", err)
	}
	res.Content = content
	return &res, nil
}

// Elicit sends elicitation/create on the POST's stream and waits for the
// host's answer, as CreateMessage does for sampling.
func (s *Sampler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	if server.IsModernRequest(ctx) {
		return nil, errElicitModern
	}
	if err := req.Params.Validate(); err != nil {
		return nil, fmt.Errorf("endpoint: elicitation/create: %w", err)
	}
	raw, err := s.ask(ctx, mcp.MethodElicitationCreate, elicitIDPrefix, req.Params)
	if err != nil {
		return nil, fmt.Errorf("endpoint: elicitation/create: %w", err)
	}
	var res mcp.ElicitationResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("endpoint: elicitation/create: decode the host's result: %w", err)
	}
	return &res, nil
}

// ask writes one server request onto the POST's response stream, its id
// bridge-minted (prefix and 128 random bits) and bound to the caller's
// principal and session, and waits for the host's answer, the call's end or
// the relay's timeout (then cancelling it, as the spec asks).
func (s *Sampler) ask(ctx context.Context, method mcp.MCPMethod, prefix string, params any) (json.RawMessage, error) {
	id, p, err := s.Relay.add(s.Principal.Key(), s.Session, prefix)
	if err != nil {
		return nil, err
	}
	defer s.Relay.remove(id)
	msg, err := json.Marshal(mcp.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(id),
		Request: mcp.Request{Method: string(method)},
		Params:  params,
	})
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	if err := s.Stream.Send(msg); err != nil {
		return nil, err
	}
	t := time.NewTimer(s.Relay.timeout)
	defer t.Stop()
	select {
	case rep := <-p.reply:
		if rep.err != nil {
			return nil, rep.err
		}
		return rep.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		// The spec asks a sender that gives up on a request to cancel it.
		if b, err := json.Marshal(mcp.JSONRPCNotification{
			JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{
				Method: string(mcp.MethodNotificationCancelled),
				Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": "timed out"}},
			},
		}); err == nil {
			_ = s.Stream.Send(b)
		}
		return nil, fmt.Errorf("the host did not answer within %s", s.Relay.timeout)
	}
}

// Stream is the response writer mcp-go gets for a tools/call POST. It
// lets the face write its own server requests (sampling/createMessage) onto
// the response as SSE events, interleaved whole with mcp-go's events. mcp-go
// tracks on its own whether it upgraded the response to SSE; when the face
// upgraded it first, mcp-go's later status line is dropped and a final JSON
// body is sent as the stream's last event.
type Stream struct {
	w  http.ResponseWriter
	fl http.Flusher
	// h is mcp-go's header map: mcp-go writes it from its forwarder
	// goroutine without our lock, so it is not the real one (copied to it
	// when mcp-go sends the status line).
	h http.Header

	mu       sync.Mutex
	wrote    bool // the status line is sent
	ours     bool // by the face, as an event stream
	sse      bool // the body is an event stream
	wrapJSON bool // mcp-go is writing a JSON body after the face's upgrade
	buf      bytes.Buffer
	closed   bool

	// sampler is the POST's sampling hook (allocated with the stream).
	Sampler Sampler
}

func NewStream(w http.ResponseWriter, fl http.Flusher) *Stream {
	return &Stream{w: w, fl: fl, h: http.Header{}}
}

var _ server.HTTPResponseWriter = (*Stream)(nil)

// Header implements http.ResponseWriter.
func (s *Stream) Header() http.Header { return s.h }

// WriteHeader implements http.ResponseWriter.
func (s *Stream) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeHeaderLocked(code)
}

func (s *Stream) writeHeaderLocked(code int) {
	ct := s.h.Get("Content-Type")
	if s.wrote {
		if s.ours && !strings.HasPrefix(ct, "text/event-stream") {
			s.wrapJSON = true
		}
		return
	}
	s.wrote = true
	s.sse = strings.HasPrefix(ct, "text/event-stream")
	dst := s.w.Header()
	for k, v := range s.h {
		dst[k] = v
	}
	s.w.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (s *Stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.wrote {
		s.writeHeaderLocked(http.StatusOK)
	}
	if s.wrapJSON {
		return s.buf.Write(p)
	}
	return s.w.Write(p)
}

// Flush implements http.Flusher (mcp-go streams only to flushers).
func (s *Stream) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.wrapJSON {
		s.fl.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (s *Stream) Unwrap() http.ResponseWriter { return s.w }

// CanStream implements server.HTTPResponseWriter (mcp-go's Handle): a
// Stream is made only over a flusher.
func (s *Stream) CanStream() bool { return true }

// SetWriteDeadline is mcp-go's own adapter's, for its resumable streams.
func (s *Stream) SetWriteDeadline(t time.Time) error {
	return http.NewResponseController(s.w).SetWriteDeadline(t)
}

// Send writes msg as one SSE event, upgrading the response if nothing was
// sent yet (sampling requests and the notifications of Notify).
func (s *Stream) Send(msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errSampleStreamEnded
	}
	if !s.wrote {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		s.w.WriteHeader(http.StatusOK)
		s.wrote, s.ours, s.sse = true, true, true
	} else if !s.sse || s.wrapJSON {
		return errSampleStreamJSON
	}
	if err := WriteEvent(s.w, msg); err != nil {
		return fmt.Errorf("endpoint: write to the host: %w", err)
	}
	s.fl.Flush()
	return nil
}

// WriteMessage is Send for the face's notifications of a tools/call: one
// SSE event on the call's response, upgrading it to an event stream when
// nothing was sent yet.
func (s *Stream) WriteMessage(msg []byte) error {
	if err := s.Send(msg); err != nil {
		return fmt.Errorf("endpoint: notify: %w", err)
	}
	return nil
}

// Finish ends the stream once mcp-go is done: a JSON body mcp-go wrote
// after the face's upgrade goes out as the last event.
func (s *Stream) Finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.wrapJSON && s.buf.Len() > 0 {
		_ = WriteEvent(s.w, bytes.TrimSpace(s.buf.Bytes()))
		s.fl.Flush()
	}
}

// WriteEvent writes data as one SSE "message" event.
func WriteEvent(w http.ResponseWriter, data []byte) error {
	b := make([]byte, 0, len(data)+32)
	b = append(b, "event: message\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	_, err := w.Write(b)
	return err
}

// SanitizeLog clips s to 200 bytes and drops control characters, for a log
// line that carries text a host or an upstream chose.
func SanitizeLog(s string) string {
	if len(s) > 200 {
		s = s[:200]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
