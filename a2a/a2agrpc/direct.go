package a2agrpc

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// Direct conversions of the frequent messages (tasks, messages, events,
// the requests a client sends), field by field, instead of through their
// ProtoJSON form: they give the messages the ProtoJSON route gives (a test
// holds them to it) for a fraction of its cost. Anything they do not cover
// (an unknown enum value, metadata that is no JSON value) reports false and
// the caller takes the ProtoJSON route. Requests the server receives are
// never decoded here: they go through the strict decoder.

var errIndirect = errors.New("a2agrpc: not directly convertible")

// toPB fills m from v directly when both are of a covered pair.
func toPB(v any, m any) (bool, error) {
	var err error
	switch v := v.(type) {
	case *a2a.Task:
		out, ok := m.(*pb.Task)
		if !ok {
			return false, nil
		}
		err = taskToPB(v, out)
	case *a2a.SendMessageResponse:
		out, ok := m.(*pb.SendMessageResponse)
		if !ok {
			return false, nil
		}
		switch {
		case v.Task != nil && v.Message == nil:
			t := new(pb.Task)
			err = taskToPB(v.Task, t)
			out.Payload = &pb.SendMessageResponse_Task{Task: t}
		case v.Message != nil && v.Task == nil:
			var msg *pb.Message
			msg, err = messageToPB(v.Message)
			out.Payload = &pb.SendMessageResponse_Message{Message: msg}
		default:
			return false, nil
		}
	case *a2a.StreamResponse:
		out, ok := m.(*pb.StreamResponse)
		if !ok {
			return false, nil
		}
		err = streamToPB(v, out)
	case *a2a.SendMessageRequest:
		out, ok := m.(*pb.SendMessageRequest)
		if !ok {
			return false, nil
		}
		err = sendRequestToPB(v, out)
	case *a2a.GetTaskRequest:
		out, ok := m.(*pb.GetTaskRequest)
		if !ok {
			return false, nil
		}
		out.Tenant, out.Id, out.HistoryLength = str(v.Tenant), str(v.ID), v.HistoryLength
	case *a2a.CancelTaskRequest:
		out, ok := m.(*pb.CancelTaskRequest)
		if !ok {
			return false, nil
		}
		out.Tenant, out.Id = str(v.Tenant), str(v.ID)
		out.Metadata, err = structToPB(v.Metadata)
	case *a2a.SubscribeToTaskRequest:
		out, ok := m.(*pb.SubscribeToTaskRequest)
		if !ok {
			return false, nil
		}
		out.Tenant, out.Id = str(v.Tenant), str(v.ID)
	default:
		return false, nil
	}
	if err != nil {
		return false, nil //nolint:nilerr // the ProtoJSON route decides
	}
	return true, nil
}

// fromPB fills v from m directly when both are of a covered pair.
func fromPB(m any, v any) bool {
	var err error
	switch m := m.(type) {
	case *pb.Task:
		out, ok := v.(*a2a.Task)
		if !ok {
			return false
		}
		err = taskFromPB(m, out)
	case *pb.SendMessageResponse:
		out, ok := v.(*a2a.SendMessageResponse)
		if !ok {
			return false
		}
		switch p := m.GetPayload().(type) {
		case *pb.SendMessageResponse_Task:
			out.Task = new(a2a.Task)
			err = taskFromPB(p.Task, out.Task)
		case *pb.SendMessageResponse_Message:
			out.Message, err = messageFromPB(p.Message)
		}
	case *pb.StreamResponse:
		out, ok := v.(*a2a.StreamResponse)
		if !ok {
			return false
		}
		err = streamFromPB(m, out)
	default:
		return false
	}
	return err == nil
}

// str is s as a proto3 string: invalid UTF-8 replaced, as encoding/json
// does on the ProtoJSON route.
func str(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func strs(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = str(s)
	}
	return out
}

func taskToPB(t *a2a.Task, out *pb.Task) error {
	out.Id, out.ContextId = str(t.ID), str(t.ContextID)
	var err error
	if out.Status, err = statusToPB(&t.Status); err != nil {
		return err
	}
	if len(t.Artifacts) > 0 {
		out.Artifacts = make([]*pb.Artifact, len(t.Artifacts))
		for i := range t.Artifacts {
			if out.Artifacts[i], err = artifactToPB(&t.Artifacts[i]); err != nil {
				return err
			}
		}
	}
	if len(t.History) > 0 {
		out.History = make([]*pb.Message, len(t.History))
		for i := range t.History {
			if out.History[i], err = messageToPB(&t.History[i]); err != nil {
				return err
			}
		}
	}
	out.Metadata, err = structToPB(t.Metadata)
	return err
}

func statusToPB(s *a2a.TaskStatus) (*pb.TaskStatus, error) {
	st, ok := pb.TaskState_value[string(s.State)]
	if !ok && s.State != "" {
		return nil, errIndirect
	}
	out := &pb.TaskStatus{State: pb.TaskState(st)}
	if s.Message != nil {
		var err error
		if out.Message, err = messageToPB(s.Message); err != nil {
			return nil, err
		}
	}
	if s.Timestamp != nil {
		out.Timestamp = timestamppb.New(*s.Timestamp)
	}
	return out, nil
}

func messageToPB(m *a2a.Message) (*pb.Message, error) {
	role := m.Role
	if role == "" {
		role = a2a.RoleUnspecified
	}
	r, ok := pb.Role_value[string(role)]
	if !ok {
		return nil, errIndirect
	}
	out := &pb.Message{
		MessageId: str(m.MessageID), ContextId: str(m.ContextID), TaskId: str(m.TaskID), Role: pb.Role(r),
		Extensions: strs(m.Extensions), ReferenceTaskIds: strs(m.ReferenceTaskIDs),
	}
	var err error
	if out.Parts, err = partsToPB(m.Parts); err != nil {
		return nil, err
	}
	out.Metadata, err = structToPB(m.Metadata)
	return out, err
}

func artifactToPB(a *a2a.Artifact) (*pb.Artifact, error) {
	out := &pb.Artifact{ArtifactId: str(a.ArtifactID), Name: str(a.Name), Description: str(a.Description), Extensions: strs(a.Extensions)}
	var err error
	if out.Parts, err = partsToPB(a.Parts); err != nil {
		return nil, err
	}
	out.Metadata, err = structToPB(a.Metadata)
	return out, err
}

func partsToPB(parts []a2a.Part) ([]*pb.Part, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	out := make([]*pb.Part, len(parts))
	for i := range parts {
		p := &parts[i]
		q := &pb.Part{Filename: str(p.Filename), MediaType: str(p.MediaType)}
		switch p.Kind {
		case a2a.PartText:
			q.Content = &pb.Part_Text{Text: str(p.Text)}
		case a2a.PartRaw:
			q.Content = &pb.Part_Raw{Raw: p.Raw}
		case a2a.PartURL:
			q.Content = &pb.Part_Url{Url: str(p.URL)}
		case a2a.PartData:
			v := new(structpb.Value)
			if err := unmarshalPB.Unmarshal(p.Data, v); err != nil {
				return nil, errIndirect
			}
			q.Content = &pb.Part_Data{Data: v}
		default:
			return nil, errIndirect
		}
		var err error
		if q.Metadata, err = structToPB(p.Metadata); err != nil {
			return nil, err
		}
		out[i] = q
	}
	return out, nil
}

// structToPB is metadata as a google.protobuf.Struct (nil when empty).
func structToPB(md a2a.Metadata) (*structpb.Struct, error) {
	if len(md) == 0 {
		return nil, nil
	}
	s, err := structpb.NewStruct(md)
	if err != nil {
		return nil, errIndirect
	}
	return s, nil
}

func streamToPB(ev *a2a.StreamResponse, out *pb.StreamResponse) error {
	var err error
	switch {
	case ev.Task != nil:
		t := new(pb.Task)
		err = taskToPB(ev.Task, t)
		out.Payload = &pb.StreamResponse_Task{Task: t}
	case ev.Message != nil:
		var m *pb.Message
		m, err = messageToPB(ev.Message)
		out.Payload = &pb.StreamResponse_Message{Message: m}
	case ev.StatusUpdate != nil:
		u := ev.StatusUpdate
		e := &pb.TaskStatusUpdateEvent{TaskId: str(u.TaskID), ContextId: str(u.ContextID)}
		if e.Status, err = statusToPB(&u.Status); err == nil {
			e.Metadata, err = structToPB(u.Metadata)
		}
		out.Payload = &pb.StreamResponse_StatusUpdate{StatusUpdate: e}
	case ev.ArtifactUpdate != nil:
		u := ev.ArtifactUpdate
		e := &pb.TaskArtifactUpdateEvent{TaskId: str(u.TaskID), ContextId: str(u.ContextID), Append: u.Append, LastChunk: u.LastChunk}
		if e.Artifact, err = artifactToPB(&u.Artifact); err == nil {
			e.Metadata, err = structToPB(u.Metadata)
		}
		out.Payload = &pb.StreamResponse_ArtifactUpdate{ArtifactUpdate: e}
	default:
		return errIndirect
	}
	return err
}

func sendRequestToPB(r *a2a.SendMessageRequest, out *pb.SendMessageRequest) error {
	out.Tenant = str(r.Tenant)
	var err error
	if r.Message != nil {
		if out.Message, err = messageToPB(r.Message); err != nil {
			return err
		}
	}
	if c := r.Configuration; c != nil {
		out.Configuration = &pb.SendMessageConfiguration{
			AcceptedOutputModes: strs(c.AcceptedOutputModes), HistoryLength: c.HistoryLength, ReturnImmediately: c.ReturnImmediately,
		}
		if p := c.TaskPushNotificationConfig; p != nil {
			q := &pb.TaskPushNotificationConfig{Tenant: str(p.Tenant), Id: str(p.ID), TaskId: str(p.TaskID), Url: str(p.URL), Token: str(p.Token)}
			if a := p.Authentication; a != nil {
				q.Authentication = &pb.AuthenticationInfo{Scheme: str(a.Scheme), Credentials: str(a.Credentials)}
			}
			out.Configuration.TaskPushNotificationConfig = q
		}
	}
	out.Metadata, err = structToPB(r.Metadata)
	return err
}

// --- the client's direction ------------------------------------------------

func taskFromPB(t *pb.Task, out *a2a.Task) error {
	out.ID, out.ContextID = t.GetId(), t.GetContextId()
	var err error
	if err = statusFromPB(t.GetStatus(), &out.Status); err != nil {
		return err
	}
	for _, a := range t.GetArtifacts() {
		var x a2a.Artifact
		if err = artifactFromPB(a, &x); err != nil {
			return err
		}
		out.Artifacts = append(out.Artifacts, x)
	}
	for _, m := range t.GetHistory() {
		x, err := messageFromPB(m)
		if err != nil {
			return err
		}
		out.History = append(out.History, *x)
	}
	out.Metadata = structFromPB(t.GetMetadata())
	return nil
}

func statusFromPB(s *pb.TaskStatus, out *a2a.TaskStatus) error {
	name, ok := pb.TaskState_name[int32(s.GetState())]
	if !ok {
		return errIndirect // an unknown state: the decoder's own rules
	}
	out.State = a2a.TaskState(name)
	if m := s.GetMessage(); m != nil {
		var err error
		if out.Message, err = messageFromPB(m); err != nil {
			return err
		}
	}
	if ts := s.GetTimestamp(); ts != nil {
		if err := ts.CheckValid(); err != nil {
			return errIndirect
		}
		t := ts.AsTime()
		out.Timestamp = &t
	}
	return nil
}

func messageFromPB(m *pb.Message) (*a2a.Message, error) {
	name, ok := pb.Role_name[int32(m.GetRole())]
	if !ok {
		return nil, errIndirect
	}
	out := &a2a.Message{
		MessageID: m.GetMessageId(), ContextID: m.GetContextId(), TaskID: m.GetTaskId(), Role: a2a.Role(name),
		Extensions: m.GetExtensions(), ReferenceTaskIDs: m.GetReferenceTaskIds(), Metadata: structFromPB(m.GetMetadata()),
	}
	var err error
	if out.Parts, err = partsFromPB(m.GetParts()); err != nil {
		return nil, err
	}
	return out, nil
}

func artifactFromPB(a *pb.Artifact, out *a2a.Artifact) error {
	out.ArtifactID, out.Name, out.Description = a.GetArtifactId(), a.GetName(), a.GetDescription()
	out.Extensions, out.Metadata = a.GetExtensions(), structFromPB(a.GetMetadata())
	var err error
	out.Parts, err = partsFromPB(a.GetParts())
	return err
}

func partsFromPB(parts []*pb.Part) ([]a2a.Part, error) {
	out := make([]a2a.Part, 0, len(parts))
	for _, p := range parts {
		q := a2a.Part{Filename: p.GetFilename(), MediaType: p.GetMediaType(), Metadata: structFromPB(p.GetMetadata())}
		switch c := p.GetContent().(type) {
		case *pb.Part_Text:
			q.Kind, q.Text = a2a.PartText, c.Text
		case *pb.Part_Raw:
			q.Kind, q.Raw = a2a.PartRaw, c.Raw
		case *pb.Part_Url:
			q.Kind, q.URL = a2a.PartURL, c.Url
		case *pb.Part_Data:
			raw, err := json.Marshal(c.Data.AsInterface())
			if err != nil {
				return nil, errIndirect
			}
			q.Kind, q.Data = a2a.PartData, raw
		default:
			return nil, errIndirect // a part of a kind this version does not know
		}
		out = append(out, q)
	}
	return out, nil
}

func structFromPB(s *structpb.Struct) a2a.Metadata {
	if s == nil || len(s.GetFields()) == 0 {
		return nil
	}
	return s.AsMap()
}

func streamFromPB(ev *pb.StreamResponse, out *a2a.StreamResponse) error {
	var err error
	switch p := ev.GetPayload().(type) {
	case *pb.StreamResponse_Task:
		out.Task = new(a2a.Task)
		err = taskFromPB(p.Task, out.Task)
	case *pb.StreamResponse_Message:
		out.Message, err = messageFromPB(p.Message)
	case *pb.StreamResponse_StatusUpdate:
		u := p.StatusUpdate
		out.StatusUpdate = &a2a.TaskStatusUpdateEvent{TaskID: u.GetTaskId(), ContextID: u.GetContextId(), Metadata: structFromPB(u.GetMetadata())}
		err = statusFromPB(u.GetStatus(), &out.StatusUpdate.Status)
	case *pb.StreamResponse_ArtifactUpdate:
		u := p.ArtifactUpdate
		out.ArtifactUpdate = &a2a.TaskArtifactUpdateEvent{TaskID: u.GetTaskId(), ContextID: u.GetContextId(), Append: u.GetAppend(), LastChunk: u.GetLastChunk(), Metadata: structFromPB(u.GetMetadata())}
		if u.GetArtifact() != nil {
			err = artifactFromPB(u.GetArtifact(), &out.ArtifactUpdate.Artifact)
		}
	default:
		return errIndirect
	}
	return err
}
