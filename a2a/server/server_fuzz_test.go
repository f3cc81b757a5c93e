package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

func FuzzRESTRouter(f *testing.F) {
	for _, s := range []string{
		"GET /tasks/abc", "POST /tasks/abc:cancel", "POST /tasks/abc:subscribe", "GET /tasks/abc:subscribe",
		"GET /t1/tasks", "POST /message:send", "POST /message:stream", "GET /extendedAgentCard",
		"POST /tasks/a/pushNotificationConfigs", "DELETE /tasks/a/pushNotificationConfigs/b",
		"GET /tasks/%2F..%2F:cancel", "GET //tasks//", "PUT /tasks/x", "GET /tasks/:", "GET /%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		verb, path, _ := strings.Cut(line, " ")
		rt, err := routeREST(verb, path)
		if err != nil {
			if st := err.HTTPStatus(a2a.ErrorTableV101); st < 400 || st >= 500 {
				t.Fatalf("route error status %d", st)
			}
			return
		}
		if rt.method == "" {
			t.Fatal("route without a method")
		}
		if _, _, ok := a2a.NewParams(rt.method); !ok {
			t.Fatalf("route to unknown method %q", rt.method)
		}
		switch rt.method {
		case a2a.MethodGetTask, a2a.MethodCancelTask, a2a.MethodSubscribeToTask, a2a.MethodCreatePushConfig, a2a.MethodListPushConfigs, a2a.MethodGetPushConfig, a2a.MethodDeletePushConfig:
			if rt.id == "" {
				t.Fatalf("%s routed without a task id", rt.method)
			}
		}
		if verb == http.MethodGet && rt.method == a2a.MethodSendMessage {
			t.Fatal("GET routed to SendMessage")
		}
	})
}
