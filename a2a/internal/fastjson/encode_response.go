//go:build !bridge_nofastjson

package fastjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// The responses written most often (a task, a message, a SendMessage
// result, a stream event, each alone or in a JSON-RPC envelope) are
// appended here by hand. Written by encoding/json, such a response was
// walked by reflection, each Part, Message, Artifact and TaskStatus was
// encoded into a buffer of its own by its MarshalJSON method, and the
// encoder then validated and compacted all of that output a second time.
//
// The bytes are those a json.Encoder with HTML escaping on writes (without
// its trailing newline): same member order, same omissions, same escaping.
// Errors are wrapped as encoding/json wraps them, but the callers do not
// rely on that: when appending fails they encode the value again with
// encoding/json, so an invalid value is reported exactly as before.

var (
	typeTaskStatus        = reflect.TypeFor[a2a.TaskStatus]()
	typeMessage           = reflect.TypeFor[a2a.Message]()
	typeArtifact          = reflect.TypeFor[a2a.Artifact]()
	typeListTasksResponse = reflect.TypeFor[*a2a.ListTasksResponse]()
)

// errNotKnown says a value has no hand-written encoder.
var errNotKnown = errors.New("fastjson: no fast encoder for this value")

// AppendKnown appends v when it is one of the shapes with a hand-written
// encoder: a JSON-RPC envelope whose result is one of them (or nil), or a
// *Task, *Message, *SendMessageResponse, *StreamResponse or
// *ListTasksResponse. Other values give errNotKnown.
func AppendKnown(dst []byte, v any) ([]byte, error) {
	if r, ok := v.(a2a.RPCReply); ok {
		return appendRPCResponse(dst, &r)
	}
	return appendResult(dst, v)
}

// appendResult appends a response body of a known type.
func appendResult(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case *a2a.Task:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendTask(dst, x)
	case *a2a.Message:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendMessagePtr(dst, x)
	case *a2a.SendMessageResponse:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendSendMessageResponse(dst, x)
	case *a2a.StreamResponse:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return appendStreamResponse(dst, x)
	case *a2a.ListTasksResponse:
		if x == nil {
			return append(dst, "null"...), nil
		}
		b, err := appendListTasksResponse(dst, x)
		if err != nil {
			return nil, &json.MarshalerError{Type: typeListTasksResponse, Err: err}
		}
		return b, nil
	}
	return nil, errNotKnown
}

// appendRPCResponse appends a JSON-RPC envelope. The id is written as
// json.RawMessage is: as is when compact, valid and free of characters
// the encoder escapes, else through json.Marshal (compacted, escaped, an
// error when invalid, "null" when nil).
func appendRPCResponse(dst []byte, r *a2a.RPCReply) ([]byte, error) {
	dst = append(dst, `{"jsonrpc":`...)
	dst = appendString(dst, r.JSONRPC)
	dst = append(dst, `,"id":`...)
	if id := r.ID; len(id) > 0 && plainJSON(id) && json.Valid(id) {
		dst = append(dst, id...)
	} else {
		b, err := json.Marshal(id)
		if err != nil {
			return nil, err
		}
		dst = append(dst, b...)
	}
	var err error
	if r.Result != nil {
		dst = append(dst, `,"result":`...)
		if dst, err = appendResult(dst, r.Result); err != nil {
			return nil, err
		}
	}
	if r.Error != nil {
		dst = append(dst, `,"error":`...)
		if dst, err = appendRPCError(dst, r.Error); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// plainJSON reports whether compacting JSON with HTML escaping leaves b
// as it is: no whitespace between tokens, nothing the encoder escapes.
func plainJSON(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2:
			return false
		}
	}
	return true
}

func appendRPCError(dst []byte, e *a2a.RPCReplyError) ([]byte, error) {
	dst = append(dst, `{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, e.Message)
	if len(e.Data) > 0 {
		dst = append(dst, `,"data":[`...)
		for i, m := range e.Data {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendObject(dst, m); err != nil {
				return nil, err
			}
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

// appendTask appends t as encoding/json writes a Task.
func appendTask(dst []byte, t *a2a.Task) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, t.ID)
	if t.ContextID != "" {
		dst = append(dst, `,"contextId":`...)
		dst = appendString(dst, t.ContextID)
	}
	dst = append(dst, `,"status":`...)
	var err error
	if dst, err = appendStatus(dst, &t.Status); err != nil {
		return nil, &json.MarshalerError{Type: typeTaskStatus, Err: err}
	}
	if len(t.Artifacts) > 0 {
		dst = append(dst, `,"artifacts":[`...)
		for i := range t.Artifacts {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendArtifact(dst, &t.Artifacts[i]); err != nil {
				return nil, &json.MarshalerError{Type: typeArtifact, Err: err}
			}
		}
		dst = append(dst, ']')
	}
	if len(t.History) > 0 {
		dst = append(dst, `,"history":[`...)
		for i := range t.History {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendMessage(dst, &t.History[i]); err != nil {
				return nil, &json.MarshalerError{Type: typeMessage, Err: err}
			}
		}
		dst = append(dst, ']')
	}
	if dst, err = appendMetadata(dst, `,"metadata":`, t.Metadata); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendMessagePtr appends a message reached through a *Message, whose
// MarshalJSON errors encoding/json wraps with that pointer type.
func appendMessagePtr(dst []byte, m *a2a.Message) ([]byte, error) {
	dst, err := appendMessage(dst, m)
	if err != nil {
		return nil, &json.MarshalerError{Type: typeMessagePtr, Err: err}
	}
	return dst, nil
}

// appendSendMessageResponse appends the members set, task before message:
// the first two members of a StreamResponse, written the same way.
func appendSendMessageResponse(dst []byte, r *a2a.SendMessageResponse) ([]byte, error) {
	return appendStreamResponse(dst, &a2a.StreamResponse{Task: r.Task, Message: r.Message})
}

// appendStreamResponse appends the members set in field order; none set
// gives {}.
func appendStreamResponse(dst []byte, r *a2a.StreamResponse) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	sep := ""
	if r.Task != nil {
		dst = append(dst, `"task":`...)
		if dst, err = appendTask(dst, r.Task); err != nil {
			return nil, err
		}
		sep = ","
	}
	if r.Message != nil {
		dst = append(dst, sep...)
		dst = append(dst, `"message":`...)
		if dst, err = appendMessagePtr(dst, r.Message); err != nil {
			return nil, err
		}
		sep = ","
	}
	if r.StatusUpdate != nil {
		dst = append(dst, sep...)
		dst = append(dst, `"statusUpdate":`...)
		if dst, err = appendStatusUpdate(dst, r.StatusUpdate); err != nil {
			return nil, err
		}
		sep = ","
	}
	if r.ArtifactUpdate != nil {
		dst = append(dst, sep...)
		dst = append(dst, `"artifactUpdate":`...)
		if dst, err = appendArtifactUpdate(dst, r.ArtifactUpdate); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func appendStatusUpdate(dst []byte, u *a2a.TaskStatusUpdateEvent) ([]byte, error) {
	dst = append(dst, `{"taskId":`...)
	dst = appendString(dst, u.TaskID)
	dst = append(dst, `,"contextId":`...)
	dst = appendString(dst, u.ContextID)
	dst = append(dst, `,"status":`...)
	var err error
	if dst, err = appendStatus(dst, &u.Status); err != nil {
		return nil, &json.MarshalerError{Type: typeTaskStatus, Err: err}
	}
	if dst, err = appendMetadata(dst, `,"metadata":`, u.Metadata); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

func appendArtifactUpdate(dst []byte, u *a2a.TaskArtifactUpdateEvent) ([]byte, error) {
	dst = append(dst, `{"taskId":`...)
	dst = appendString(dst, u.TaskID)
	dst = append(dst, `,"contextId":`...)
	dst = appendString(dst, u.ContextID)
	dst = append(dst, `,"artifact":`...)
	var err error
	if dst, err = appendArtifact(dst, &u.Artifact); err != nil {
		return nil, &json.MarshalerError{Type: typeArtifact, Err: err}
	}
	if u.Append {
		dst = append(dst, `,"append":true`...)
	}
	if u.LastChunk {
		dst = append(dst, `,"lastChunk":true`...)
	}
	if dst, err = appendMetadata(dst, `,"metadata":`, u.Metadata); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// appendListTasksResponse appends what ListTasksResponse.MarshalJSON
// writes: tasks as a list even when empty, the other members always.
func appendListTasksResponse(dst []byte, r *a2a.ListTasksResponse) ([]byte, error) {
	dst = append(dst, `{"tasks":[`...)
	for i := range r.Tasks {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendTask(dst, &r.Tasks[i]); err != nil {
			return nil, err
		}
	}
	dst = append(dst, `],"nextPageToken":`...)
	dst = appendString(dst, r.NextPageToken)
	dst = append(dst, `,"pageSize":`...)
	dst = strconv.AppendInt(dst, int64(r.PageSize), 10)
	dst = append(dst, `,"totalSize":`...)
	dst = strconv.AppendInt(dst, int64(r.TotalSize), 10)
	return append(dst, '}'), nil
}
