package observability

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
)

// TestClientDisconnectIsLoggedAsSuch: a client that goes away before the
// handler is done gets an access line at Info that says so
// (outcome client_disconnected); a request served to the end does not.
func TestClientDisconnectIsLoggedAsSuch(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/a2a/slow", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // net/http notices a closed connection once the body is read
		entered <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/a2a/fast", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	var logs syncbuf.Buffer
	srv := httptest.NewServer(m.Observe(slog.New(slog.NewJSONHandler(&logs, nil)), testFaces, mux))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/a2a/slow", strings.NewReader("{}"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	cancel()
	<-done
	resp, err := http.Post(srv.URL+"/a2a/fast", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	lines := map[string]map[string]any{}
	bridgetest.Eventually(t, 10*time.Second, "two access lines", func() error {
		for line := range strings.SplitSeq(logs.String(), "\n") {
			var l map[string]any
			if json.Unmarshal([]byte(line), &l) == nil && l["msg"] == "request" {
				lines[l["path"].(string)] = l
			}
		}
		if len(lines) < 2 {
			return fmt.Errorf("%d access lines", len(lines))
		}
		return nil
	})
	slow, fast := lines["/a2a/slow"], lines["/a2a/fast"]
	if slow == nil || slow["level"] != "INFO" || slow["outcome"] != "client_disconnected" {
		t.Errorf("access line of the abandoned request: %v", slow)
	}
	if fast == nil || fast["outcome"] != nil {
		t.Errorf("access line of the served request: %v", fast)
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("a disconnect logged as an error: %s", line)
		}
	}
}
