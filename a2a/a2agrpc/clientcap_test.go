package a2agrpc_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// TestGRPCClient_HugeResponseMetadataRefused: an agent answering with
// 1 MiB of response metadata (grpc-go's client admits 16 MiB) is refused
// at a2agrpc.MaxHeaderBytes, as the HTTP client caps response headers; a
// little metadata is read.
func TestGRPCClient_HugeResponseMetadataRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pad := make(chan int, 1)
	gs := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		if err := stream.RecvMsg(new(emptypb.Empty)); err != nil {
			return err
		}
		if err := stream.SetHeader(metadata.Pairs("x-pad", strings.Repeat("a", <-pad))); err != nil {
			return err
		}
		return stream.SendMsg(&pb.Task{Id: "t", ContextId: "c", Status: &pb.TaskStatus{State: pb.TaskState_TASK_STATE_COMPLETED}})
	}))
	go func() { _ = gs.Serve(ln) }()
	t.Cleanup(gs.Stop)
	conn, err := a2agrpc.NewConnector(a2agrpc.ConnectorConfig{Dial: func(ctx context.Context, addr string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	tr, err := conn.Factory(true)(a2a.AgentInterface{URL: ln.Addr().String(), ProtocolBinding: a2a.BindingGRPC, ProtocolVersion: a2a.ProtocolVersion}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(n int) error {
		pad <- n
		return tr.Call(ctxT(t), a2a.MethodGetTask, &a2a.GetTaskRequest{ID: "t"}, new(a2a.Task))
	}
	if err := call(1 << 10); err != nil {
		t.Fatalf("an answer with 1 KiB of metadata: %v", err)
	}
	if err := call(1 << 20); err == nil {
		t.Fatal("an answer with 1 MiB of metadata was read")
	}
}
