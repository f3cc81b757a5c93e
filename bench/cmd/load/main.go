// Command load is the benchmark suite's own load generator, for what wrk
// cannot measure. Every mode talks to one loopback URL, is bounded in
// requests and time, and prints one JSON object on stdout.
//
//	load -mode rate -url U [-token T] -rate 500 -duration 10s   open loop, latency from the scheduled send time
//	load -mode ttfe -url U [-token T] -n 300                    time to first SSE event of SendStreamingMessage
//	load -mode idle -url U [-token T] -pid P -steps 1000,5000  RSS of process P per idle SubscribeToTask stream
//	load -mode check -url U [-token T]                          one SendMessage; fails unless the task completed
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
	url      string
	token    string
	rate     int
	duration time.Duration
	warmup   time.Duration
	n        int
	pid      int
	steps    string
	settle   string
	inflight int
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "", "rate, ttfe, idle or check")
	flag.StringVar(&c.url, "url", "", "JSON-RPC endpoint (loopback only)")
	flag.StringVar(&c.token, "token", "", "bearer token (optional)")
	flag.IntVar(&c.rate, "rate", 500, "requests per second (mode rate)")
	flag.DurationVar(&c.duration, "duration", 10*time.Second, "measured duration (mode rate)")
	flag.DurationVar(&c.warmup, "warmup", 2*time.Second, "unmeasured warm-up (mode rate)")
	flag.IntVar(&c.n, "n", 300, "sequential requests (mode ttfe)")
	flag.IntVar(&c.pid, "pid", 0, "process whose VmRSS is read (mode idle)")
	flag.StringVar(&c.steps, "steps", "1000,5000", "stream counts at which RSS is read (mode idle)")
	flag.StringVar(&c.settle, "settle", "", "URL POSTed before a second RSS read at each step, to collect garbage in the measured process (mode idle; empty: none)")
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

func newRequest(ctx context.Context, c config, body []byte) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
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

func checkMode(c config) (any, error) {
	resp, err := http.DefaultClient.Do(newRequest(context.Background(), c, sendBody("SendMessage", "hello")))
	if !completed(resp, err) {
		return nil, fmt.Errorf("check %s: the SendMessage did not complete (%v)", c.url, err)
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
			resp, err := client.Do(newRequest(context.Background(), c, sendBody("SendMessage", "hello from the benchmark")))
			if !completed(resp, err) {
				errs.Add(1)
			}
			lat[i] = time.Since(sched)
		}(i, sched)
	}
	wg.Wait()
	elapsed := time.Since(start)
	out := map[string]any{
		"mode": "rate", "rate": c.rate, "requests": total - warm, "errors": errs.Load(),
		"achieved_rps": float64(total) / elapsed.Seconds(),
	}
	for k, v := range percentiles(lat[warm:]) {
		out[k] = v
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
		// (-settle): what the streams retain.
		SettledKiB int64 `json:"settled_rss_kib,omitempty"`
	}
	read := func(n int) (point, error) {
		r, err := rssKiB(c.pid)
		if err != nil || c.settle == "" {
			return point{n, r, 0}, err
		}
		resp, err := http.Post(c.settle, "text/plain", nil)
		if err != nil {
			return point{}, fmt.Errorf("settle: %w", err)
		}
		resp.Body.Close()
		time.Sleep(200 * time.Millisecond)
		sr, err := rssKiB(c.pid)
		return point{n, r, sr}, err
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
	return out, nil
}
