// Package a2agrpc is the A2A 1.0 gRPC binding: the service
// lf.a2a.v1.A2AService served for the agents of an server.Server, and a
// client of it.
//
// The service is registered by hand (a grpc.ServiceDesc over the messages
// of a2a/a2apb) rather than by protoc-gen-go-grpc output: the eleven
// methods are a table, and every one of them runs through the one path the
// HTTP bindings use. A request message is decoded from protobuf, turned
// into its ProtoJSON form and decoded by server.DecodeRequest, the strict
// decoder of the JSON-RPC params; the call then goes through the same
// authentication, version negotiation, guard (limits, policy), owner
// scoping, manager and store as a JSON-RPC call. Errors are gRPC statuses
// whose details carry google.rpc.ErrorInfo (reason, domain
// a2a-protocol.org) and google.rpc.BadRequest, with the codes of the
// v1.0.1 table.
//
// Agents are told apart by the requests' tenant field, which the served
// cards' GRPC interfaces name; an empty tenant reaches the default agent
// (the only one served, or the one the root card describes).
package a2agrpc

import (
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// ServiceName is the full name of the A2A 1.0 gRPC service.
const ServiceName = "lf.a2a.v1.A2AService"

// PathPrefix is the HTTP/2 path prefix of the service's methods.
const PathPrefix = "/" + ServiceName + "/"

// method is one RPC of the service.
type method struct {
	name    string
	stream  bool
	newReq  func() proto.Message
	newResp func() proto.Message
}

// tenanted is what every request message of the service has.
type tenanted interface {
	proto.Message
	GetTenant() string
}

// methods are the eleven RPCs of lf.a2a.v1.A2AService.
var methods = []method{
	{a2a.MethodSendMessage, false, func() proto.Message { return new(pb.SendMessageRequest) }, func() proto.Message { return new(pb.SendMessageResponse) }},
	{a2a.MethodSendStreamingMessage, true, func() proto.Message { return new(pb.SendMessageRequest) }, func() proto.Message { return new(pb.StreamResponse) }},
	{a2a.MethodGetTask, false, func() proto.Message { return new(pb.GetTaskRequest) }, func() proto.Message { return new(pb.Task) }},
	{a2a.MethodListTasks, false, func() proto.Message { return new(pb.ListTasksRequest) }, func() proto.Message { return new(pb.ListTasksResponse) }},
	{a2a.MethodCancelTask, false, func() proto.Message { return new(pb.CancelTaskRequest) }, func() proto.Message { return new(pb.Task) }},
	{a2a.MethodSubscribeToTask, true, func() proto.Message { return new(pb.SubscribeToTaskRequest) }, func() proto.Message { return new(pb.StreamResponse) }},
	{a2a.MethodCreatePushConfig, false, func() proto.Message { return new(pb.TaskPushNotificationConfig) }, func() proto.Message { return new(pb.TaskPushNotificationConfig) }},
	{a2a.MethodGetPushConfig, false, func() proto.Message { return new(pb.GetTaskPushNotificationConfigRequest) }, func() proto.Message { return new(pb.TaskPushNotificationConfig) }},
	{a2a.MethodListPushConfigs, false, func() proto.Message { return new(pb.ListTaskPushNotificationConfigsRequest) }, func() proto.Message { return new(pb.ListTaskPushNotificationConfigsResponse) }},
	{a2a.MethodGetExtendedAgentCard, false, func() proto.Message { return new(pb.GetExtendedAgentCardRequest) }, func() proto.Message { return new(pb.AgentCard) }},
	{a2a.MethodDeletePushConfig, false, func() proto.Message { return new(pb.DeleteTaskPushNotificationConfigRequest) }, func() proto.Message { return new(emptypb.Empty) }},
}

func methodByName(name string) *method {
	for i := range methods {
		if methods[i].name == name {
			return &methods[i]
		}
	}
	return nil
}

// serviceDesc is the service as grpc-go registers it, for s.
func (s *Server) serviceDesc() *grpc.ServiceDesc {
	sd := &grpc.ServiceDesc{
		ServiceName: ServiceName,
		HandlerType: (*any)(nil),
		Metadata:    "a2a.proto",
	}
	for i := range methods {
		m := &methods[i]
		if m.stream {
			sd.Streams = append(sd.Streams, grpc.StreamDesc{StreamName: m.name, ServerStreams: true, Handler: s.streamHandler(m)})
			continue
		}
		sd.Methods = append(sd.Methods, grpc.MethodDesc{MethodName: m.name, Handler: s.unaryHandler(m)})
	}
	return sd
}

// setTenant sets the tenant field of a request message.
func setTenant(m proto.Message, tenant string) {
	r := m.ProtoReflect()
	if fd := r.Descriptor().Fields().ByName("tenant"); fd != nil {
		r.Set(fd, protoreflect.ValueOfString(tenant))
	}
}
