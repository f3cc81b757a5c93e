// Command load is the benchmark suite's own load generator, for what wrk
// cannot measure. Every mode talks to one loopback URL, is bounded in
// requests and time, and prints one JSON object on stdout.
//
//	load -mode rate -url U [-token T] -rate 500 -duration 10s   open loop, latency from the scheduled send time
//	load -mode ttfe -url U [-token T] -n 300                    time to first SSE event of SendStreamingMessage
//	load -mode idle -url U [-token T] -pid P -steps 1000,5000  RSS of process P per idle SubscribeToTask stream
//	                [-settle URL -inuse METRICS]                and its Go heap and stacks in use after a collection
//	load -mode check -url U [-token T]                          one call; fails unless it succeeded
//
// -call chooses what rate and check send (default a2a):
//
//	a2a          A2A SendMessage (JSON-RPC, blocking): done when the answer is a completed task
//	a2a-stream   A2A SendStreamingMessage: done at the event that completes the task
//	mcp          MCP tools/call (streamable HTTP, stateless): done at the result
//	mcp-stream   tools/call with a progress token: the answer streams; done at the result
//	grpc         A2A SendMessage over gRPC (h2c, to -url's host:port, agent -tenant): done at a completed task
//	grpc-stream  A2A SendStreamingMessage over gRPC: done at the event that completes the task
//
// -text is the A2A message's text; -data, if set, a data part instead
// (a published MCP tool: {"tool":"echo","arguments":{…}}); -tool and -args
// name the MCP tool and its arguments. For streaming calls, rate also
// reports the time to the first event (ttfe_p50_us, ttfe_p99_us).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// maxRequests bounds every mode, whatever the flags say.
const maxRequests = 200_000

type config struct {
	mode     string
	call     string
	text     string
	data     string
	tool     string
	args     string
	url      string
	token    string
	rate     int
	duration time.Duration
	warmup   time.Duration
	n        int
	pid      int
	steps    string
	settle   string
	inuse    string
	inflight int
	tenant   string
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "", "rate, ttfe, idle or check")
	flag.StringVar(&c.call, "call", "a2a", "a2a, a2a-stream, mcp, mcp-stream, grpc or grpc-stream (modes rate and check)")
	flag.StringVar(&c.tenant, "tenant", "", "the agent a gRPC call names (its card's GRPC interface tenant)")
	flag.StringVar(&c.text, "text", "hello from the benchmark", "text of the A2A message")
	flag.StringVar(&c.data, "data", "", "a data part (JSON object) sent instead of -text")
	flag.StringVar(&c.tool, "tool", "echo", "MCP tool to call")
	flag.StringVar(&c.args, "args", `{"text":"hello from the benchmark"}`, "MCP tool arguments (JSON object)")
	flag.StringVar(&c.url, "url", "", "JSON-RPC endpoint (loopback only)")
	flag.StringVar(&c.token, "token", "", "bearer token (optional)")
	flag.IntVar(&c.rate, "rate", 500, "requests per second (mode rate)")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "measured duration (mode rate)")
	flag.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured warm-up (mode rate)")
	flag.IntVar(&c.n, "n", 300, "sequential requests (mode ttfe)")
	flag.IntVar(&c.pid, "pid", 0, "process whose VmRSS is read (mode idle)")
	flag.StringVar(&c.steps, "steps", "1000,5000", "stream counts at which RSS is read (mode idle)")
	flag.StringVar(&c.settle, "settle", "", "URL POSTed before a second read at each step, to collect garbage in the measured process (mode idle; empty: none)")
	flag.StringVar(&c.inuse, "inuse", "", "Prometheus metrics URL of the measured process: after -settle, go_memstats_heap_inuse_bytes + go_memstats_stack_inuse_bytes are read at each step (mode idle)")
	flag.IntVar(&c.inflight, "inflight", 512, "most requests in flight (mode rate)")
	flag.Parse()
	out, err := run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

func run(c config) (any, error) {
	u, err := url.Parse(c.url)
	if err != nil || u.Scheme != "http" {
		return nil, errors.New("-url must be an http URL")
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return nil, errors.New("-url must name a loopback address")
	}
	raiseFileLimit()
	if c.data != "" && !json.Valid([]byte(c.data)) || !json.Valid([]byte(c.args)) {
		return nil, errors.New("-data and -args must be JSON")
	}
	switch c.call {
	case "a2a", "a2a-stream", "mcp", "mcp-stream", "grpc", "grpc-stream":
	default:
		return nil, errors.New("-call must be a2a, a2a-stream, mcp, mcp-stream, grpc or grpc-stream")
	}
	if strings.HasPrefix(c.call, "grpc") && c.mode != "rate" && c.mode != "check" {
		return nil, errors.New("-call grpc and grpc-stream run in modes rate and check")
	}
	switch c.mode {
	case "rate":
		return rateMode(c)
	case "ttfe":
		return ttfeMode(c)
	case "idle":
		return idleMode(c)
	case "check":
		return checkMode(c)
	}
	return nil, errors.New("-mode must be rate, ttfe, idle or check")
}

// raiseFileLimit lifts the soft open-file limit to the hard one (idle
// streams need one descriptor each).
func raiseFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil && l.Cur < l.Max {
		l.Cur = l.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

var seq atomic.Int64

func sendBody(method, text string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"message":{"messageId":"load-%d-%d","role":"ROLE_USER","parts":[{"text":%q}]}}}`,
		seq.Add(1), method, os.Getpid(), seq.Load(), text)
}

// callBody is the request body of one call of kind c.call.
func callBody(c config) []byte {
	n := seq.Add(1)
	switch c.call {
	case "mcp", "mcp-stream":
		meta := ""
		if c.call == "mcp-stream" {
			meta = fmt.Sprintf(`,"_meta":{"progressToken":"p-%d"}`, n)
		}
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, n, c.tool, c.args, meta)
	}
	method := "SendMessage"
	if c.call == "a2a-stream" {
		method = "SendStreamingMessage"
	}
	part := fmt.Sprintf(`{"text":%q}`, c.text)
	if c.data != "" {
		part = `{"data":` + c.data + `}`
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"message":{"messageId":"load-%d-%d","role":"ROLE_USER","parts":[%s]}}}`,
		n, method, os.Getpid(), n, part)
}

func newRequest(ctx context.Context, c config, body []byte) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	switch c.call {
	case "mcp", "mcp-stream":
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	case "a2a-stream":
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("A2A-Version", "1.0")
	default:
		req.Header.Set("A2A-Version", "1.0")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req
}

// completed reports whether a blocking SendMessage answer is a completed task.
func completed(resp *http.Response, err error) bool {
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return err == nil && resp.StatusCode == http.StatusOK && bytes.Contains(b, []byte("TASK_STATE_COMPLETED")) && !bytes.Contains(b, []byte(`"error"`))
}

// finalMCP reports whether one JSON-RPC message of an MCP answer is a
// successful tools/call result.
func finalMCP(msg []byte) (final, ok bool) {
	if !bytes.Contains(msg, []byte(`"result"`)) && !bytes.Contains(msg, []byte(`"error"`)) {
		return false, false // a notification
	}
	return true, bytes.Contains(msg, []byte(`"result"`)) && !bytes.Contains(msg, []byte(`"isError":true`))
}

// finalA2A reports whether one event of an A2A stream ends it, and well.
func finalA2A(ev []byte) (final, ok bool) {
	switch {
	case bytes.Contains(ev, []byte(`"error"`)):
		return true, false
	case bytes.Contains(ev, []byte("TASK_STATE_COMPLETED")):
		return true, true
	case bytes.Contains(ev, []byte("TASK_STATE_FAILED")), bytes.Contains(ev, []byte("TASK_STATE_CANCELED")), bytes.Contains(ev, []byte("TASK_STATE_REJECTED")):
		return true, false
	}
	return false, false
}

// do sends one call and reads its answer to the end: it returns whether the
// call succeeded and, for an event stream, when its first event arrived.
func do(client *http.Client, c config, ctx context.Context) (ok bool, first time.Time) {
	if strings.HasPrefix(c.call, "grpc") {
		return grpcDo(ctx, c)
	}
	resp, err := client.Do(newRequest(ctx, c, callBody(c)))
	if c.call == "a2a" {
		return completed(resp, err), time.Time{}
	}
	if err != nil {
		return false, time.Time{}
	}
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body) //nolint:errcheck // drain for reuse
	if resp.StatusCode != http.StatusOK {
		return false, time.Time{}
	}
	final := finalA2A
	if c.call != "a2a-stream" {
		final = finalMCP
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if c.call == "a2a-stream" {
			return false, time.Time{}
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		_, ok := final(b)
		return err == nil && ok, time.Time{}
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return false, first
		}
		data, isData := bytes.CutPrefix(line, []byte("data:"))
		if !isData {
			continue
		}
		if first.IsZero() {
			first = time.Now()
		}
		if done, ok := final(data); done {
			return ok, first
		}
	}
}

func checkMode(c config) (any, error) {
	if ok, _ := do(http.DefaultClient, c, context.Background()); !ok {
		return nil, fmt.Errorf("check %s: the %s call did not succeed", c.url, c.call)
	}
	return map[string]any{"ok": true}, nil
}

// percentiles returns p50, p90, p99 and max of d in microseconds.
func percentiles(d []time.Duration) map[string]float64 {
	if len(d) == 0 {
		return map[string]float64{}
	}
	slices.Sort(d)
	at := func(q float64) float64 {
		i := int(q * float64(len(d)-1))
		return float64(d[i].Microseconds())
	}
	return map[string]float64{"p50_us": at(0.50), "p90_us": at(0.90), "p99_us": at(0.99), "max_us": float64(d[len(d)-1].Microseconds())}
}

// rateMode sends at a fixed rate (open loop) and measures each latency from
// the request's scheduled send time, so a stalled server is not hidden by a
// waiting client (coordinated omission).
func rateMode(c config) (any, error) {
	if c.rate <= 0 || c.duration <= 0 {
		return nil, errors.New("-rate and -duration must be positive")
	}
	total := int((c.warmup + c.duration).Seconds() * float64(c.rate))
	if total > maxRequests {
		return nil, fmt.Errorf("rate × duration exceeds %d requests", maxRequests)
	}
	warm := int(c.warmup.Seconds() * float64(c.rate))
	tr := &http.Transport{MaxIdleConnsPerHost: c.inflight, MaxConnsPerHost: c.inflight}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()

	lat := make([]time.Duration, total)
	ttfe := make([]time.Duration, total)
	var errs atomic.Int64
	sem := make(chan struct{}, c.inflight)
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(c.rate)
	start := time.Now()
	for i := range total {
		sched := start.Add(time.Duration(i) * interval)
		if d := time.Until(sched); d > 0 {
			time.Sleep(d)
		}
		sem <- struct{}{}
		wg.Add(1)
		go func(i int, sched time.Time) {
			defer func() { <-sem; wg.Done() }()
			ok, first := do(client, c, context.Background())
			if !ok {
				errs.Add(1)
			}
			lat[i] = time.Since(sched)
			if !first.IsZero() {
				ttfe[i] = first.Sub(sched)
			}
		}(i, sched)
	}
	wg.Wait()
	elapsed := time.Since(start)
	out := map[string]any{
		"mode": "rate", "call": c.call, "rate": c.rate, "requests": total - warm, "errors": errs.Load(),
		"achieved_rps": float64(total) / elapsed.Seconds(),
	}
	for k, v := range percentiles(lat[warm:]) {
		out[k] = v
	}
	var firsts []time.Duration
	for _, d := range ttfe[warm:] {
		if d > 0 {
			firsts = append(firsts, d)
		}
	}
	if len(firsts) > 0 {
		for k, v := range percentiles(firsts) {
			out["ttfe_"+k] = v
		}
	}
	return out, nil
}

// firstEvent reads an SSE body up to the end of its first data line.
func firstEvent(r *bufio.Reader) error {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("stream ended before the first event: %w", err)
		}
		if strings.HasPrefix(line, "data:") {
			return nil
		}
	}
}

func sseResponse(client *http.Client, c config, ctx context.Context, body []byte) (*http.Response, *bufio.Reader, error) {
	req := newRequest(ctx, c, body)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("want an event stream, got HTTP %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp, bufio.NewReader(resp.Body), nil
}

// ttfeMode measures, over n sequential SendStreamingMessage calls on a kept
// alive connection, the time from sending the request to the first event.
func ttfeMode(c config) (any, error) {
	if c.n <= 0 || c.n > maxRequests {
		return nil, errors.New("-n out of range")
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	const warm = 20
	var lat []time.Duration
	for i := range c.n + warm {
		t0 := time.Now()
		resp, br, err := sseResponse(client, c, context.Background(), sendBody("SendStreamingMessage", "hello from the benchmark"))
		if err != nil {
			return nil, err
		}
		err = firstEvent(br)
		d := time.Since(t0)
		_, _ = io.Copy(io.Discard, br)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if i >= warm {
			lat = append(lat, d)
		}
	}
	out := map[string]any{"mode": "ttfe", "requests": c.n}
	for k, v := range percentiles(lat) {
		out[k] = v
	}
	return out, nil
}

// rssKiB reads VmRSS of pid.
func rssKiB(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS")
}

// idleMode starts a task that stays WORKING, then opens SubscribeToTask
// streams to it and holds them idle, reading the RSS of -pid at each step
// once every stream has received its first event. The KiB per stream is the
// slope between the first and the last step.
func idleMode(c config) (any, error) {
	if c.pid <= 0 {
		return nil, errors.New("-pid is required")
	}
	var steps []int
	for _, s := range strings.Split(c.steps, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 || n > 20_000 || (len(steps) > 0 && n <= steps[len(steps)-1]) {
			return nil, errors.New("-steps must be increasing counts up to 20000")
		}
		steps = append(steps, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The long task, created without waiting for its end.
	hold := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"hold-%d-%d","role":"ROLE_USER","parts":[{"text":"hold"}]},"configuration":{"returnImmediately":true}}}`, os.Getpid(), time.Now().UnixNano())
	resp, err := http.DefaultClient.Do(newRequest(ctx, c, hold))
	if err != nil {
		return nil, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var created struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &created); err != nil || created.Result.Task.ID == "" {
		return nil, fmt.Errorf("create the long task: HTTP %d %.200s", resp.StatusCode, b)
	}
	sub := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":2,"method":"SubscribeToTask","params":{"id":%q}}`, created.Result.Task.ID)

	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableKeepAlives: true}
	client := &http.Client{Transport: tr}
	var bodies []io.Closer
	defer func() {
		for _, b := range bodies {
			b.Close()
		}
		// Cancel the long task so it does not outlive the run.
		cb := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":3,"method":"CancelTask","params":{"id":%q}}`, created.Result.Task.ID)
		if r, err := http.DefaultClient.Do(newRequest(context.Background(), c, cb)); err == nil {
			r.Body.Close()
		}
	}()
	open := func(n int) error {
		var mu sync.Mutex
		var firstErr error
		sem := make(chan struct{}, 32)
		var wg sync.WaitGroup
		for range n {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				resp, br, err := sseResponse(client, c, ctx, sub)
				if err == nil {
					if err = firstEvent(br); err != nil {
						resp.Body.Close()
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					return
				}
				bodies = append(bodies, resp.Body)
			}()
		}
		wg.Wait()
		return firstErr
	}
	type point struct {
		Streams int   `json:"streams"`
		RSSKiB  int64 `json:"rss_kib"`
		// SettledKiB is the RSS after the process collected its garbage
		// (-settle): what the streams retain, if the process returned the
		// rest to the OS.
		SettledKiB int64 `json:"settled_rss_kib,omitempty"`
		// InuseKiB is the Go heap and stacks in use after that collection
		// (-inuse): what the streams retain, whatever the OS was given back.
		InuseKiB int64 `json:"inuse_kib,omitempty"`
	}
	read := func(n int) (point, error) {
		r, err := rssKiB(c.pid)
		if err != nil || c.settle == "" {
			return point{Streams: n, RSSKiB: r}, err
		}
		resp, err := http.Post(c.settle, "text/plain", nil)
		if err != nil {
			return point{}, fmt.Errorf("settle: %w", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		time.Sleep(200 * time.Millisecond)
		sr, err := rssKiB(c.pid)
		if err != nil {
			return point{}, err
		}
		p := point{Streams: n, RSSKiB: r, SettledKiB: sr}
		if c.inuse != "" {
			if p.InuseKiB, err = goInuseKiB(c.inuse); err != nil {
				return point{}, err
			}
		}
		return p, nil
	}
	var points []point
	base, err := read(0)
	if err != nil {
		return nil, err
	}
	points = append(points, base)
	for _, target := range steps {
		if err := open(target - len(bodies)); err != nil {
			return nil, fmt.Errorf("open streams (%d open): %w", len(bodies), err)
		}
		time.Sleep(time.Second) // let the server settle
		p, err := read(len(bodies))
		if err != nil {
			return nil, err
		}
		points = append(points, p)
	}
	first, last := points[1], points[len(points)-1]
	out := map[string]any{"mode": "idle", "points": points,
		"kib_per_stream": float64(last.RSSKiB-first.RSSKiB) / float64(last.Streams-first.Streams)}
	if c.settle != "" {
		out["kib_per_stream_settled"] = float64(last.SettledKiB-first.SettledKiB) / float64(last.Streams-first.Streams)
	}
	if c.inuse != "" {
		out["kib_per_stream_inuse"] = float64(last.InuseKiB-first.InuseKiB) / float64(last.Streams-first.Streams)
	}
	return out, nil
}

// goInuseKiB reads the Go heap and stacks in use from a Prometheus text
// endpoint (the Go collector's go_memstats gauges).
func goInuseKiB(url string) (int64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", url, err)
	}
	defer resp.Body.Close()
	var total float64
	found := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || (name != "go_memstats_heap_inuse_bytes" && name != "go_memstats_stack_inuse_bytes") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return 0, fmt.Errorf("read %s: %s: %w", url, name, err)
		}
		total += v
		found++
	}
	if found != 2 {
		return 0, fmt.Errorf("read %s: go_memstats_heap_inuse_bytes and go_memstats_stack_inuse_bytes not both found", url)
	}
	return int64(total / 1024), sc.Err()
}
