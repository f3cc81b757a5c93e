package a2agrpc_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2agrpc"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// TestGRPCOwnListener_StreamFloodOnOneConnectionIsCapped: on a listener of
// the service's own, one connection may not open streams without bound
// (grpc-go's default is 2^32-1, each a goroutine and buffers): the server's
// SETTINGS cap them at a2agrpc.MaxConcurrentStreams, net/http's HTTP/2
// default, as on the main listener.
func TestGRPCOwnListener_StreamFloodOnOneConnectionIsCapped(t *testing.T) {
	h := newHarness(t, nil)
	c, err := net.Dial("tcp", h.grpcAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	f, err := fr.ReadFrame()
	if err != nil {
		t.Fatal(err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok {
		t.Fatalf("the server's first frame is %T, want SETTINGS", f)
	}
	n, ok := sf.Value(http2.SettingMaxConcurrentStreams)
	if !ok || n != a2agrpc.MaxConcurrentStreams {
		t.Fatalf("SETTINGS_MAX_CONCURRENT_STREAMS = %d (sent: %v), want %d", n, ok, a2agrpc.MaxConcurrentStreams)
	}
}

// TestGRPCOwnListener_HugeMetadataRefused: a call's metadata is capped at
// a2agrpc.MaxHeaderBytes (the main listener's server.MaxHeaderBytes), not
// grpc-go's 16 MiB: a call with 1 MiB of metadata never reaches the
// service, one with a little does.
func TestGRPCOwnListener_HugeMetadataRefused(t *testing.T) {
	h := newHarness(t, nil)
	cc := h.raw(h.grpcAddr)
	call := func(pad int) error {
		ctx := metadata.AppendToOutgoingContext(ctxT(t), "authorization", "Bearer alice", "a2a-version", "1.0", "x-pad", strings.Repeat("a", pad))
		return cc.Invoke(ctx, a2agrpc.PathPrefix+a2a.MethodGetTask, &pb.GetTaskRequest{Id: "no-such-task"}, new(pb.Task))
	}
	if err := call(1 << 10); status.Code(err) != codes.NotFound {
		t.Fatalf("a call with 1 KiB of metadata: %v, want NOT_FOUND from the service", err)
	}
	if err := call(1 << 20); err == nil || status.Code(err) == codes.NotFound {
		t.Fatalf("a call with 1 MiB of metadata reached the service: %v", err)
	}
}
