package v03

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/client"
)

var _ client.LegacyREST = (*Client)(nil)

func seg(s string) string { return url.PathEscape(s) }

// RESTRequest is the 0.3 HTTP+JSON request of a 1.0 call.
func (c *Client) RESTRequest(method string, params any) (string, string, url.Values, any, error) {
	t := c.tr()
	switch p := params.(type) {
	case *a2a.SendMessageRequest:
		path := "/v1/message:send"
		if method == a2a.MethodSendStreamingMessage {
			path = "/v1/message:stream"
		}
		blocking := true
		body := &restSendRequest{Message: t.restMessageTo03(p.Message), Metadata: p.Metadata, Configuration: &restSendConfig{Blocking: &blocking}}
		if cfg := p.Configuration; cfg != nil {
			blocking = !cfg.ReturnImmediately
			body.Configuration.AcceptedOutputModes, body.Configuration.HistoryLength = cfg.AcceptedOutputModes, cfg.HistoryLength
			if cfg.TaskPushNotificationConfig != nil {
				body.Configuration.PushNotification = pushConfigTo03(cfg.TaskPushNotificationConfig)
			}
		}
		return http.MethodPost, path, nil, body, nil
	case *a2a.GetTaskRequest:
		var q url.Values
		if p.HistoryLength != nil {
			q = url.Values{"historyLength": {strconv.Itoa(int(*p.HistoryLength))}}
		}
		return http.MethodGet, "/v1/tasks/" + seg(p.ID), q, nil, nil
	case *a2a.CancelTaskRequest:
		return http.MethodPost, "/v1/tasks/" + seg(p.ID) + ":cancel", nil, struct{}{}, nil
	case *a2a.SubscribeToTaskRequest:
		return http.MethodPost, "/v1/tasks/" + seg(p.ID) + ":subscribe", nil, struct{}{}, nil
	case *a2a.TaskPushNotificationConfig:
		return http.MethodPost, "/v1/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs", nil, restPushTo03(p), nil
	case *a2a.GetTaskPushNotificationConfigRequest:
		return http.MethodGet, "/v1/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs/" + seg(p.ID), nil, nil, nil
	case *a2a.ListTaskPushNotificationConfigsRequest:
		return http.MethodGet, "/v1/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs", nil, nil, nil
	case *a2a.DeleteTaskPushNotificationConfigRequest:
		return http.MethodDelete, "/v1/tasks/" + seg(p.TaskID) + "/pushNotificationConfigs/" + seg(p.ID), nil, nil, nil
	case *a2a.GetExtendedAgentCardRequest:
		return http.MethodGet, "/v1/card", nil, nil, nil
	}
	return "", "", nil, nil, a2a.ErrUnsupportedOperation.Withf("A2A 0.3 agents have no %s", method)
}

func (t translator) restStatusTo10(s *restStatus) (a2a.TaskStatus, error) {
	out := a2a.TaskStatus{State: restStateTo10(s.State)}
	if out.State == a2a.TaskStateUnspecified && s.State != "" && s.State != string(a2a.TaskStateUnspecified) {
		t.skipped("task state", s.State)
	}
	m := s.Message
	if m == nil {
		m = s.Update
	}
	msg, err := t.restMessageTo10(m, false)
	if err != nil {
		return out, fmt.Errorf("status.message: %w", err)
	}
	out.Message = msg
	if s.Timestamp != "" {
		if ts, err := time.Parse(time.RFC3339Nano, s.Timestamp); err == nil {
			ts = ts.UTC()
			out.Timestamp = &ts
		}
	}
	return out, nil
}

func (t translator) restArtifactTo10(a *restArtifact) (a2a.Artifact, error) {
	parts, err := t.restPartsTo10(a.Parts)
	if err != nil {
		return a2a.Artifact{}, err
	}
	return a2a.Artifact{ArtifactID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: parts, Metadata: a.Metadata, Extensions: a.Extensions}, nil
}

func (t translator) restTaskTo10(in *restTask) (*a2a.Task, error) {
	st, err := t.restStatusTo10(&in.Status)
	if err != nil {
		return nil, err
	}
	out := &a2a.Task{ID: in.ID, ContextID: in.ContextID, Status: st, Metadata: in.Metadata}
	for i := range in.History {
		m, err := t.restMessageTo10(&in.History[i], false)
		if err != nil {
			return nil, fmt.Errorf("history[%d]: %w", i, err)
		}
		out.History = append(out.History, *m)
	}
	for i := range in.Artifacts {
		a, err := t.restArtifactTo10(&in.Artifacts[i])
		if err != nil {
			return nil, fmt.Errorf("artifacts[%d]: %w", i, err)
		}
		out.Artifacts = append(out.Artifacts, a)
	}
	return out, nil
}

func (t translator) restResponseTo10(r *restResponse) (*a2a.StreamResponse, error) {
	switch {
	case r.Task != nil:
		task, err := t.restTaskTo10(r.Task)
		if err != nil {
			return nil, err
		}
		return &a2a.StreamResponse{Task: task}, nil
	case r.Message != nil || r.Msg != nil:
		m := r.Message
		if m == nil {
			m = r.Msg
		}
		msg, err := t.restMessageTo10(m, false)
		if err != nil {
			return nil, err
		}
		return &a2a.StreamResponse{Message: msg}, nil
	case r.StatusUpdate != nil:
		u := r.StatusUpdate
		st, err := t.restStatusTo10(&u.Status)
		if err != nil {
			return nil, err
		}
		return &a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: u.TaskID, ContextID: u.ContextID, Status: st, Metadata: u.Metadata}}, nil
	case r.ArtifactUpdate != nil:
		u := r.ArtifactUpdate
		art, err := t.restArtifactTo10(&u.Artifact)
		if err != nil {
			return nil, err
		}
		return &a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: u.TaskID, ContextID: u.ContextID, Artifact: art, Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata}}, nil
	}
	t.skipped("event", "unknown")
	return nil, nil
}

// taskIDOfName reads the task id of "tasks/{id}/pushNotificationConfigs/{id}".
func taskIDOfName(name string) string {
	segs, err := splitPath(name)
	if err != nil || len(segs) < 2 || segs[0] != "tasks" {
		return ""
	}
	return segs[1]
}

// RESTResult reads a 0.3 HTTP+JSON answer into the 1.0 result out points to.
func (c *Client) RESTResult(method string, body json.RawMessage, out any) error {
	t := c.tr()
	switch o := out.(type) {
	case *a2a.SendMessageResponse:
		var r restResponse
		if err := decode(body, &r); err != nil {
			return fmt.Errorf("the 0.3 answer: %s", clip(err.Error()))
		}
		ev, err := t.restResponseTo10(&r)
		if err != nil {
			return fmt.Errorf("the 0.3 answer: %s", err.Error())
		}
		if ev == nil || ev.Task == nil && ev.Message == nil {
			return fmt.Errorf("the 0.3 answer is not a task or message")
		}
		o.Task, o.Message = ev.Task, ev.Message
		return nil
	case *a2a.Task:
		var r restTask
		if err := decode(body, &r); err != nil {
			return fmt.Errorf("the 0.3 task: %s", clip(err.Error()))
		}
		task, err := t.restTaskTo10(&r)
		if err != nil {
			return fmt.Errorf("the 0.3 task: %s", err.Error())
		}
		*o = *task
		return nil
	case *a2a.TaskPushNotificationConfig:
		var r restPushConfig
		if err := decode(body, &r); err != nil {
			return fmt.Errorf("the 0.3 push notification config: %s", clip(err.Error()))
		}
		*o = *pushTo10(taskIDOfName(r.Name), &r.PushNotificationConfig)
		return nil
	case *a2a.ListTaskPushNotificationConfigsResponse:
		var r restPushList
		if err := decode(body, &r); err != nil {
			var list []restPushConfig // some 0.3 agents answer a bare list
			if decode(body, &list) != nil {
				return fmt.Errorf("the 0.3 push notification config list: %s", clip(err.Error()))
			}
			r.Configs = list
		}
		for i := range r.Configs {
			o.Configs = append(o.Configs, *pushTo10(taskIDOfName(r.Configs[i].Name), &r.Configs[i].PushNotificationConfig))
		}
		o.NextPageToken = r.NextPageToken
		return nil
	case *json.RawMessage:
		*o = append((*o)[:0], body...)
		return nil
	case *a2a.AgentCard:
		card, _, err := ReadCard(body)
		if err != nil {
			return err
		}
		*o = *card
		return nil
	}
	return fmt.Errorf("a2a/v03: no 1.0 result for %s (%T)", method, out)
}

// RESTEvent reads a 0.3 HTTP+JSON stream event.
func (c *Client) RESTEvent(data json.RawMessage) (*a2a.StreamResponse, error) {
	var r restResponse
	if err := decode(data, &r); err != nil {
		return nil, fmt.Errorf("the 0.3 event: %s", clip(err.Error()))
	}
	return c.tr().restResponseTo10(&r)
}
