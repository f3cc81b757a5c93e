//go:build interop

package fault

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
)

// Upstream faults: a peer the bridge relays to restarts, dies, is late, or
// serves a card signed by the wrong key. Each test asserts that the bridge
// notices, answers in the caller's protocol meanwhile (no address, no dial
// error), and recovers by itself within recoverBound.

// healthFast is the health section of every config here: checks every
// 500ms, reconnects from 100ms to 1s.
const healthFast = `health:
  check_interval: 500ms
  check_timeout: 400ms
  reconnect_min: 100ms
  reconnect_max: 1s
  card_refresh_min: 1s
  card_refresh_max: 10s
`

// loopbackNetguard lets the exposed agents' card-declared URLs reach
// 127.0.0.1 over plain HTTP (the suite's peers).
const loopbackNetguard = `netguard:
  unsafe_allow: [127.0.0.0/8]
  unsafe_allow_http: true
`

// recoverBound is the liveness bound of every recovery here; the figure
// measured is logged. With checks every 500ms and backoff capped at 1s,
// recoveries take about a second.
const recoverBound = 15 * time.Second

// baseConfig is the part every bridge config here shares.
func baseConfig() string {
	return "store: \"memory:\"\n" + apiKeyAuth + allowAll + healthFast + loopbackNetguard
}

// a2aResult is what a SendMessage answer says: the task state and the
// artifact and status texts.
type a2aResult struct {
	State string
	Text  string
}

func decodeA2AResult(raw json.RawMessage) a2aResult {
	var r struct {
		Task *struct {
			Status struct {
				State   string `json:"state"`
				Message *struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"message"`
			} `json:"status"`
			Artifacts []struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"artifacts"`
		} `json:"task"`
	}
	_ = json.Unmarshal(raw, &r)
	if r.Task == nil {
		return a2aResult{}
	}
	out := a2aResult{State: r.Task.Status.State}
	for _, a := range r.Task.Artifacts {
		for _, p := range a.Parts {
			out.Text += p.Text
		}
	}
	if m := r.Task.Status.Message; m != nil {
		for _, p := range m.Parts {
			out.Text += p.Text
		}
	}
	return out
}

// a2aOK sends params to the agent at url and returns nil when the task
// completed with want in its text.
func a2aOK(t *testing.T, url string, params any, want string) error {
	t.Helper()
	_, res, rpcErr := a2aCall(t, url, "SendMessage", params)
	if rpcErr != nil {
		return fmt.Errorf("error %d %s: %s", rpcErr.Code, rpcErr.Reason(), rpcErr.Message)
	}
	r := decodeA2AResult(res)
	if r.State != "TASK_STATE_COMPLETED" || !strings.Contains(r.Text, want) {
		return fmt.Errorf("task %s: %q", r.State, r.Text)
	}
	return nil
}

// noAddress fails the test when text shows an address or a dial error
// (the bridge's side of the hop).
func noAddress(t *testing.T, what, text string, addrs ...string) {
	t.Helper()
	for _, a := range append(addrs, "dial tcp", "127.0.0.1") {
		if a != "" && strings.Contains(text, a) {
			t.Errorf("%s shows %q: %s", what, a, text)
		}
	}
}

// upstreamIs returns nil when /readyz lists the upstream in state.
func upstreamIs(t *testing.T, b *bridgetest.Bridge, kind, name, state string) error {
	t.Helper()
	_, r, body := bridgetest.Readyz(t, b.URL)
	for _, raw := range r.Upstreams {
		var st struct {
			Name, Kind, State string
			LastError         string `json:"last_error"`
		}
		_ = json.Unmarshal(raw, &st)
		if st.Name == name && st.Kind == kind {
			if st.State != state {
				return fmt.Errorf("%s %s is %s (%s)", kind, name, st.State, st.LastError)
			}
			return nil
		}
	}
	return fmt.Errorf("%s %s not in /readyz: %s", kind, name, body)
}

// upMetric returns nil when bridge_upstream_up{upstream,kind} is want.
func upMetric(t *testing.T, b *bridgetest.Bridge, kind, name string, want float64) error {
	t.Helper()
	v, ok := bridgetest.Metric(t, b.URL, "bridge_upstream_up", map[string]string{"upstream": name, "kind": kind})
	if !ok || v != want {
		return fmt.Errorf("bridge_upstream_up{upstream=%q,kind=%q} = %v (present %v), want %v", name, kind, v, ok, want)
	}
	return nil
}

// TestFault_HTTPMCPUpstreamRestarted: an MCP server reached over
// streamable HTTP restarts and no longer knows the bridge's session. Our
// test server answers the old session 404 (the spec's answer);
// server-everything answers 400 "No valid session ID provided". Both as a
// published agent (publish[].http) and as a fronted server (front.mcp).
// The call that meets the lost session fails once, clearly, and the bridge
// re-initializes at once: the next call works. Then the server is killed
// during a call: that call fails once, saying the server went away; the
// server comes back with one more tool, which MCP hosts are told about
// (front.mcp) or the published card gains (publish). The health checks are
// slowed down here so that a call, not a check, meets the lost session.
func TestFault_HTTPMCPUpstreamRestarted(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer string // what the restarted server answers the old session
		kind   string
	}{
		{"404/front.mcp", "404", "front.mcp"},
		{"404/publish.http", "404", "publish"},
		{"400/front.mcp", "400", "front.mcp"},
		{"400/publish.http", "400", "publish"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := bridgetest.FreeAddr(t)
			var peer *bridgetest.Proc
			tool, slow := "echo", "block"
			args, slowArgs := map[string]any{"text": "hello"}, map[string]any{}
			start := func(extra string) {
				if tt.answer == "404" {
					flags := []string{"-sessions"}
					if extra != "" {
						flags = append(flags, "-extra-tool", extra)
					}
					peer = startMCPTestServerHTTP(t, addr, flags...)
					return
				}
				if peer == nil {
					peer = startEverythingHTTP(t, addr)
				} else {
					peer.Start()
				}
			}
			if tt.answer == "400" {
				args, slow, slowArgs = map[string]any{"message": "hello"}, "trigger-long-running-operation", map[string]any{"duration": 20, "steps": 20}
			}
			start("")
			section := fmt.Sprintf("front:\n  mcp:\n    - {name: srv, http: {url: \"http://%s/mcp\"}}\n", addr)
			if tt.kind == "publish" {
				section = fmt.Sprintf("publish:\n  - {name: srv, http: {url: \"http://%s/mcp\"}, tool_timeout: 60s}\n", addr)
			}
			slowChecks := strings.Replace(baseConfig(), "check_interval: 500ms", "check_interval: 60s", 1)
			b := startBridge(t, slowChecks+section)
			var host *MCPHost
			if tt.kind == "front.mcp" {
				host = dialMCP(t, b.URL+"/mcp")
			}
			call := func(tool string, args map[string]any, want string) error {
				if tt.kind == "publish" {
					return a2aOK(t, b.URL+"/a2a/srv", toolMessage(tool, args), want)
				}
				return host.callOK(t, "srv_"+tool, args, want)
			}
			if err := call(tool, args, "hello"); err != nil {
				t.Fatalf("before the restart: %v", err)
			}

			// 1. Restarted between two calls: the next call meets the
			// lost session.
			if tt.answer == "404" {
				peer.Stop()
			}
			restarted := time.Now()
			if tt.answer == "404" {
				start("")
			} else {
				peer.Restart()
			}
			first := call(tool, args, "hello")
			if first != nil {
				noAddress(t, "the call that met the lost session", first.Error(), addr, "connection refused")
				if !strings.Contains(first.Error(), "went away") {
					t.Errorf("the call that met the lost session: %v, want it to say the server went away", first)
				}
			}
			took := bridgetest.Eventually(t, recoverBound, "a call works after the restart", func() error { return call(tool, args, "hello") })
			if first == nil {
				t.Errorf("the first call after the restart worked: the lost session (%s) was not met", tt.answer)
			}
			reason := "the server no longer knows the session (" + tt.answer + ")"
			if _, ok := b.LogLine("MCP server went away; reconnecting", map[string]string{"reason": reason}); !ok {
				t.Errorf("no log line saying %q", reason)
			}
			t.Logf("%s: restarted: the call after it failed once (%v); the next worked %s later (%s after the restart)",
				tt.name, first, took.Round(time.Millisecond), time.Since(restarted).Round(time.Millisecond))

			// 2. Killed during a call, back with one more tool.
			inflight := make(chan string, 1)
			go func() {
				if tt.kind == "publish" {
					_, res, rpcErr := a2aCall(t, b.URL+"/a2a/srv", "SendMessage", toolMessage(slow, slowArgs))
					if rpcErr != nil {
						inflight <- "error: " + rpcErr.Message
						return
					}
					r := decodeA2AResult(res)
					inflight <- r.State + ": " + r.Text
					return
				}
				_, text, err := host.Call(t, "srv_"+slow, slowArgs)
				if err != nil {
					text = "error: " + err.Error()
				}
				inflight <- text
			}()
			// The call reaches the server. A sleep, not a wait: neither
			// peer (server-everything, mcptestserver) says when a call
			// starts, and the bridge counts a call when it ends.
			time.Sleep(500 * time.Millisecond)
			peer.Kill()
			killed := time.Now()
			select {
			case text := <-inflight:
				if tt.kind == "publish" && !strings.HasPrefix(text, "TASK_STATE_FAILED") || !strings.Contains(text, "went away") {
					t.Errorf("the call in flight: %q, want it failed saying the server went away", text)
				}
				noAddress(t, "the call in flight", text, addr, "connection refused")
			case <-time.After(recoverBound):
				t.Fatal("the call in flight did not end when the server was killed")
			}
			failedIn := time.Since(killed)
			bridgetest.Eventually(t, recoverBound, "readyz says the server is down", func() error { return upstreamIs(t, b, tt.kind, "srv", "down") })
			if err := upMetric(t, b, tt.kind, "srv", 0); err != nil {
				t.Error(err)
			}
			if tt.answer == "404" {
				start("added")
			} else {
				peer.Start()
			}
			took = bridgetest.Eventually(t, recoverBound, "a call works once the server is back", func() error { return call(tool, args, "hello") })
			bridgetest.Eventually(t, recoverBound, "readyz says the server is up", func() error { return upstreamIs(t, b, tt.kind, "srv", "up") })
			if err := upMetric(t, b, tt.kind, "srv", 1); err != nil {
				t.Error(err)
			}
			t.Logf("%s: killed mid-call: the call failed %s after the kill; calls work %s after the server was back",
				tt.name, failedIn.Round(time.Millisecond), took.Round(time.Millisecond))
			if tt.answer != "404" {
				return
			}
			if tt.kind == "front.mcp" {
				bridgetest.Eventually(t, recoverBound, "the new tool listed", func() error {
					if !host.HasTool(t, "srv_added") {
						return fmt.Errorf("srv_added not listed")
					}
					return nil
				})
				if host.ListChanged() == 0 {
					t.Error("the MCP host got no notifications/tools/list_changed")
				}
				return
			}
			bridgetest.Eventually(t, recoverBound, "the card has the new skill", func() error {
				_, body := bridgetest.Get(t, b.URL+"/a2a/srv/.well-known/agent-card.json")
				if !strings.Contains(string(body), `"id":"added"`) {
					return fmt.Errorf("card without the new skill")
				}
				return nil
			})
		})
	}
}

// childPIDs lists the processes whose parent is pid and whose command
// name is comm.
func childPIDs(t *testing.T, pid int, comm string) []int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(stat)
		open, closeParen := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closeParen < open {
			continue
		}
		fields := strings.Fields(s[closeParen+1:])
		if len(fields) < 2 || s[open+1:closeParen] != comm {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == pid {
			out = append(out, n)
		}
	}
	return out
}

// TestFault_StdioChildKilled: the stdio MCP server the bridge runs is
// SIGKILLed during a call. The call fails once, saying the server went
// away; the bridge starts a new child and the next call works.
func TestFault_StdioChildKilled(t *testing.T) {
	bin := bridgetest.MCPTestServerBinary(t)
	b := startBridge(t, baseConfig()+fmt.Sprintf(`publish:
  - {name: tools, stdio: {command: %q}, tool_timeout: 30s}
front:
  mcp:
    - {name: files, stdio: {command: %q}}
`, bin, bin))
	host := dialMCP(t, b.URL+"/mcp")
	if err := host.callOK(t, "files_echo", map[string]any{"text": "before"}, "before"); err != nil {
		t.Fatal(err)
	}
	if err := a2aOK(t, b.URL+"/a2a/tools", toolMessage("echo", map[string]any{"text": "before"}), "before"); err != nil {
		t.Fatal(err)
	}
	kids := childPIDs(t, b.PID(), "mcptestserver")
	if len(kids) != 2 {
		t.Fatalf("the bridge runs %d mcptestserver children, want 2", len(kids))
	}
	inflight := make(chan string, 2)
	go func() {
		_, text, err := host.Call(t, "files_block", map[string]any{})
		if err != nil {
			text = "error: " + err.Error()
		}
		inflight <- "front.mcp: " + text
	}()
	go func() {
		_, res, rpcErr := a2aCall(t, b.URL+"/a2a/tools", "SendMessage", toolMessage("block", map[string]any{}))
		if rpcErr != nil {
			inflight <- "publish: error: " + rpcErr.Message
			return
		}
		r := decodeA2AResult(res)
		inflight <- "publish: " + r.State + ": " + r.Text
	}()
	time.Sleep(500 * time.Millisecond) // both calls reach their child (no signal to wait on, as above)
	killed := time.Now()
	for _, pid := range kids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for range 2 {
		select {
		case text := <-inflight:
			if !strings.Contains(text, "went away") || strings.HasPrefix(text, "publish") && !strings.Contains(text, "TASK_STATE_FAILED") {
				t.Errorf("the call in flight: %q, want it failed saying the server went away", text)
			}
		case <-time.After(recoverBound):
			t.Fatal("a call in flight did not end when its child was killed")
		}
	}
	tookFront := bridgetest.Eventually(t, recoverBound, "front.mcp call after the kill", func() error {
		return host.callOK(t, "files_echo", map[string]any{"text": "after"}, "after")
	})
	tookPub := bridgetest.Eventually(t, recoverBound, "publish call after the kill", func() error {
		return a2aOK(t, b.URL+"/a2a/tools", toolMessage("echo", map[string]any{"text": "after"}), "after")
	})
	t.Logf("stdio child SIGKILLed: front.mcp call works %s after the kill, publish %s after that (%s in all)",
		tookFront.Round(time.Millisecond), tookPub.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
	if now := childPIDs(t, b.PID(), "mcptestserver"); len(now) != 2 || now[0] == kids[0] && now[1] == kids[1] {
		t.Errorf("children after the kill: %v (before %v)", now, kids)
	}
	if v, ok := bridgetest.Metric(t, b.URL, "bridge_upstream_restarts_total", map[string]string{"upstream": "front/files"}); !ok || v < 1 {
		t.Errorf("bridge_upstream_restarts_total{upstream=front/files} = %v", v)
	}
}

// TestFault_FrontedAgentKilledAndRestarted: the fronted @a2a-js/sdk agent
// is SIGKILLed. Calls are answered AGENT_UNAVAILABLE (JSON-RPC -32603,
// ErrorInfo reason) naming the agent, never its address; /readyz and
// bridge_upstream_up say it is down within a check; once it is restarted
// the bridge serves it again.
func TestFault_FrontedAgentKilledAndRestarted(t *testing.T) {
	addr := bridgetest.FreeAddr(t)
	agent := startA2AJS(t, addr)
	b := startBridge(t, baseConfig()+fmt.Sprintf("front:\n  a2a:\n    - {name: research, url: \"http://%s\"}\n", addr))
	url := b.URL + "/a2a/research"
	if err := a2aOK(t, url, textMessage("hello"), "echo: hello"); err != nil {
		t.Fatalf("before: %v", err)
	}
	agent.Kill()
	killed := time.Now()
	status, _, rpcErr := a2aCall(t, url, "SendMessage", textMessage("hello"))
	if rpcErr == nil || rpcErr.Code != -32603 || rpcErr.Reason() != "AGENT_UNAVAILABLE" || status != http.StatusOK {
		t.Fatalf("call while the agent is down: HTTP %d %+v", status, rpcErr)
	}
	if !strings.Contains(rpcErr.Message, "agent research is unavailable") {
		t.Errorf("message %q does not name the agent", rpcErr.Message)
	}
	noAddress(t, "the error", rpcErr.Message, addr, "connection refused")
	noticed := bridgetest.Eventually(t, recoverBound, "readyz says the agent is down", func() error {
		return upstreamIs(t, b, "front.a2a", "research", "down")
	})
	if err := upMetric(t, b, "front.a2a", "research", 0); err != nil {
		t.Error(err)
	}
	code, r, body := bridgetest.Readyz(t, b.URL)
	if code != http.StatusServiceUnavailable || len(r.NotReady) != 1 || !strings.HasPrefix(r.NotReady[0], "front.a2a research: down: card fetch failed: connection refused") {
		t.Errorf("readyz %d: %s", code, body)
	}
	noAddress(t, "/readyz", body, addr)
	if _, ok := b.LogLine("upstream down", map[string]string{"upstream": "research", "kind": "front.a2a"}); !ok {
		t.Error("no \"upstream down\" log line")
	}
	agent.Start()
	back := time.Now()
	took := bridgetest.Eventually(t, recoverBound, "a call works once the agent is back", func() error {
		return a2aOK(t, url, textMessage("again"), "echo: again")
	})
	bridgetest.Eventually(t, recoverBound, "readyz says the agent is up", func() error { return upstreamIs(t, b, "front.a2a", "research", "up") })
	t.Logf("fronted agent SIGKILLed: down in /readyz %s after the kill; calls work %s after it was back (readyz up %s)",
		noticed.Round(time.Millisecond), took.Round(time.Millisecond), time.Since(back).Round(time.Millisecond))
	_ = killed
}
