package observe

import (
	"net/http"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"
)

// recorder records the status a handler writes and notices event streams.
// It keeps Flush and Unwrap so SSE and http.ResponseController still work
// through it, and lets an a2a event stream be released from net/http
// ([server.StreamReleaseObserver]): its middleware then finishes with the
// stream's end rather than with the handler's return.
type recorder struct {
	http.ResponseWriter
	status int
	// released is set when the stream is released, in the handler's
	// goroutine: the middleware leaves its finishing to the release's end.
	released bool
	// hooks, if set, tells the middleware that made the recorder.
	hooks recorderHooks
}

// recorderHooks is what a middleware learns from its recorder.
type recorderHooks interface {
	// header runs once, when the status is written; stream tells whether
	// the response is an event stream.
	header(status int, stream bool)
	// release runs when the response (status sent) is released from
	// net/http; it returns what to run when it ends, in place of what
	// follows the handler's return.
	release(status int) (end func())
}

var _ server.StreamReleaseObserver = (*recorder)(nil)

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		if w.hooks != nil {
			stream := code < 400 && strings.HasPrefix(strings.ToLower(w.Header().Get("Content-Type")), "text/event-stream")
			w.hooks.header(code, stream)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *recorder) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// StreamReleased implements [server.StreamReleaseObserver]: the recorder lets
// go of the writer it wraps (the released stream must not keep net/http's
// buffers alive) and hands its middleware's finishing to end.
func (w *recorder) StreamReleased(func([]byte) error) (end func()) {
	w.released = true
	w.ResponseWriter = releasedWriter{}
	if w.hooks == nil {
		return nil
	}
	return w.hooks.release(w.code())
}

// code is the status sent, 200 when the handler wrote nothing.
func (w *recorder) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// releasedWriter stands in for the writer a recorder wrapped once the
// stream has been released: nothing may be written through it any more.
type releasedWriter struct{}

func (releasedWriter) Header() http.Header { return http.Header{} }

func (releasedWriter) Write([]byte) (int, error) { return 0, http.ErrHijacked }

func (releasedWriter) WriteHeader(int) {}
