package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// clientRoute is one call of the HTTP+JSON binding.
type clientRoute struct {
	verb  string
	path  string // escaped, starting with "/", without the tenant prefix
	query url.Values
	body  any // nil: no body
	// getFallback retries as a bodyless GET when the agent answers 405:
	// agents disagree on the verb of :subscribe.
	getFallback bool
}

// clientSegment escapes one path segment. Besides what url.PathEscape
// escapes ('/' among them), it escapes ':' (the custom-verb separator, so an
// id cannot turn GET /tasks/{id} into a :cancel) and the dot segments "."
// and ".." (so an id cannot climb out of /tasks when a proxy cleans the path).
func clientSegment(s string) string {
	switch s {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	e := url.PathEscape(s)
	if strings.IndexByte(e, ':') >= 0 {
		e = strings.ReplaceAll(e, ":", "%3A")
	}
	return e
}

// restURL joins the interface URL, the tenant prefix, the path and the query.
func (c *Client) restURL(tenant, path string, q url.Values) string {
	var b strings.Builder
	b.WriteString(c.base)
	if tenant != "" {
		b.WriteByte('/')
		b.WriteString(clientSegment(tenant))
	}
	b.WriteString(path)
	if len(q) > 0 {
		b.WriteByte('?')
		b.WriteString(q.Encode())
	}
	return b.String()
}

// restSend sends the op's route, retrying as GET on 405 when it may.
func (c *Client) restSend(ctx context.Context, op clientOp, accept string) (*http.Response, error) {
	r := op.route()
	u := c.restURL(op.tenant, r.path, r.query)
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return nil, err
		}
	}
	resp, err := c.send(ctx, r.verb, u, body, accept)
	if err == nil && r.getFallback && resp.StatusCode == http.StatusMethodNotAllowed {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		resp, err = c.send(ctx, http.MethodGet, u, nil, accept)
	}
	return resp, err
}

// clientRESTCall runs a unary HTTP+JSON call.
func clientRESTCall[T any](ctx context.Context, c *Client, op clientOp) (*T, error) {
	resp, err := c.restSend(ctx, op, "application/json")
	if err != nil {
		return nil, &clientError{op: op.name, err: err}
	}
	defer resp.Body.Close()
	data, err := c.readBody(op.name, resp)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, clientHTTPError(op.name, resp, data)
	}
	out := new(T)
	if len(strings.TrimSpace(string(data))) == 0 {
		if op.emptyOK {
			return out, nil
		}
		return nil, clientBadResponse(op.name, "the response body is empty")
	}
	if err := a2a.UnmarshalStrict(data, out); err != nil {
		return nil, clientBadResponse(op.name, "the response is not valid JSON of the expected shape: "+err.Error())
	}
	return out, nil
}

// clientRESTEvent decodes one SSE event of the HTTP+JSON binding: a bare
// StreamResponse or an {"error": …} object. It returns nil, nil for an
// event of unknown kind.
func clientRESTEvent(op string, data []byte) (*a2a.StreamResponse, error) {
	ev := new(a2a.StreamResponse)
	if err := a2a.UnmarshalStrict(data, ev); err != nil {
		return nil, clientBadResponse(op, "an event is not valid JSON: "+err.Error())
	}
	if ev.Kind() != "" {
		return ev, nil
	}
	if e := clientErrorBody(http.StatusOK, data); e != nil {
		return nil, &clientError{op: op, err: e}
	}
	clientSkipUnknown(op)
	return nil, nil
}

// clientRouteSendMessage posts the request without its tenant, which
// travels in the path.
func clientRouteSendMessage(r *a2a.SendMessageRequest, verb string) clientRoute {
	b := *r
	b.Tenant = ""
	return clientRoute{verb: http.MethodPost, path: "/" + verb, body: &b}
}

func clientRouteGetTask(r *a2a.GetTaskRequest) clientRoute {
	q := url.Values{}
	if r.HistoryLength != nil {
		q.Set("historyLength", strconv.FormatInt(int64(*r.HistoryLength), 10))
	}
	return clientRoute{verb: http.MethodGet, path: "/tasks/" + clientSegment(r.ID), query: q}
}

func clientRouteListTasks(r *a2a.ListTasksRequest) clientRoute {
	q := url.Values{}
	if r.ContextID != "" {
		q.Set("contextId", r.ContextID)
	}
	if r.Status != "" && r.Status != a2a.TaskStateUnspecified {
		q.Set("status", string(r.Status))
	}
	if r.PageSize != nil {
		q.Set("pageSize", strconv.FormatInt(int64(*r.PageSize), 10))
	}
	if r.PageToken != "" {
		q.Set("pageToken", r.PageToken)
	}
	if r.HistoryLength != nil {
		q.Set("historyLength", strconv.FormatInt(int64(*r.HistoryLength), 10))
	}
	if r.StatusTimestampAfter != nil {
		q.Set("statusTimestampAfter", r.StatusTimestampAfter.UTC().Format(time.RFC3339Nano))
	}
	if r.IncludeArtifacts != nil {
		q.Set("includeArtifacts", strconv.FormatBool(*r.IncludeArtifacts))
	}
	return clientRoute{verb: http.MethodGet, path: "/tasks", query: q}
}

// clientCancelBody is the body of :cancel: {} or the metadata.
type clientCancelBody struct {
	Metadata a2a.Metadata `json:"metadata,omitempty"`
}

func clientRouteCancelTask(r *a2a.CancelTaskRequest) clientRoute {
	return clientRoute{verb: http.MethodPost, path: "/tasks/" + clientSegment(r.ID) + ":cancel",
		body: clientCancelBody{Metadata: r.Metadata}}
}

func clientRouteSubscribe(r *a2a.SubscribeToTaskRequest) clientRoute {
	return clientRoute{verb: http.MethodPost, path: "/tasks/" + clientSegment(r.ID) + ":subscribe",
		body: struct{}{}, getFallback: true}
}

func clientRouteCreatePush(r *a2a.TaskPushNotificationConfig) clientRoute {
	b := *r
	b.Tenant = ""
	return clientRoute{verb: http.MethodPost, path: "/tasks/" + clientSegment(r.TaskID) + "/pushNotificationConfigs", body: &b}
}

func clientRoutePushConfig(verb, taskID, id string) clientRoute {
	return clientRoute{verb: verb, path: "/tasks/" + clientSegment(taskID) + "/pushNotificationConfigs/" + clientSegment(id)}
}

func clientRouteListPush(r *a2a.ListTaskPushNotificationConfigsRequest) clientRoute {
	q := url.Values{}
	if r.PageSize > 0 {
		q.Set("pageSize", strconv.FormatInt(int64(r.PageSize), 10))
	}
	if r.PageToken != "" {
		q.Set("pageToken", r.PageToken)
	}
	return clientRoute{verb: http.MethodGet, path: "/tasks/" + clientSegment(r.TaskID) + "/pushNotificationConfigs", query: q}
}
