package a2a

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// keepAliveComment is the SSE comment written while a stream is idle.
var keepAliveComment = []byte(": keep-alive\n\n")

// sseWriter writes Server-Sent Events: one JSON document per event, flushed
// at once, with a keep-alive comment while idle. Headers are written with
// the first event, so an error before it can still be a normal response.
//
// An idle stream holds no goroutine of its own: keep-alives come from one
// runtime timer, re-armed after each keep-alive.
type sseWriter struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	keepAlive time.Duration
	writeTO   time.Duration

	mu     sync.Mutex
	begun  bool
	broken bool
	timer  *time.Timer // keep-alive timer, set when the stream begins
}

// sseEncoder is a reusable event buffer with its JSON encoder. Streams
// take one per event from sseEncoders, so an idle stream keeps none.
type sseEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var sseEncoders = sync.Pool{New: func() any {
	e := &sseEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

// maxPooledEvent bounds the buffers returned to sseEncoders, so one huge
// event does not stay pinned.
const maxPooledEvent = 64 << 10

func newSSEWriter(w http.ResponseWriter, keepAlive, writeTimeout time.Duration) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w), keepAlive: keepAlive, writeTO: writeTimeout}
}

// started reports whether the event stream has begun.
func (s *sseWriter) started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.begun
}

// beginLocked writes the stream headers and arms the keep-alive timer.
func (s *sseWriter) beginLocked() {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	s.w.WriteHeader(http.StatusOK)
	s.begun = true
	if s.keepAlive > 0 {
		s.timer = time.AfterFunc(s.keepAlive, s.keepAliveTick)
	}
}

// keepAliveTick runs when the keep-alive timer fires: it writes a comment
// and re-arms the timer, every keep-alive interval like a ticker would, but
// without a goroutine waiting for it in between. A failed write marks the
// stream broken, which the next send reports.
func (s *sseWriter) keepAliveTick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return
	}
	if s.writeLocked(keepAliveComment) != nil {
		return
	}
	s.timer.Reset(s.keepAlive)
}

// send writes v as one event.
func (s *sseWriter) send(v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return http.ErrHandlerTimeout
	}
	e := sseEncoders.Get().(*sseEncoder)
	defer func() {
		if e.buf.Cap() <= maxPooledEvent {
			sseEncoders.Put(e)
		}
	}()
	e.buf.Reset()
	e.buf.WriteString("data: ")
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	// Encode ends with "\n"; one more ends the event.
	e.buf.WriteByte('\n')
	if !s.begun {
		s.beginLocked()
	}
	return s.writeLocked(e.buf.Bytes())
}

func (s *sseWriter) writeLocked(b []byte) error {
	if s.writeTO > 0 {
		_ = s.rc.SetWriteDeadline(time.Now().Add(s.writeTO))
	}
	if _, err := s.w.Write(b); err != nil {
		s.broken = true
		return err
	}
	if err := s.rc.Flush(); err != nil {
		s.broken = true
		return err
	}
	return nil
}

// close ends the stream: nothing is written after it returns, so the
// handler may return and the server reuse the connection.
func (s *sseWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.broken = true
	if s.timer != nil {
		s.timer.Stop()
	}
}
