package health_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/gateway/health"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestRegistryTransitionsAreLoggedOnceEach(t *testing.T) {
	var logs bytes.Buffer
	clk := &clock{t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	r := health.New(health.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil)), Now: clk.now})
	var changes []health.Status
	r.OnChange(func(st health.Status, removed bool) {
		if !removed {
			changes = append(changes, st)
		}
	})
	r.Add(health.KindFrontMCP, "files")
	r.Add(health.KindExpose, "billing")
	if st, _ := r.Get(health.KindFrontMCP, "files"); st.State != health.StateStarting || !st.LastCheck.IsZero() {
		t.Fatalf("new entry: %+v", st)
	}
	clk.t = clk.t.Add(time.Second)
	r.Report(health.KindFrontMCP, "files", health.Report{State: health.StateDown, Err: "connection refused", Tools: -1})
	clk.t = clk.t.Add(time.Second)
	r.Report(health.KindFrontMCP, "files", health.Report{State: health.StateDown, Err: "connection refused", Tools: -1})
	clk.t = clk.t.Add(3 * time.Second)
	r.Report(health.KindFrontMCP, "files", health.Report{State: health.StateUp, Err: "ignored when up", Tools: 7})
	r.Report(health.KindExpose, "billing", health.Report{State: health.StateRefused, Err: "card: untrusted key", Signature: "", Tools: -1})

	st, ok := r.Get(health.KindFrontMCP, "files")
	want := health.Status{Name: "files", Kind: health.KindFrontMCP, State: health.StateUp, Since: clk.t, LastCheck: clk.t, Tools: 7}
	if !ok || st != want {
		t.Fatalf("status\n got %+v\nwant %+v", st, want)
	}
	if got := r.List(); len(got) != 2 || got[0].Name != "files" || got[1].Name != "billing" || got[1].State != health.StateRefused {
		t.Fatalf("List: %+v", got)
	}
	if len(changes) != 6 {
		t.Errorf("%d change callbacks, want 6 (2 adds, 4 reports)", len(changes))
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("%d log lines, want 3 (down once, up, refused):\n%s", len(lines), logs.String())
	}
	for i, w := range []struct{ msg, level, upstream, reason string }{
		{"upstream down", "WARN", "files", "connection refused"},
		{"upstream up", "INFO", "files", ""},
		{"upstream refused: taken out until its card verifies", "ERROR", "billing", "card: untrusted key"},
	} {
		l := lines[i]
		if l["msg"] != w.msg || l["level"] != w.level || l["upstream"] != w.upstream || (w.reason != "" && l["reason"] != w.reason) {
			t.Errorf("line %d: %v, want %+v", i, l, w)
		}
	}
	if lines[1]["was"] != "down" || lines[1]["for"] != "4s" {
		t.Errorf("up line does not say how long it was down: %v", lines[1])
	}
	r.Remove(health.KindFrontMCP, "files")
	if _, ok := r.Get(health.KindFrontMCP, "files"); ok || len(r.List()) != 1 {
		t.Fatalf("removed entry still listed: %+v", r.List())
	}
	r.Report(health.KindFrontMCP, "files", health.Report{State: health.StateUp})
	if len(r.List()) != 1 {
		t.Fatal("a report revived a removed entry")
	}
}

func TestDescribeShowsNoAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, refused := http.Get("http://user:secret@" + addr + "/mcp?token=abc")
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
	_, timedOut := http.DefaultClient.Do(req)
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"refused", fmt.Errorf(`upstream "files": connect: %w`, refused), "connection refused"},
		{"timeout", timedOut, "timed out"},
		{"blocked", fmt.Errorf("fetch: %w", netguard.ErrBlocked), "refused by netguard: the destination is not allowed"},
		{"text with a URL", errors.New(`fetch card: GET "https://agent.internal:8443/.well-known/agent-card.json?k=v": HTTP status 503`), `fetch card: GET "<url>": HTTP status 503`},
		{"text with addresses", errors.New("dial tcp 10.0.0.7:9000 and [fd00::1]:80 and 192.168.1.1"), "dial tcp <address> and <address> and <address>"},
		{"dial to a name", errors.New("dial tcp files.svc.cluster.local:3000: i/o error"), "dial tcp <address>: i/o error"},
		{"control characters", errors.New("bad\ncard\x00"), "bad card "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := health.Describe(tt.err)
			if got != tt.want {
				t.Fatalf("Describe = %q, want %q", got, tt.want)
			}
			if strings.Contains(got, "secret") || strings.Contains(got, "127.0.0.1") {
				t.Fatalf("leaks: %q", got)
			}
		})
	}
	if long := health.Describe(errors.New(strings.Repeat("x", 1000))); len(long) > 310 {
		t.Errorf("not capped: %d bytes", len(long))
	}
}

// TestReaderNeverSeesAStateBeforeItsListeners: /readyz (List) and the
// metrics a listener sets must agree, so a reader waits for a change's
// listeners; a change made while the metric is still being set is not
// visible until it is.
func TestReaderNeverSeesAStateBeforeItsListeners(t *testing.T) {
	r := health.New(health.Options{})
	r.Add(health.KindPublish, "srv")
	var metric health.State // what the listener has published
	entered, release := make(chan struct{}), make(chan struct{})
	r.OnChange(func(st health.Status, _ bool) {
		if st.State == health.StateDown {
			close(entered)
			<-release
		}
		metric = st.State
	})
	go r.Report(health.KindPublish, "srv", health.Report{State: health.StateDown, Err: "gone", Tools: -1})
	<-entered
	got := make(chan health.State, 1)
	go func() {
		st, _ := r.Get(health.KindPublish, "srv")
		got <- st.State
	}()
	select {
	case st := <-got:
		t.Fatalf("Get returned %q while the change's listener was still running", st)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if st := <-got; st != health.StateDown || metric != health.StateDown {
		t.Fatalf("after the listener: Get %q, listener published %q; want both down", st, metric)
	}
}

// TestReplayHoldsChangesUntilItReturns: the periodic refresh of the
// metrics (Replay) cannot publish an older status over a change made while
// it runs, because the change waits for it.
func TestReplayHoldsChangesUntilItReturns(t *testing.T) {
	r := health.New(health.Options{})
	r.Add(health.KindPublish, "srv")
	r.Report(health.KindPublish, "srv", health.Report{State: health.StateUp, Tools: 1})
	var metric health.State
	r.OnChange(func(st health.Status, _ bool) { metric = st.State })
	reported := make(chan struct{})
	r.Replay(func(st health.Status) {
		go func() {
			r.Report(health.KindPublish, "srv", health.Report{State: health.StateDown, Err: "gone", Tools: -1})
			close(reported)
		}()
		select {
		case <-reported:
			t.Error("a change went through while Replay was publishing an older status")
		case <-time.After(50 * time.Millisecond):
		}
		metric = st.State // the refresh publishes what it read: up
	})
	<-reported
	if st, _ := r.Get(health.KindPublish, "srv"); st.State != health.StateDown || metric != health.StateDown {
		t.Fatalf("registry %q, published %q: want both down", st.State, metric)
	}
}
