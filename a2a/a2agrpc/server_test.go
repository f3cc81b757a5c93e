package a2agrpc_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
)

func TestGRPCUnaryMethods(t *testing.T) {
	h := newHarness(t, nil)
	ctx := ctxT(t)
	c := h.client(a2a.BindingGRPC, "alice")
	if got := c.Interface().ProtocolBinding; got != a2a.BindingGRPC {
		t.Fatalf("client binding = %s", got)
	}
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("hello", "")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Task == nil || res.Task.Status.State != a2a.TaskStateCompleted || len(res.Task.Artifacts) != 1 {
		t.Fatalf("SendMessage = %+v", res)
	}
	if got := res.Task.Artifacts[0].Parts[0].Text; got != "echo: hello" {
		t.Fatalf("artifact = %q", got)
	}
	task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: res.Task.ID})
	if err != nil || task.ID != res.Task.ID || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("GetTask = %+v, %v", task, err)
	}
	list, err := c.ListTasks(ctx, &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].ID != res.Task.ID {
		t.Fatalf("ListTasks = %+v, %v", list, err)
	}
	msg, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/message", "")})
	if err != nil || msg.Message == nil {
		t.Fatalf("direct message = %+v, %v", msg, err)
	}
	// Multi-turn: input required, then the next turn on the same task.
	iv, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/interview", "")})
	if err != nil || iv.Task == nil || iv.Task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("interview = %+v, %v", iv, err)
	}
	done, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("Ada", iv.Task.ID)})
	if err != nil || done.Task == nil || done.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("second turn = %+v, %v", done, err)
	}
	// Cancel a running task.
	slow, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 30", ""), Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil || slow.Task == nil {
		t.Fatalf("slow = %+v, %v", slow, err)
	}
	canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: slow.Task.ID})
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask = %+v, %v", canceled, err)
	}
	// Push configs.
	pc, err := c.CreateTaskPushNotificationConfig(ctx, &a2a.TaskPushNotificationConfig{TaskID: res.Task.ID, URL: "https://hooks.example.com/a2a"})
	if err != nil || pc.ID == "" {
		t.Fatalf("CreatePushConfig = %+v, %v", pc, err)
	}
	got, err := c.GetTaskPushNotificationConfig(ctx, &a2a.GetTaskPushNotificationConfigRequest{TaskID: res.Task.ID, ID: pc.ID})
	if err != nil || got.URL != pc.URL {
		t.Fatalf("GetPushConfig = %+v, %v", got, err)
	}
	pl, err := c.ListTaskPushNotificationConfigs(ctx, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: res.Task.ID})
	if err != nil || len(pl.Configs) != 1 {
		t.Fatalf("ListPushConfigs = %+v, %v", pl, err)
	}
	if err := c.DeleteTaskPushNotificationConfig(ctx, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: res.Task.ID, ID: pc.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetExtendedAgentCard(ctx); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Fatalf("GetExtendedAgentCard: %v, want UNSUPPORTED_OPERATION", err)
	}
}

func TestGRPCStreamingAndSubscribe(t *testing.T) {
	h := newHarness(t, nil)
	ctx := ctxT(t)
	c := h.client(a2a.BindingGRPC, "alice")
	st, err := c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 1", "")})
	if err != nil {
		t.Fatal(err)
	}
	var states []a2a.TaskState
	var taskID string
	for ev, err := range st.All() {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Task != nil:
			taskID = ev.Task.ID
			states = append(states, ev.Task.Status.State)
		case ev.StatusUpdate != nil:
			states = append(states, ev.StatusUpdate.Status.State)
		}
	}
	if len(states) < 2 || !states[len(states)-1].Terminal() || taskID == "" {
		t.Fatalf("streamed states = %v", states)
	}
	// Subscribing to a finished task replays nothing past its end: the
	// stream opens with the task and ends.
	sub, err := c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: taskID})
	if err != nil {
		if !errors.Is(err, a2a.ErrUnsupportedOperation) {
			t.Fatalf("subscribe to a finished task: %v", err)
		}
	} else {
		_ = sub.Close()
	}
	// Subscribe to a running task: its events until it ends (canceled
	// once the subscription has its first event).
	slow, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: userMsg("/slow 1000", ""), Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	sub, err = c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: slow.Task.ID})
	if err != nil {
		t.Fatal(err)
	}
	var last a2a.TaskState
	n := 0
	for ev, err := range sub.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 1 {
			if _, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: slow.Task.ID}); err != nil {
				t.Fatal(err)
			}
		}
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
		}
		if ev.Task != nil {
			last = ev.Task.Status.State
		}
	}
	if n < 2 || last != a2a.TaskStateCanceled {
		t.Fatalf("subscription: %d events, last state %s", n, last)
	}
}

// rawStatus calls method on cc with md and returns the status.
func rawStatus(t *testing.T, cc *grpc.ClientConn, method string, req, resp any, md ...string) *status.Status {
	t.Helper()
	ctx := metadata.NewOutgoingContext(ctxT(t), metadata.Pairs(md...))
	err := cc.Invoke(ctx, a2agrpc.PathPrefix+method, req, resp)
	return status.Convert(err)
}

func errorInfo(st *status.Status) *errdetails.ErrorInfo {
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok {
			return ei
		}
	}
	return nil
}

func TestGRPCErrorsCarryErrorInfo(t *testing.T) {
	h := newHarness(t, nil)
	for _, addr := range []string{h.grpcAddr, strings.TrimPrefix(h.httpURL, "http://")} {
		cc := h.raw(addr)
		cases := []struct {
			name   string
			method string
			req    any
			md     []string
			code   codes.Code
			reason string
		}{
			{"task not found", a2a.MethodGetTask, &pb.GetTaskRequest{Id: "nope"}, []string{"authorization", "Bearer alice", "a2a-version", "1.0"}, codes.NotFound, "TASK_NOT_FOUND"},
			{"no version is 0.3", a2a.MethodGetTask, &pb.GetTaskRequest{Id: "nope"}, []string{"authorization", "Bearer alice"}, codes.FailedPrecondition, "VERSION_NOT_SUPPORTED"},
			{"version 0.3", a2a.MethodGetTask, &pb.GetTaskRequest{Id: "nope"}, []string{"authorization", "Bearer alice", "a2a-version", "0.3"}, codes.FailedPrecondition, "VERSION_NOT_SUPPORTED"},
			{"version 1.0.1 served", a2a.MethodGetTask, &pb.GetTaskRequest{Id: "nope"}, []string{"authorization", "Bearer alice", "a2a-version", "1.0.1"}, codes.NotFound, "TASK_NOT_FOUND"},
			{"no credentials", a2a.MethodGetTask, &pb.GetTaskRequest{Id: "nope"}, []string{"a2a-version", "1.0"}, codes.Unauthenticated, "UNAUTHENTICATED"},
			{"bearer and API key", a2a.MethodGetTask, &pb.GetTaskRequest{Id: "nope"}, []string{"authorization", "Bearer alice", "x-api-key", "bob", "a2a-version", "1.0"}, codes.Unauthenticated, "UNAUTHENTICATED"},
			{"cancel a finished task", a2a.MethodCancelTask, &pb.CancelTaskRequest{Id: "nope"}, []string{"authorization", "Bearer alice", "a2a-version", "1.0"}, codes.NotFound, "TASK_NOT_FOUND"},
			{"missing message", a2a.MethodSendMessage, &pb.SendMessageRequest{}, []string{"authorization", "Bearer alice", "a2a-version", "1.0"}, codes.InvalidArgument, ""},
			{"unknown tenant", a2a.MethodGetTask, &pb.GetTaskRequest{Tenant: "other", Id: "x"}, []string{"authorization", "Bearer alice", "a2a-version", "1.0"}, codes.InvalidArgument, ""},
			{"extended card not declared", a2a.MethodGetExtendedAgentCard, &pb.GetExtendedAgentCardRequest{}, []string{"authorization", "Bearer alice", "a2a-version", "1.0"}, codes.FailedPrecondition, "UNSUPPORTED_OPERATION"},
		}
		for _, tc := range cases {
			t.Run(addr+"/"+tc.name, func(t *testing.T) {
				var resp pb.Task
				var out any = &resp
				if tc.method == a2a.MethodSendMessage {
					out = &pb.SendMessageResponse{}
				}
				if tc.method == a2a.MethodGetExtendedAgentCard {
					out = &pb.AgentCard{}
				}
				st := rawStatus(t, cc, tc.method, tc.req, out, tc.md...)
				if st.Code() != tc.code {
					t.Fatalf("code = %s (%s), want %s", st.Code(), st.Message(), tc.code)
				}
				ei := errorInfo(st)
				if tc.reason == "" {
					return
				}
				if ei == nil || ei.Reason != tc.reason || ei.Domain != a2a.ErrorDomain {
					t.Fatalf("ErrorInfo = %v, want reason %s", ei, tc.reason)
				}
			})
		}
	}
}

func TestGRPCDuplicateMetadataRefusedBeforeGuard(t *testing.T) {
	h := newHarness(t, nil)
	cc := h.raw(h.grpcAddr)
	for _, md := range [][]string{
		{"authorization", "Bearer alice", "authorization", "Bearer bob", "a2a-version", "1.0"},
		{"authorization", "Bearer alice", "a2a-version", "1.0", "a2a-version", "0.3"},
		{"authorization", "Bearer alice", "x-api-key", "k1", "x-api-key", "k2", "a2a-version", "1.0"},
	} {
		st := rawStatus(t, cc, a2a.MethodSendMessage, &pb.SendMessageRequest{Message: &pb.Message{MessageId: "m1", Role: pb.Role_ROLE_USER, Parts: []*pb.Part{{Content: &pb.Part_Text{Text: "hi"}}}}}, &pb.SendMessageResponse{}, md...)
		if st.Code() != codes.InvalidArgument {
			t.Fatalf("%v: code = %s (%s), want INVALID_ARGUMENT", md, st.Code(), st.Message())
		}
	}
	if g := h.guardedCalls(); len(g) != 0 {
		t.Fatalf("calls reached the guard: %v", g)
	}
}

func TestGRPCAmbiguousSkillRefusedBeforeGuard(t *testing.T) {
	h := newHarness(t, nil)
	cc := h.raw(h.grpcAddr)
	md, _ := structOf(map[string]any{"skillId": "echo"})
	rmd, _ := structOf(map[string]any{"skillId": "fail"})
	st := rawStatus(t, cc, a2a.MethodSendMessage, &pb.SendMessageRequest{
		Message:  &pb.Message{MessageId: "m1", Role: pb.Role_ROLE_USER, Parts: []*pb.Part{{Content: &pb.Part_Text{Text: "hi"}}}, Metadata: md},
		Metadata: rmd,
	}, &pb.SendMessageResponse{}, "authorization", "Bearer alice", "a2a-version", "1.0")
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("code = %s, want INVALID_ARGUMENT", st.Code())
	}
	if g := h.guardedCalls(); len(g) != 0 {
		t.Fatalf("calls reached the guard: %v", g)
	}
}

func TestGRPCUnknownMethodIsUnimplemented(t *testing.T) {
	h := newHarness(t, nil)
	cc := h.raw(h.grpcAddr)
	err := cc.Invoke(ctxT(t), "/lf.a2a.v1.A2AService/Nope", &pb.GetTaskRequest{}, &pb.Task{})
	if status.Code(err) != codes.Unimplemented {
		t.Fatalf("code = %s, want UNIMPLEMENTED", status.Code(err))
	}
	err = cc.Invoke(ctxT(t), "/a2a.v1.A2AService/GetTask", &pb.GetTaskRequest{}, &pb.Task{})
	if status.Code(err) != codes.Unimplemented {
		t.Fatalf("0.3 service: code = %s, want UNIMPLEMENTED", status.Code(err))
	}
}

func TestGRPCStreamErrorBeforeFirstEvent(t *testing.T) {
	h := newHarness(t, nil)
	c := h.client(a2a.BindingGRPC, "alice")
	_, err := c.SubscribeToTask(ctxT(t), &a2a.SubscribeToTaskRequest{ID: "nope"})
	if !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Fatalf("subscribe to an unknown task: %v, want TASK_NOT_FOUND", err)
	}
	cc := h.raw(h.grpcAddr)
	ctx := metadata.NewOutgoingContext(ctxT(t), metadata.Pairs("a2a-version", "1.0"))
	cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, a2agrpc.PathPrefix+a2a.MethodSubscribeToTask)
	if err != nil {
		t.Fatal(err)
	}
	_ = cs.SendMsg(&pb.SubscribeToTaskRequest{Id: "x"})
	_ = cs.CloseSend()
	err = cs.RecvMsg(&pb.StreamResponse{})
	if err == io.EOF || status.Code(err) != codes.Unauthenticated {
		t.Fatalf("unauthenticated stream: %v", err)
	}
	if md, _ := cs.Header(); len(md.Get("www-authenticate")) == 0 {
		t.Fatalf("no www-authenticate header: %v", md)
	}
}

// The v1.0.0 table (server.a2a_error_table: "1.0.0", which the
// conformance kit still expects) answers UNIMPLEMENTED where v1.0.1 says
// FAILED_PRECONDITION; the ErrorInfo reason is the same.
func TestGRPCErrorTableV100(t *testing.T) {
	h := newHarness(t, func(s *server.Config) { s.ErrorTable = a2a.ErrorTableV100 })
	cc := h.raw(h.grpcAddr)
	st := rawStatus(t, cc, a2a.MethodGetTask, &pb.GetTaskRequest{Id: "x"}, &pb.Task{}, "authorization", "Bearer alice", "a2a-version", "0.3")
	if st.Code() != codes.Unimplemented || errorInfo(st).GetReason() != "VERSION_NOT_SUPPORTED" {
		t.Fatalf("v1.0.0 table: %s %v", st.Code(), errorInfo(st))
	}
	st = rawStatus(t, cc, a2a.MethodGetTask, &pb.GetTaskRequest{Id: "x"}, &pb.Task{}, "authorization", "Bearer alice", "a2a-version", "1.0")
	if st.Code() != codes.NotFound {
		t.Fatalf("not found under v1.0.0: %s", st.Code())
	}
}

// A blocking SendMessage whose task outlives the call's bound is answered
// DEADLINE_EXCEEDED; the task goes on and can be followed.
func TestGRPCBlockingSendPastItsDeadline(t *testing.T) {
	h := newHarnessWith(t, nil, 300*time.Millisecond)
	cc := h.raw(h.grpcAddr)
	var resp pb.SendMessageResponse
	ctx := metadata.NewOutgoingContext(ctxT(t), metadata.Pairs("authorization", "Bearer alice", "a2a-version", "1.0"))
	err := cc.Invoke(ctx, a2agrpc.PathPrefix+a2a.MethodSendMessage, &pb.SendMessageRequest{Message: &pb.Message{MessageId: "long-1", Role: pb.Role_ROLE_USER, Parts: []*pb.Part{{Content: &pb.Part_Text{Text: "/slow 1000"}}}}}, &resp)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("blocking send past its bound: %v, want DEADLINE_EXCEEDED", err)
	}
	c := h.client(a2a.BindingJSONRPC, "alice")
	list, err := c.ListTasks(ctxT(t), &a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 || list.Tasks[0].Status.State.Terminal() {
		t.Fatalf("the task after the deadline: %+v, %v", list, err)
	}
	if _, err := c.CancelTask(ctxT(t), &a2a.CancelTaskRequest{ID: list.Tasks[0].ID}); err != nil {
		t.Fatal(err)
	}
}
