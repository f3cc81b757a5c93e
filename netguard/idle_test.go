package netguard_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// TestConcurrentCallsReuseConnections: a gateway sends many concurrent
// calls to one upstream; once a wave of them has opened its connections,
// the next wave reuses them instead of opening (and the upstream
// accepting) a new connection per call.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	c := netguard.Trusted(netguard.Config{})
	const concurrent = 48
	wave := func() {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range concurrent {
			wg.Go(func() {
				<-start
				resp, err := c.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		close(start)
		wg.Wait()
	}
	wave()
	first := opened.Load()
	for range 3 {
		// net/http pools a connection shortly after its response was
		// read: let the wave's connections get back before the next one.
		time.Sleep(50 * time.Millisecond)
		wave()
	}
	// Kept connections: a handful of new ones at most over three waves;
	// with too few kept, each wave opens most of its connections anew.
	if more := opened.Load() - first; more > concurrent {
		t.Fatalf("later waves opened %d new connections (first wave %d): idle connections are not kept", more, first)
	}
}
