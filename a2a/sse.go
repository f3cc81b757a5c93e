package a2a

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// sseWriter writes Server-Sent Events: one JSON document per event, flushed
// at once, with a keep-alive comment while idle. Headers are written with
// the first event, so an error before it can still be a normal response.
type sseWriter struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	keepAlive time.Duration
	writeTO   time.Duration

	mu      sync.Mutex
	begun   bool
	broken  bool
	stop    chan struct{}
	stopped sync.Once
	buf     bytes.Buffer
}

func newSSEWriter(w http.ResponseWriter, keepAlive, writeTimeout time.Duration) *sseWriter {
	return &sseWriter{w: w, rc: http.NewResponseController(w), keepAlive: keepAlive, writeTO: writeTimeout, stop: make(chan struct{})}
}

// started reports whether the event stream has begun.
func (s *sseWriter) started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.begun
}

// beginLocked writes the stream headers and starts the keep-alive ticker.
func (s *sseWriter) beginLocked() {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	s.w.WriteHeader(http.StatusOK)
	s.begun = true
	go s.keepAliveLoop()
}

func (s *sseWriter) keepAliveLoop() {
	t := time.NewTicker(s.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			if !s.broken {
				s.writeLocked([]byte(": keep-alive\n\n"))
			}
			s.mu.Unlock()
		}
	}
}

// send writes v as one event.
func (s *sseWriter) send(v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken {
		return http.ErrHandlerTimeout
	}
	s.buf.Reset()
	s.buf.WriteString("data: ")
	enc := json.NewEncoder(&s.buf)
	if err := enc.Encode(v); err != nil {
		return err
	}
	// Encode ends with "\n"; one more ends the event.
	s.buf.WriteByte('\n')
	if !s.begun {
		s.beginLocked()
	}
	return s.writeLocked(s.buf.Bytes())
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
	s.broken = true
	s.mu.Unlock()
	s.stopped.Do(func() { close(s.stop) })
}
