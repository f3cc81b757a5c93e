package netguard_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// publicAddr is a public address the fake resolver hands out. No test ever
// connects to it: the connect hook refuses every non-loopback address.
var publicAddr = netip.MustParseAddr("93.184.215.14")

// connectLog records the addresses the guard let through to connect.
type connectLog struct {
	mu    sync.Mutex
	addrs []string
}

func (l *connectLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.addrs...)
}

// newGuard builds a Guard whose connections may only ever reach loopback,
// whatever the policy says, and logs the addresses it connected to.
func newGuard(t *testing.T, cfg netguard.Config) (*netguard.Guard, *connectLog) {
	t.Helper()
	g, err := netguard.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	log := &connectLog{}
	netguard.SetConnectHook(g, func(network, address string) error {
		log.mu.Lock()
		log.addrs = append(log.addrs, address)
		log.mu.Unlock()
		ap, err := netip.ParseAddrPort(address)
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			return fmt.Errorf("test: refusing to connect to non-loopback %s", address)
		}
		return nil
	})
	t.Cleanup(g.Client().CloseIdleConnections)
	return g, log
}

// countingServer is an httptest server on 127.0.0.1 that counts requests.
type countingServer struct {
	*httptest.Server
	hits atomic.Int64
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{}
	if h == nil {
		h = func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *countingServer) port() uint16 {
	return netip.MustParseAddrPort(s.Listener.Addr().String()).Port()
}

// wantBlocked fails unless err is a policy refusal with the given reason.
func wantBlocked(t *testing.T, err error, reason netguard.Reason) *netguard.BlockedError {
	t.Helper()
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("err = %v, want a refusal matching ErrBlocked", err)
	}
	var be *netguard.BlockedError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BlockedError in the chain", err)
	}
	if be.Reason != reason {
		t.Fatalf("reason = %s, want %s (err: %v)", be.Reason, reason, err)
	}
	return be
}

func prefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}
