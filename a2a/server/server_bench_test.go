package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
)

// quick completes every message at once with one artifact.
type quick struct{}

func (quick) Execute(ctx context.Context, req *taskmanager.Request, u *taskmanager.Updater) error {
	if err := u.Artifact(ctx, a2a.Artifact{Parts: []a2a.Part{a2a.TextPart("ok")}}, false, true); err != nil {
		return err
	}
	return u.Complete(ctx, "")
}

func (quick) Cancel(context.Context, *taskmanager.Request, *taskmanager.Updater) error { return nil }

// BenchmarkSendMessageRoundTrip is a blocking JSON-RPC SendMessage through
// the whole server (HTTP handler, manager, memory store) without a network.
func BenchmarkSendMessageRoundTrip(b *testing.B) {
	mgr, _ := taskmanager.New(taskmanager.Config{Store: store.NewMemory(), Executor: quick{}})
	srv, _ := server.New(server.Config{Manager: mgr, Card: &a2a.AgentCard{Name: "bench", Version: "1"}})
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hello"}]}}}`
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), "TASK_STATE_COMPLETED") {
			b.Fatalf("%d %s", w.Code, w.Body.String())
		}
	}
	b.StopTimer()
	mgr.Wait()
}
