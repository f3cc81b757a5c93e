package observe

import (
	"net/http"
	"strings"
)

// recorder records the status a handler writes and notices event streams.
// It keeps Flush and Unwrap so SSE and http.ResponseController still work
// through it.
type recorder struct {
	http.ResponseWriter
	status int
	// onHeader runs once, when the status is written; stream tells whether
	// the response is an event stream.
	onHeader func(status int, stream bool)
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
		if w.onHeader != nil {
			stream := code < 400 && strings.HasPrefix(strings.ToLower(w.Header().Get("Content-Type")), "text/event-stream")
			w.onHeader(code, stream)
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

// code is the status sent, 200 when the handler wrote nothing.
func (w *recorder) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
