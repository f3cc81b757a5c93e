package v03

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/server"
	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
)

// Dialect answers A2A 0.3 callers at a 1.0 server's edge: it is the
// server's server.Legacy. Each 0.3 request is decoded strictly, once, into
// the 1.0 request the server runs; results and events are written back in
// 0.3 shapes.
type Dialect struct {
	// Logger receives what is skipped (default slog.Default()).
	Logger *slog.Logger
}

var _ server.Legacy = (*Dialect)(nil)

func (d *Dialect) tr() translator { return translator{log: d.Logger} }

var schemas sync.Map // reflect.Type → *strictjson.Schema

// decode reads a 0.3 document into v, refusing what can be read two ways
// (a member named in another case, a duplicate member, invalid UTF-8), as
// the 1.0 decoders do; unknown members are ignored.
func decode(b []byte, v any) error {
	t := reflect.TypeOf(v)
	s, ok := schemas.Load(t)
	if !ok {
		s, _ = schemas.LoadOrStore(t, strictjson.For(t, strictjson.Options{}))
	}
	if err := s.(*strictjson.Schema).Check(b); err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && se.Kind != strictjson.KindSyntax {
			return err
		}
		if jerr := json.Unmarshal(b, v); jerr != nil {
			return jerr
		}
		return err
	}
	return json.Unmarshal(b, v)
}

func paramsError(err error) error {
	var se *strictjson.Error
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return a2a.ErrInvalidParams.Withf("invalid params: %s", se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "value"
		}
		return a2a.ErrInvalidParams.Withf("invalid params: field %s has the wrong type", clip(field))
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return a2a.ErrInvalidParams.Withf("invalid params: %s", msg)
}

func decodeParams(raw []byte, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if err := decode(raw, v); err != nil {
		return paramsError(err)
	}
	return nil
}

// DecodeRPC maps a 0.3 JSON-RPC method and its params to the 1.0 call.
func (d *Dialect) DecodeRPC(method string, params []byte) (string, any, error) {
	switch method {
	case MethodMessageSend, MethodMessageStream:
		var p SendParams
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		req, err := d.tr().sendTo10(&p)
		if err != nil {
			return "", nil, a2a.ErrInvalidParams.Withf("invalid params: %s", err.Error())
		}
		if method == MethodMessageStream {
			return a2a.MethodSendStreamingMessage, req, nil
		}
		return a2a.MethodSendMessage, req, nil
	case MethodTasksGet:
		var p TaskQueryParams
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		return a2a.MethodGetTask, &a2a.GetTaskRequest{ID: p.ID, HistoryLength: p.HistoryLength}, nil
	case MethodTasksCancel:
		var p TaskIDParams
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		return a2a.MethodCancelTask, &a2a.CancelTaskRequest{ID: p.ID, Metadata: p.Metadata}, nil
	case MethodTasksResubscribe:
		var p TaskIDParams
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		return a2a.MethodSubscribeToTask, &a2a.SubscribeToTaskRequest{ID: p.ID}, nil
	case MethodPushConfigSet:
		var p TaskPushConfig
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		return a2a.MethodCreatePushConfig, pushSetTo10(&p), nil
	case MethodPushConfigGet:
		var p PushConfigParams
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		return a2a.MethodGetPushConfig, &a2a.GetTaskPushNotificationConfigRequest{TaskID: p.ID, ID: orTaskID(p.PushNotificationConfigID, p.ID)}, nil
	case MethodPushConfigList:
		var p TaskIDParams
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		return a2a.MethodListPushConfigs, &a2a.ListTaskPushNotificationConfigsRequest{TaskID: p.ID}, nil
	case MethodPushConfigDelete:
		var p PushConfigParams
		if err := decodeParams(params, &p); err != nil {
			return "", nil, err
		}
		if p.PushNotificationConfigID == "" {
			return "", nil, a2a.ErrInvalidParams.With("pushNotificationConfigId is required")
		}
		return a2a.MethodDeletePushConfig, &a2a.DeleteTaskPushNotificationConfigRequest{TaskID: p.ID, ID: p.PushNotificationConfigID}, nil
	case MethodAuthenticatedCard:
		return a2a.MethodGetExtendedAgentCard, &a2a.GetExtendedAgentCardRequest{}, nil
	}
	return "", nil, a2a.ErrMethodNotFound.Withf("method %q not found", clip(method))
}

// orTaskID is the config id of a 0.3 call that may leave it out: the 0.3
// SDKs then use the task's id as the config's.
func orTaskID(configID, taskID string) string {
	if configID != "" {
		return configID
	}
	return taskID
}

func pushSetTo10(p *TaskPushConfig) *a2a.TaskPushNotificationConfig {
	c := pushTo10(p.TaskID, &p.PushNotificationConfig)
	c.ID = orTaskID(c.ID, p.TaskID)
	return c
}

// Result writes a 1.0 result of method in its 0.3 shape.
func (d *Dialect) Result(method string, res any) (any, error) {
	t := d.tr()
	switch r := res.(type) {
	case *a2a.SendMessageResponse:
		if r.Task != nil {
			return t.taskTo03(r.Task), nil
		}
		if r.Message != nil {
			return t.messageTo03(r.Message), nil
		}
	case *a2a.Task:
		return t.taskTo03(r), nil
	case *a2a.TaskPushNotificationConfig:
		return pushTo03(r), nil
	case *a2a.ListTaskPushNotificationConfigsResponse:
		out := make([]*TaskPushConfig, 0, len(r.Configs))
		for i := range r.Configs {
			out = append(out, pushTo03(&r.Configs[i]))
		}
		return out, nil
	case *a2a.Empty:
		return json.RawMessage("null"), nil
	case *a2a.AgentCard:
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("a2a/v03: encode card: %w", err)
		}
		view, err := CardJSON(b)
		if err != nil {
			return nil, err
		}
		return json.RawMessage(view), nil
	}
	return nil, fmt.Errorf("a2a/v03: no 0.3 shape for the result of %s (%T)", method, res)
}

// Event writes a stream event in its 0.3 shape.
func (d *Dialect) Event(ev *a2a.StreamResponse) any { return d.tr().eventTo03(ev) }
