package gateway

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
	srv := httptest.NewServer(m.observe(slog.New(slog.DiscardHandler), "/mcp", mux))
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
