package front_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/card"
	"github.com/a2a-mcp-bridge/bridge/a2a/front"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/examples/demoagent"
)

// cardHost serves card bytes the test swaps, with an ETag and max-age, and
// counts conditional fetches answered 304.
type cardHost struct {
	srv  *httptest.Server
	mu   sync.Mutex
	body []byte
	cc   string
	n304 atomic.Int32
}

func newCardHost(t *testing.T, body []byte) *cardHost {
	h := &cardHost{body: body, cc: "max-age=120"}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		body, cc := h.body, h.cc
		h.mu.Unlock()
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:8]) + `"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", cc)
		if r.Header.Get("If-None-Match") == etag {
			h.n304.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *cardHost) set(body []byte) {
	h.mu.Lock()
	h.body = body
	h.mu.Unlock()
}

func signingKey(t *testing.T) *card.KeySet {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := card.NewSigningKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return &card.KeySet{Current: sk}
}

// TestCardReSignedByUntrustedKeyIsRefusedThenRestored: a refreshed card
// signed by a key that is not pinned is refused (ErrCardRefused) and not
// used; once the well-signed card is served again, the next refresh accepts
// it. An unchanged card is revalidated with If-None-Match, and its
// Cache-Control max-age, clamped, sets when to refresh.
func TestCardReSignedByUntrustedKeyIsRefusedThenRestored(t *testing.T) {
	pinned, rogue := signingKey(t), signingKey(t)
	raw := mustJSON(t, demoagent.Card("http://127.0.0.1:1/a2a"))
	good, err := card.Sign(raw, pinned)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := card.Sign(raw, rogue)
	if err != nil {
		t.Fatal(err)
	}
	h := newCardHost(t, good)
	key := make([]byte, 32)
	start := time.Now()
	px, err := front.New(context.Background(), front.Config{
		CardURL: h.srv.URL, HTTPClient: h.srv.Client(), StateKey: key, CardTTLMin: time.Second, CardTTLMax: time.Minute,
		Verify: &front.CardVerification{Keys: pinned, Options: card.VerifyOptions{RequireSignature: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if exp := px.CardExpires(); exp.Before(start.Add(time.Minute)) || exp.After(time.Now().Add(time.Minute)) {
		t.Errorf("max-age=120 clamped to 1m: expires in %s", time.Until(exp))
	}
	changed, err := px.Refresh(context.Background())
	if err != nil || changed || h.n304.Load() != 1 {
		t.Fatalf("unchanged refresh: changed=%v err=%v 304s=%d", changed, err, h.n304.Load())
	}
	h.set(bad)
	if _, err := px.Refresh(context.Background()); !errors.Is(err, front.ErrCardRefused) || !errors.Is(err, card.ErrUntrustedKey) {
		t.Fatalf("re-signed card: err = %v, want ErrCardRefused and ErrUntrustedKey", err)
	}
	if px.Verification().Status != card.StatusVerified {
		t.Fatalf("verification of the card in use: %+v", px.Verification())
	}
	// Still served: refused again, not answered 304 for the refused card.
	if _, err := px.Refresh(context.Background()); !errors.Is(err, front.ErrCardRefused) {
		t.Fatalf("second refresh of the re-signed card: %v", err)
	}
	h.set(good)
	changed, err = px.Refresh(context.Background())
	if err != nil || changed {
		t.Fatalf("restored card: changed=%v err=%v", changed, err)
	}
}

// TestChangedCardSwitchesInterfaces: a refreshed card naming another
// interface URL is used by the next execution.
func TestChangedCardSwitchesInterfaces(t *testing.T) {
	first, second := newUpstream(t, false), newUpstream(t, false)
	h := newCardHost(t, mustJSON(t, demoagent.Card(first.srv.URL)))
	key := make([]byte, 32)
	px, err := front.New(context.Background(), front.Config{CardURL: h.srv.URL, HTTPClient: h.srv.Client(), StateKey: key})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: px})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	if _, err := mgr.SendMessage(ctxT(t), "alice", &a2a.SendMessageRequest{Message: userMsg("one")}); err != nil {
		t.Fatal(err)
	}
	h.set(mustJSON(t, demoagent.Card(second.srv.URL)))
	if changed, err := px.Refresh(context.Background()); err != nil || !changed {
		t.Fatalf("refresh: changed=%v err=%v", changed, err)
	}
	if _, err := mgr.SendMessage(ctxT(t), "alice", &a2a.SendMessageRequest{Message: userMsg("two")}); err != nil {
		t.Fatal(err)
	}
	if n1, n2 := len(first.taskIDs(t))/2, len(second.taskIDs(t))/2; n1 != 1 || n2 != 1 {
		t.Fatalf("tasks upstream: first %d, second %d; want 1 and 1", n1, n2)
	}
}

// TestUnreachableUpstreamAnswersAgentUnavailable: an upstream that went
// away after its card was loaded is answered AGENT_UNAVAILABLE (HTTP 503),
// naming the agent, with no address or dial error.
func TestUnreachableUpstreamAnswersAgentUnavailable(t *testing.T) {
	up := newUpstream(t, true)
	key := make([]byte, 32)
	px, err := front.New(context.Background(), front.Config{
		CardURL: up.srv.URL + "/.well-known/agent-card.json", HTTPClient: up.srv.Client(), StateKey: key, Name: "research",
	})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: px})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Wait()
	up.srv.Close()
	for _, blocking := range []bool{true, false} {
		req := &a2a.SendMessageRequest{Message: userMsg("hi")}
		if !blocking {
			req.Configuration = &a2a.SendMessageConfiguration{ReturnImmediately: true}
		}
		_, err = mgr.SendMessage(ctxT(t), "alice", req)
		e := a2a.AsError(err)
		if e.Reason != "AGENT_UNAVAILABLE" || e.HTTPStatus(a2a.ErrorTableV101) != http.StatusServiceUnavailable || e.GRPCStatus() != "UNAVAILABLE" {
			t.Fatalf("blocking=%v: error %+v", blocking, e)
		}
		if e.Message != "agent research is unavailable: it cannot be reached; retry later" || strings.Contains(e.Message, "127.0.0.1") {
			t.Fatalf("message %q", e.Message)
		}
		if e.Header.Get("Retry-After") == "" {
			t.Errorf("no Retry-After")
		}
	}
}
