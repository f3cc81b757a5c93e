package server

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
)

// keepAliveComment is the SSE comment written while a stream is idle.
var keepAliveComment = []byte(": keep-alive\n\n")

// sseWriter writes Server-Sent Events: one JSON document per event, flushed
// at once, with a keep-alive comment while idle. Headers are written with
// the first event, so an error before it can still be a normal response.
//
// An idle stream holds no goroutine of its own: keep-alives come from one
// runtime timer, re-armed after each keep-alive.
//
// A stream that has gone idle over HTTP/1.1 may be released (see
// sse_release.go): the server's connection is taken over and the writer
// frames the chunks itself, byte for byte as net/http would, so that the
// handler can return and net/http's buffers and goroutine are freed.
type sseWriter struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	keepAlive time.Duration
	writeTO   time.Duration

	mu        sync.Mutex
	begun     bool
	broken    bool
	ended     bool        // the producer has returned: the stream is not released any more
	timer     *time.Timer // keep-alive timer, set when the stream begins
	lastEvent time.Time   // when the last event was written
	conn      net.Conn    // set once released: chunks are written to it
	// reuse: the released connection may serve another request once the
	// stream has ended (see handBack); lastSent: its last chunk is
	// written and the connection kept for that request (wakeReader).
	reuse, lastSent bool
}

// jsonEncoder is a reusable buffer with its JSON encoder, for one event or
// one response: streams take one per event, so an idle stream keeps none.
type jsonEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var jsonEncoders = sync.Pool{New: func() any {
	e := &jsonEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

// maxPooledEncoder bounds the buffers returned to jsonEncoders, so one
// huge event or response does not stay pinned.
const maxPooledEncoder = 64 << 10

// getEncoder takes an encoder with an empty buffer from the pool.
func getEncoder() *jsonEncoder {
	e := jsonEncoders.Get().(*jsonEncoder)
	e.buf.Reset()
	return e
}

// appendKnown writes prefix, v and suffix into the empty buffer with the
// hand-written encoders (see codec_encode_task.go) and returns the bytes,
// which stay valid until e is put back. It reports false, leaving the
// buffer empty, when v has no such encoder or cannot be encoded: the
// caller then encodes v with e.enc, which reports any error as before.
func (e *jsonEncoder) appendKnown(prefix string, v any, suffix string) ([]byte, bool) {
	b := append(e.buf.AvailableBuffer(), prefix...)
	b, err := fastjson.AppendKnown(b, v)
	if err != nil {
		return nil, false
	}
	b = append(b, suffix...)
	if cap(b) > e.buf.Cap() {
		// Grown past the pooled buffer: keep the larger array for next time.
		e.buf = *bytes.NewBuffer(b[:0])
	}
	return b, true
}

// putEncoder returns e to the pool unless its buffer grew too large.
func putEncoder(e *jsonEncoder) {
	if e.buf.Cap() <= maxPooledEncoder {
		jsonEncoders.Put(e)
	}
}

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
// namedEvent is an event sent with an SSE event name ("event: name"):
// the 0.3 HTTP+JSON binding sends an error in the middle of a stream as an
// event named "error", which its clients read as the call's error.
type namedEvent struct {
	name string
	data any
}

func (s *sseWriter) send(v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return http.ErrHandlerTimeout
	}
	prefix := "data: "
	if ne, ok := v.(namedEvent); ok {
		prefix, v = "event: "+ne.name+"\ndata: ", ne.data
	}
	e := getEncoder()
	defer putEncoder(e)
	b, ok := e.appendKnown(prefix, v, "\n\n")
	if !ok {
		e.buf.WriteString(prefix)
		if err := e.enc.Encode(v); err != nil {
			return err
		}
		// Encode ends with "\n"; one more ends the event.
		e.buf.WriteByte('\n')
		b = e.buf.Bytes()
	}
	if !s.begun {
		s.beginLocked()
	}
	s.lastEvent = time.Now()
	return s.writeLocked(b)
}

func (s *sseWriter) writeLocked(b []byte) error {
	if s.conn != nil {
		return s.writeChunkLocked(b)
	}
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

// crlf ends a chunk; lastChunk ends a chunked body without trailers.
var (
	crlf      = []byte("\r\n")
	lastChunk = []byte("0\r\n\r\n")
)

// writeChunkLocked writes b as one chunk of the released connection, as
// net/http frames one flushed write: the size in hex, CRLF, the data, CRLF.
// A failed write closes the connection, so the stream's reader notices
// and the stream ends instead of lingering on a dead peer.
func (s *sseWriter) writeChunkLocked(b []byte) error {
	if s.writeTO > 0 {
		_ = s.conn.SetWriteDeadline(time.Now().Add(s.writeTO))
	}
	var hdr [20]byte
	size := append(strconv.AppendInt(hdr[:0], int64(len(b)), 16), '\r', '\n')
	bufs := net.Buffers{size, b, crlf}
	if _, err := bufs.WriteTo(s.conn); err != nil {
		s.broken = true
		_ = s.conn.Close()
		return err
	}
	return nil
}

// close ends the stream: nothing is written after it returns, so the
// handler may return and the server reuse the connection. A released
// stream ends its chunked body itself, then its connection goes back to
// the server for the client's next request (handBack) or, when it cannot
// serve one, closes.
func (s *sseWriter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	if s.conn != nil && !s.broken {
		if s.writeTO > 0 {
			_ = s.conn.SetWriteDeadline(time.Now().Add(s.writeTO))
		}
		_, err := s.conn.Write(lastChunk)
		switch cw, ok := s.conn.(interface{ CloseWrite() error }); {
		case err != nil:
			_ = s.conn.Close()
		case s.reuse:
			// The response is complete and the client may send its next
			// request at once, on this connection: it stays open, and
			// wakeReader hands it back to the server for that request.
			s.lastSent = true
		case !ok || cw.CloseWrite() != nil:
			_ = s.conn.Close()
		default:
			// Like net/http closing a connection: send FIN and let the
			// reader drain what the client still sends for a moment, so
			// that a reset does not destroy the last chunk in flight; the
			// reader closes.
			_ = s.conn.SetReadDeadline(time.Now().Add(lingerAfterStream))
		}
	} else if s.conn != nil {
		_ = s.conn.Close()
	}
	s.broken = true
}

// wakeReader makes the reader of a released stream that has ended with its
// last chunk, connection kept, hand the connection back to the server
// (see watchReleased): its blocked read returns at once.
func (s *sseWriter) wakeReader() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastSent {
		_ = s.conn.SetReadDeadline(time.Now())
	}
}
