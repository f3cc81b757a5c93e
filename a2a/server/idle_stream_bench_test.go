//go:build !bridge_nosserelease

package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// parked reports WORKING and then waits until the task is cancelled.
type parked struct{}

func (parked) Execute(ctx context.Context, _ *taskmanager.Request, u *taskmanager.Updater) error {
	if err := u.Working(ctx, "parked"); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func (parked) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error { return nil }

// openSubscribeStream opens a JSON-RPC SubscribeToTask stream over a raw
// connection (no client goroutines) and reads up to the end of its first
// event, the task snapshot.
func openSubscribeStream(addr, taskID string, buf []byte) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":%q}}`, taskID)
	req := fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	if _, err := c.Write([]byte(req)); err != nil {
		c.Close()
		return nil, err
	}
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

// heapAndStack returns the heap and the goroutine stacks in use, after
// collecting garbage (stacks shrink at a collection).
func heapAndStack() (heap, stack int64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse), int64(ms.StackInuse)
}

// waitReleased waits until n streams of srv have been released from
// net/http (an idle stream is, shortly after its last event), so that what
// is measured is what an idle stream keeps.
func waitReleased(b *testing.B, srv *http.Server, n int) {
	for deadline := time.Now().Add(10 * time.Second); server.ReleasedStreams(srv) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d streams released", server.ReleasedStreams(srv), n)
		}
	}
}

// BenchmarkIdleSubscribeStreams opens idle SubscribeToTask streams to one
// long task and reports the server's heap and stack in use per stream
// (B/stream, split into heap-B/stream and stack-B/stream; the client side
// is a bare TCP connection per stream, a few hundred bytes of the heap
// figure). It measures once the streams have been released from net/http
// (sse_release.go). Run it with -benchtime=1x: each iteration opens and
// closes all the streams.
func BenchmarkIdleSubscribeStreams(b *testing.B) {
	const streams = 400
	yes := true
	mgr, _ := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: parked{}})
	srv, _ := server.New(server.Config{Manager: mgr, Card: &a2a.AgentCard{Name: "bench", Version: "1", Capabilities: a2a.AgentCapabilities{Streaming: &yes}}})
	hs := httptest.NewServer(srv)
	defer func() {
		hs.Close()
		mgr.Wait()
	}()
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hold"}]},"configuration":{"returnImmediately":true}}}`
	req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(body))
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := hs.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var reply struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	err = json.NewDecoder(bufio.NewReader(resp.Body)).Decode(&reply)
	resp.Body.Close()
	if err != nil || reply.Result.Task.ID == "" {
		b.Fatalf("send: %v %+v", err, reply)
	}
	hs.Client().CloseIdleConnections()
	addr := hs.Listener.Addr().String()
	buf := make([]byte, 4096)
	conns := make([]net.Conn, 0, streams)
	b.ReportAllocs()
	b.ResetTimer()
	var perStream, heapPer, stackPer float64
	for i := 0; i < b.N; i++ {
		h0, s0 := heapAndStack()
		for j := 0; j < streams; j++ {
			c, err := openSubscribeStream(addr, reply.Result.Task.ID, buf)
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
		}
		waitReleased(b, hs.Config, streams)
		h1, s1 := heapAndStack()
		heapPer, stackPer = float64(h1-h0)/streams, float64(s1-s0)/streams
		perStream = heapPer + stackPer
		for _, c := range conns {
			c.Close()
		}
		conns = conns[:0]
	}
	b.StopTimer()
	b.ReportMetric(perStream, "B/stream")
	b.ReportMetric(heapPer, "heap-B/stream")
	b.ReportMetric(stackPer, "stack-B/stream")
	_, _ = mgr.CancelTask(context.Background(), server.AnonymousOwner, &a2a.CancelTaskRequest{ID: reply.Result.Task.ID})
}
