package gateway_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkIdleStreamsThroughGateway opens idle SubscribeToTask streams to
// one long task of a fronted agent, through the whole gateway handler
// (request id, access log, panic recovery, drain tracking, span, metrics,
// authentication, policy), and reports the server's heap and stack in use
// per stream (B/stream, split into heap-B/stream and stack-B/stream; each
// client is a bare TCP connection, a few hundred bytes of the heap
// figure). "attached" keeps every stream with net/http (as before the
// middleware let streams be released); "released" measures once every
// stream has been released. Run it with -benchtime=1x.
func BenchmarkIdleStreamsThroughGateway(b *testing.B) {
	for _, bc := range []struct {
		name  string
		after time.Duration
	}{
		{"attached", 0},
		{"released", 20 * time.Millisecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const streams = 400
			e := newReleaseEnvAfter(b, bc.after)
			var hijacked atomic.Int64
			srv := httptest.NewUnstartedServer(e.handler)
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateHijacked {
					hijacked.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			addr := srv.Listener.Addr().String()
			taskID := startHeldTask(b, addr)
			buf := make([]byte, 4096)
			conns := make([]net.Conn, 0, streams)
			var heapPer, stackPer float64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				hijacked.Store(0)
				h0, s0 := heapAndStack()
				for j := 0; j < streams; j++ {
					c, err := subscribeRaw(addr, taskID, buf)
					if err != nil {
						for _, c := range conns {
							c.Close()
						}
						b.Fatalf("stream %d: %v", j, err)
					}
					conns = append(conns, c)
				}
				if bc.after > 0 {
					for deadline := time.Now().Add(20 * time.Second); hijacked.Load() < streams; time.Sleep(10 * time.Millisecond) {
						if time.Now().After(deadline) {
							b.Fatalf("%d of %d streams released", hijacked.Load(), streams)
						}
					}
				}
				h1, s1 := heapAndStack()
				heapPer, stackPer = float64(h1-h0)/streams, float64(s1-s0)/streams
				for _, c := range conns {
					c.Close()
				}
				conns = conns[:0]
			}
			b.StopTimer()
			b.ReportMetric(heapPer+stackPer, "B/stream")
			b.ReportMetric(heapPer, "heap-B/stream")
			b.ReportMetric(stackPer, "stack-B/stream")
		})
	}
}

// heapAndStack returns the heap and the goroutine stacks in use, after
// collecting garbage (stacks shrink at a collection).
func heapAndStack() (heap, stack int64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse), int64(ms.StackInuse)
}

// startHeldTask starts a task of the fronted agent that stays WORKING
// until the agent's steps close, and returns its id.
func startHeldTask(b *testing.B, addr string) string {
	b.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hold"}]},"configuration":{"returnImmediately":true}}}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/a2a/agent", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Authorization", "Bearer "+aliceKey)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	_, rest, ok := strings.Cut(out.String(), `"task":{"id":"`)
	id, _, ok2 := strings.Cut(rest, `"`)
	if !ok || !ok2 || id == "" {
		b.Fatalf("send: %s", out.String())
	}
	return id
}

// subscribeRaw opens a SubscribeToTask stream over a bare connection and
// reads up to the end of its first event.
func subscribeRaw(addr, taskID string, buf []byte) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":%q}}`, taskID)
	fmt.Fprintf(c, "POST /a2a/agent HTTP/1.1\r\nHost: %s\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", addr, aliceKey, len(body), body)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer func() { _ = c.SetReadDeadline(time.Time{}) }()
	var got []byte
	for !bytes.Contains(got, []byte("\n\n")) || !bytes.Contains(got, []byte("data: ")) {
		n, err := c.Read(buf)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("read first event: %w (got %q)", err, got)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.HasPrefix(got, []byte("HTTP/1.1 200")) || !bytes.Contains(got, []byte("TASK_STATE_WORKING")) {
		c.Close()
		return nil, fmt.Errorf("unexpected first event: %q", got)
	}
	return c, nil
}
