package a2agrpc

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// FuzzRequestDecoding feeds arbitrary protobuf bytes to every method's
// request decoding (protobuf, then the strict a2a decoder) and arbitrary
// metadata to the view the guards read: neither panics, a refusal is a
// protocol error (never an internal one), and what is accepted reads one
// way: its re-encoding decodes to the same tenant and task.
func FuzzRequestDecoding(f *testing.F) {
	md, _ := structpb.NewStruct(map[string]any{"skillId": "echo", "n": 1.5})
	seeds := []proto.Message{
		&pb.SendMessageRequest{Tenant: "echo", Message: &pb.Message{MessageId: "m", Role: pb.Role_ROLE_USER, TaskId: "t",
			Parts: []*pb.Part{{Content: &pb.Part_Text{Text: "hi"}}, {Content: &pb.Part_Raw{Raw: []byte{0, 1}}, MediaType: "image/png"}}, Metadata: md}},
		&pb.GetTaskRequest{Id: "t", HistoryLength: proto.Int32(2)},
		&pb.ListTasksRequest{PageSize: proto.Int32(-1), Status: pb.TaskState_TASK_STATE_WORKING},
		&pb.TaskPushNotificationConfig{TaskId: "t", Url: "https://x.example/", Authentication: &pb.AuthenticationInfo{Scheme: "Bearer"}},
		&pb.SubscribeToTaskRequest{Id: "t", Tenant: "a"},
	}
	for i, m := range seeds {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b, "authorization=Bearer k\na2a-version=1.0")
	}
	f.Add(uint8(0), []byte{0x0a, 0x02, 0xff, 0xfe}, "a2a-version=1.0\na2a-version=0.3")
	f.Add(uint8(7), []byte{}, "x-api-key=k\nauthorization=Bearer t\n:authority=h")
	f.Fuzz(func(t *testing.T, which uint8, msg []byte, mdText string) {
		m := &methods[int(which)%len(methods)]
		req := m.newReq()
		if proto.Unmarshal(msg, req) == nil {
			params, err := decodeRequest(m.name, req)
			if err != nil {
				e := a2a.AsError(err)
				if e == a2a.ErrInternal || e.Code == a2a.ErrInternal.Code {
					t.Fatalf("%s: refusal is not a protocol error: %v", m.name, err)
				}
			} else {
				again := m.newReq()
				if err := encodeMessage(params, again); err != nil {
					t.Fatalf("%s: accepted request does not encode again: %v", m.name, err)
				}
				if a, b := again.(tenanted).GetTenant(), req.(tenanted).GetTenant(); a != b {
					t.Fatalf("%s: tenant %q read as %q", m.name, b, a)
				}
			}
		}
		pairs := metadata.MD{}
		for _, line := range strings.Split(mdText, "\n") {
			k, v, ok := strings.Cut(line, "=")
			if !ok || k == "" {
				continue
			}
			k = strings.ToLower(k)
			pairs[k] = append(pairs[k], v)
		}
		ctx := metadata.NewIncomingContext(context.Background(), pairs)
		r, version, err := RequestView(ctx, m.name)
		if err != nil {
			if a2a.AsError(err) == a2a.ErrInternal {
				t.Fatalf("metadata refusal is not a protocol error: %v", err)
			}
			return
		}
		if vs := pairs["a2a-version"]; len(vs) == 1 && version != strings.TrimSpace(vs[0]) {
			t.Fatalf("version %q read as %q", vs[0], version)
		}
		for k, vs := range pairs {
			if singleValued(k) && len(vs) > 1 {
				t.Fatalf("%s sent %d times was accepted", k, len(vs))
			}
			if strings.HasPrefix(k, ":") || strings.HasSuffix(k, "-bin") {
				continue
			}
			if got := r.Header.Values(k); len(got) != len(vs) {
				t.Fatalf("%s: %d values in the view, %d sent", k, len(got), len(vs))
			}
		}
	})
}
