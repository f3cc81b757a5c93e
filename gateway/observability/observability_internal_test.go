package observability

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a/server"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestPanicInOneRequestKeepsServing: a handler that panics on /mcp or an
// A2A route gets a 500, is counted, and the next request is served.
func TestPanicInOneRequestKeepsServing(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("/a2a/x", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	srv := httptest.NewServer(m.Observe(slog.New(slog.DiscardHandler), testFaces, mux))
	defer srv.Close()
	for _, path := range []string{"/mcp", "/a2a/x", "/healthz"} {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		resp.Body.Close()
		want := http.StatusInternalServerError
		if path == "/healthz" {
			want = http.StatusOK
		}
		if resp.StatusCode != want {
			t.Fatalf("%s: status %d, want %d", path, resp.StatusCode, want)
		}
	}
	var pb dto.Metric
	if err := m.panics.Write(&pb); err != nil {
		t.Fatal(err)
	}
	if n := pb.GetCounter().GetValue(); n != 2 {
		t.Fatalf("panics counted %v, want 2", n)
	}
}

// TestReleasedStreamIsToldOfTheDrainAndForgottenWhenItEnds: a stream
// released from net/http stays tracked for the drain, which reaches it
// through the stream's own write, until its end forgets it and writes its
// access log line, once.
func TestReleasedStreamIsToldOfTheDrainAndForgottenWhenItEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		// drainFirst: the drain begins while the stream is open (else after
		// it ended, when it must not be written to).
		drainFirst bool
	}{
		{"the drain begins while the stream is open", true},
		{"the drain begins after the stream ended", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMetrics(prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			var logs strings.Builder
			var mu sync.Mutex
			var written []string
			var end func()
			mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				var observers []server.StreamReleaseObserver
				for cur := w; ; cur = cur.(interface{ Unwrap() http.ResponseWriter }).Unwrap() {
					o, ok := cur.(server.StreamReleaseObserver)
					if !ok {
						break
					}
					observers = append(observers, o)
				}
				var ends []func()
				for _, o := range observers {
					ends = append(ends, o.StreamReleased(func(b []byte) error {
						mu.Lock()
						defer mu.Unlock()
						written = append(written, string(b))
						return nil
					}))
				}
				end = func() {
					for _, e := range ends {
						if e != nil {
							e()
						}
					}
				}
			})
			h := m.Observe(slog.New(slog.NewJSONHandler(&logs, nil)), testFaces, mux)
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/a2a/x", nil))
			if n := strings.Count(logs.String(), `"msg":"request"`); n != 0 || len(m.streams) != 1 {
				t.Fatalf("released: %d access log lines, %d streams tracked; want 0, 1", n, len(m.streams))
			}
			if tc.drainFirst {
				m.GoingAway()
			}
			end()
			if !tc.drainFirst {
				m.GoingAway()
			}
			mu.Lock()
			defer mu.Unlock()
			want := 0
			if tc.drainFirst {
				want = 1
			}
			if len(written) != want || (want == 1 && written[0] != GoingAwayComment) {
				t.Fatalf("written to the stream: %q", written)
			}
			if n := strings.Count(logs.String(), `"msg":"request"`); n != 1 || len(m.streams) != 0 {
				t.Fatalf("ended: %d access log lines, %d streams tracked; want 1, 0", n, len(m.streams))
			}
			if !strings.Contains(logs.String(), `"status":200`) || !strings.Contains(logs.String(), `"path":"/a2a/x"`) {
				t.Fatalf("access log line %s", logs.String())
			}
		})
	}
}

// testFaces names the faces of the paths the tests serve, as the bridge
// does (gateway's faceOf) for these.
func testFaces(path string) string {
	switch {
	case strings.HasPrefix(path, "/a2a/"):
		return FaceA2A
	case path == "/mcp":
		return FaceMCP
	case path == "/healthz":
		return FaceOps
	}
	return FaceOther
}
