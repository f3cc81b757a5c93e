package bench_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/bench"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/listener"
	"github.com/a2a-mcp-bridge/bridge/internal/bridgetest"
	"github.com/a2a-mcp-bridge/bridge/internal/syncbuf"
	"github.com/a2a-mcp-bridge/bridge/observe"
)

// serveEnv is `bridge serve` built in process from bench/bridge.yaml (the
// JWT, the CEL policy, both rate-limit rules, signed cards, metrics, the
// JSON access and audit log to a discarding writer, the memory store) on
// its own listener, in front of the bench's fast agent.
type serveEnv struct {
	url   string // the fronted agent's face, /a2a/bench
	token string
}

func newServeEnv(tb testing.TB, logOut io.Writer) *serveEnv {
	tb.Helper()
	var upH http.Handler
	upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { upH.ServeHTTP(w, r) }))
	up, err := bench.NewUpstream(upSrv.URL, nil)
	if err != nil {
		tb.Fatal(err)
	}
	upH = up.Handler
	mcpSrv := httptest.NewServer(bench.NewMCPServer(nil))
	l := &listener.Listener{Addr: "127.0.0.1:0", Grace: time.Second}
	if err := l.Listen(); err != nil {
		tb.Fatal(err)
	}
	addr := l.BoundAddr()
	keys, err := bench.WriteServeKeys(tb.TempDir(), "http://"+addr)
	if err != nil {
		tb.Fatal(err)
	}
	port := func(u string) string { return u[strings.LastIndexByte(u, ':')+1:] }
	for k, v := range map[string]string{
		"BENCH_LISTEN": addr, "BENCH_KEYS": strings.TrimSuffix(keys.JWKS, "/jwks.json"),
		"BENCH_UPSTREAM": upSrv.URL, "BENCH_MCP": mcpSrv.URL + "/mcp",
		"BENCH_PORTS_UP": port(upSrv.URL), "BENCH_PORTS_MCP": port(mcpSrv.URL), "BENCH_RETAIN": "10s",
	} {
		tb.Setenv(k, v)
	}
	cfg, err := config.Load("bridge.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	log := observe.Logger(observe.LogConfig{Format: cfg.Observability.LogFormat, Output: logOut})
	ctx, cancel := context.WithCancel(context.Background())
	reg := prometheus.NewRegistry()
	b, err := gateway.Build(ctx, cfg, gateway.Options{Logger: log, PublicURL: "http://" + addr, Registry: reg})
	if err != nil {
		tb.Fatal(err)
	}
	l.Handler, l.Log = b.Handler(), log
	l.OnDrain, l.Settle, l.Stop = b.GoingAway, b.Settle, b.Stop
	var wg sync.WaitGroup
	wg.Go(func() { b.Run(ctx) })
	wg.Go(func() { _ = l.Serve(ctx) })
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
		b.Close()
		mcpSrv.Close()
		upSrv.Close()
		up.Manager.Wait()
	})
	return &serveEnv{url: "http://" + addr + "/a2a/bench", token: keys.Token}
}

// BenchmarkServeSendMessage posts a blocking JSON-RPC SendMessage over
// loopback through `bridge serve` as bench/run.sh starts it: the whole
// front path (listener, metrics, access log, span, authentication, policy,
// rate limits, task store, the relayed call through netguard). Client,
// bridge and agent share the process: allocs/op minus
// BenchmarkSendMessage/direct's is the bridge's own cost per request;
// cpu-ns/op is the whole process's CPU time per call.
func BenchmarkServeSendMessage(b *testing.B) {
	e := newServeEnv(b, io.Discard)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer c.CloseIdleConnections()
	if code, body := post(b, c, e.url, e.token, sendBody); code != http.StatusOK || !strings.Contains(body, "TASK_STATE_COMPLETED") {
		b.Fatalf("warm-up: %d %s", code, body)
	}
	b.ReportAllocs()
	cpu0 := bridgetest.ProcessCPU()
	for b.Loop() {
		if code, body := post(b, c, e.url, e.token, sendBody); code != http.StatusOK || !strings.Contains(body, "TASK_STATE_COMPLETED") {
			b.Fatalf("%d %s", code, body)
		}
	}
	bridgetest.ReportCPUPerOp(b, cpu0)
}

// TestServeFrontCallLogsAndCountsAsBefore pins what one blocking
// SendMessage through bridge serve writes and counts: its policy decision
// and access log lines, field by field (time, duration and request id
// aside), and the series it adds to; a change to the front path that
// drops or alters an audit field, a log line or a count fails here.
func TestServeFrontCallLogsAndCountsAsBefore(t *testing.T) {
	var logs syncbuf.Buffer
	e := newServeEnv(t, &logs)
	if code, body := post(t, http.DefaultClient, e.url, e.token, sendBody); code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	volatile := regexp.MustCompile(`"time":"[^"]*",|"duration":"[^"]*",|,"request_id":"[0-9a-f-]{36}"`)
	want := []string{
		`{"level":"INFO","msg":"policy decision","who":"jwks:bench-client@https://idp.bench.invalid","face":"a2a","direction":"front_a2a","agent":"bench","skill":"","tool":"","method":"SendMessage","decision":"allow","rule":"staff-bench","default":false,"code":"allow_rule","reason":"allowed by rule"}`,
		`{"level":"INFO","msg":"request","who":"jwks:bench-client@https://idp.bench.invalid","face":"a2a","method":"SendMessage","agent":"bench","http_method":"POST","path":"/a2a/bench","status":200,"remote":"127.0.0.1","bytes_in":157}`,
	}
	var got []string
	// The access line is written once the response is out: wait for it.
	for deadline := time.Now().Add(5 * time.Second); ; {
		got = got[:0]
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, `"msg":"policy decision"`) || strings.Contains(l, `"msg":"request"`) {
				if !strings.Contains(l, `"request_id":"`) {
					t.Errorf("no request id: %s", l)
				}
				got = append(got, volatile.ReplaceAllString(l, ""))
			}
		}
		if len(got) >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("log lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	code, metrics := get(t, strings.TrimSuffix(e.url, "/a2a/bench")+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("metrics: %d", code)
	}
	for _, series := range []string{
		`bridge_policy_decisions_total{decision="allow",face="a2a",rule="staff-bench"} 1`,
		`bridge_request_duration_seconds_count{face="a2a",method="SendMessage"} 1`,
		`bridge_requests_total{face="a2a",method="SendMessage",outcome="2xx"} 1`,
		`bridge_skill_call_duration_seconds_count{agent="bench",skill="unknown"} 1`,
		`bridge_skill_calls_total{agent="bench",outcome="ok",skill="unknown"} 1`,
		`bridge_ratelimit_hits_total{rule="per-principal"} 0`,
		`bridge_ratelimit_hits_total{rule="per-principal-method"} 0`,
	} {
		if !strings.Contains(metrics, "\n"+series+"\n") {
			t.Errorf("metrics lack %s", series)
		}
	}
}

func get(tb testing.TB, url string) (int, string) {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
