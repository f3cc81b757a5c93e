package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// The gRPC calls (-call grpc, grpc-stream): SendMessage and
// SendStreamingMessage of lf.a2a.v1.A2AService to the -tenant agent at the
// host:port of -url, over h2c, on one client connection (as gRPC clients
// multiplex their calls).

const grpcService = "/lf.a2a.v1.A2AService/"

var (
	grpcOnce sync.Once
	grpcConn *grpc.ClientConn
	grpcErr  error
)

func grpcClient(c config) (*grpc.ClientConn, error) {
	grpcOnce.Do(func() {
		u, err := url.Parse(c.url)
		if err != nil {
			grpcErr = err
			return
		}
		grpcConn, grpcErr = grpc.NewClient("passthrough:///"+u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()))
	})
	return grpcConn, grpcErr
}

func grpcRequest(c config) *pb.SendMessageRequest {
	n := seq.Add(1)
	return &pb.SendMessageRequest{Tenant: c.tenant, Message: &pb.Message{
		MessageId: fmt.Sprintf("load-%d-%d", os.Getpid(), n), Role: pb.Role_ROLE_USER,
		Parts: []*pb.Part{{Content: &pb.Part_Text{Text: c.text}}},
	}}
}

func grpcContext(ctx context.Context, c config) context.Context {
	md := metadata.Pairs("a2a-version", "1.0")
	if c.token != "" {
		md.Set("authorization", "Bearer "+c.token)
	}
	return metadata.NewOutgoingContext(ctx, md)
}

func terminal(s pb.TaskState) bool {
	switch s {
	case pb.TaskState_TASK_STATE_COMPLETED, pb.TaskState_TASK_STATE_FAILED, pb.TaskState_TASK_STATE_CANCELED, pb.TaskState_TASK_STATE_REJECTED:
		return true
	}
	return false
}

// grpcDo sends one gRPC call and reads its answer to the end, as do.
func grpcDo(ctx context.Context, c config) (ok bool, first time.Time) {
	cc, err := grpcClient(c)
	if err != nil {
		return false, time.Time{}
	}
	ctx, cancel := context.WithTimeout(grpcContext(ctx, c), 30*time.Second)
	defer cancel()
	if c.call == "grpc" {
		var resp pb.SendMessageResponse
		if err := cc.Invoke(ctx, grpcService+"SendMessage", grpcRequest(c), &resp); err != nil {
			return false, time.Time{}
		}
		return resp.GetTask().GetStatus().GetState() == pb.TaskState_TASK_STATE_COMPLETED, time.Time{}
	}
	cs, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, grpcService+"SendStreamingMessage")
	if err != nil {
		return false, time.Time{}
	}
	if err := cs.SendMsg(grpcRequest(c)); err != nil {
		return false, time.Time{}
	}
	if err := cs.CloseSend(); err != nil {
		return false, time.Time{}
	}
	for {
		var ev pb.StreamResponse
		if err := cs.RecvMsg(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				return false, first // ended without a final state
			}
			return false, first
		}
		if first.IsZero() {
			first = time.Now()
		}
		var state pb.TaskState
		switch {
		case ev.GetStatusUpdate() != nil:
			state = ev.GetStatusUpdate().GetStatus().GetState()
		case ev.GetTask() != nil:
			state = ev.GetTask().GetStatus().GetState()
		}
		if terminal(state) {
			return state == pb.TaskState_TASK_STATE_COMPLETED, first
		}
	}
}
