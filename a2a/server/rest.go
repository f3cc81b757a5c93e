package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// restRoute is a parsed HTTP+JSON request path.
type restRoute struct {
	method    string // A2A method
	tenant    string
	id        string // task id
	configID  string // push config id
	streaming bool
	allow     string // the HTTP verbs the path takes
}

// routeREST maps an HTTP verb and a path below /rest to an A2A method.
// Paths follow the proto's HTTP annotations, optionally prefixed by a tenant.
func routeREST(verb, rawPath string) (*restRoute, *a2a.Error) {
	segs, err := splitPath(rawPath)
	if err != nil {
		return nil, a2a.ErrInvalidRequest.With("malformed request path")
	}
	rt := &restRoute{}
	if len(segs) > 1 && !isRESTRoot(segs[0]) {
		rt.tenant, segs = segs[0], segs[1:]
	}
	notFound := a2a.ErrMethodNotFound.With("no A2A HTTP+JSON route for this path")
	if len(segs) == 0 {
		return nil, notFound
	}
	want := func(allow string, verbs ...string) *a2a.Error {
		rt.allow = allow
		for _, v := range verbs {
			if v == verb {
				return nil
			}
		}
		return a2a.ErrMethodNotFound.Withf("%s is not allowed here; use %s", verb, allow).WithStatus(http.StatusMethodNotAllowed)
	}
	switch {
	case len(segs) == 1 && segs[0] == "message:send":
		rt.method = a2a.MethodSendMessage
		return rt, want("POST", http.MethodPost)
	case len(segs) == 1 && segs[0] == "message:stream":
		rt.method, rt.streaming = a2a.MethodSendStreamingMessage, true
		return rt, want("POST", http.MethodPost)
	case len(segs) == 1 && segs[0] == "extendedAgentCard":
		rt.method = a2a.MethodGetExtendedAgentCard
		return rt, want("GET", http.MethodGet)
	case len(segs) == 1 && segs[0] == "tasks":
		rt.method = a2a.MethodListTasks
		return rt, want("GET", http.MethodGet)
	case len(segs) == 2 && segs[0] == "tasks":
		id, verbSuffix := splitCustomVerb(segs[1])
		if id == "" {
			return nil, notFound
		}
		rt.id = id
		switch verbSuffix {
		case "":
			rt.method = a2a.MethodGetTask
			return rt, want("GET", http.MethodGet)
		case "cancel":
			rt.method = a2a.MethodCancelTask
			return rt, want("POST", http.MethodPost)
		case "subscribe":
			rt.method, rt.streaming = a2a.MethodSubscribeToTask, true
			return rt, want("GET, POST", http.MethodGet, http.MethodPost)
		}
		return nil, notFound
	case len(segs) == 3 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs" && segs[1] != "":
		rt.id = segs[1]
		if verb == http.MethodPost {
			rt.method = a2a.MethodCreatePushConfig
		} else {
			rt.method = a2a.MethodListPushConfigs
		}
		return rt, want("GET, POST", http.MethodGet, http.MethodPost)
	case len(segs) == 4 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs" && segs[1] != "" && segs[3] != "":
		rt.id, rt.configID = segs[1], segs[3]
		if verb == http.MethodDelete {
			rt.method = a2a.MethodDeletePushConfig
		} else {
			rt.method = a2a.MethodGetPushConfig
		}
		return rt, want("GET, DELETE", http.MethodGet, http.MethodDelete)
	}
	return nil, notFound
}

func isRESTRoot(seg string) bool {
	return seg == "tasks" || seg == "extendedAgentCard" || strings.HasPrefix(seg, "message:")
}

// splitPath splits an escaped path into unescaped segments.
func splitPath(p string) ([]string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil, nil
	}
	raw := strings.Split(p, "/")
	out := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil {
			return nil, err
		}
		out[i] = u
	}
	return out, nil
}

// splitCustomVerb splits "id:verb" at the last colon (gRPC transcoding).
func splitCustomVerb(seg string) (string, string) {
	i := strings.LastIndexByte(seg, ':')
	if i < 0 {
		return seg, ""
	}
	switch seg[i+1:] {
	case "cancel", "subscribe":
		return seg[:i], seg[i+1:]
	}
	return seg, ""
}

func (s *Server) serveREST(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	p = strings.TrimPrefix(p, "/rest")
	if lp, ok := s.legacyREST(r, p); ok {
		s.serveLegacyREST(w, r, lp)
		return
	}
	rt, rerr := routeREST(r.Method, p)
	if rerr != nil {
		if rt != nil && rt.allow != "" {
			w.Header().Set("Allow", rt.allow)
		}
		s.writeRESTError(w, rerr)
		return
	}
	if err := s.checkVersion(r); err != nil {
		s.writeRESTError(w, err)
		return
	}
	params, _, _ := a2a.NewParams(rt.method)
	var body []byte
	bodyRead := int64(-1)
	if r.Method == http.MethodPost {
		if err := checkContentType(r); err != nil {
			s.writeRESTError(w, err)
			return
		}
		b, err := s.readBody(w, r)
		if err != nil {
			s.writeRESTError(w, err)
			return
		}
		body, bodyRead = b, int64(len(b))
	}
	if err := decodeRESTParams(params, rt, body, r.URL.Query()); err != nil {
		s.writeRESTError(w, err)
		return
	}
	if err := checkView(params); err != nil {
		s.writeRESTError(w, err)
		return
	}
	call := newCall(r, rt.method, a2a.BindingHTTPJSON, params)
	call.bodyRead = bodyRead
	s.setWriteDeadline(w, 0)
	if rt.streaming {
		s.streamREST(w, r, call)
		return
	}
	res, err := s.dispatch(r.Context(), call)
	if err != nil {
		s.writeRESTError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, res)
}

// streamREST serves a streaming call of the HTTP+JSON binding.
func (s *Server) streamREST(w http.ResponseWriter, r *http.Request, call *Call) {
	run, err := s.openStream(r.Context(), call)
	if err != nil {
		s.writeRESTError(w, err)
		return
	}
	s.serveStream(w, r, call.bodyRead, run, func(ev *a2a.StreamResponse) any { return ev }, s.writeRESTError,
		func(err error) any { return s.restErrorBody(err) })
}

// decodeRESTParams fills the request message from the body (POST), the
// query string (GET/DELETE) and the path, path values winning.
func decodeRESTParams(params any, rt *restRoute, body []byte, q url.Values) error {
	if len(body) > 0 {
		if err := a2a.DecodeParams(body, params); err != nil {
			return err
		}
	}
	switch p := params.(type) {
	case *a2a.SendMessageRequest:
		p.Tenant = orTenant(rt.tenant, p.Tenant)
	case *a2a.GetTaskRequest:
		p.ID, p.Tenant = rt.id, orTenant(rt.tenant, p.Tenant)
		v, err := queryInt32(q, "historyLength")
		if err != nil {
			return err
		}
		p.HistoryLength = v
	case *a2a.CancelTaskRequest:
		p.ID, p.Tenant = rt.id, orTenant(rt.tenant, p.Tenant)
	case *a2a.SubscribeToTaskRequest:
		p.ID, p.Tenant = rt.id, orTenant(rt.tenant, p.Tenant)
	case *a2a.ListTasksRequest:
		p.Tenant = orTenant(rt.tenant, p.Tenant)
		var err error
		p.ContextID = queryString(q, "contextId")
		p.PageToken = queryString(q, "pageToken")
		if v := queryString(q, "status"); v != "" {
			var st a2a.TaskState
			if err := st.UnmarshalJSON(quoteIfName(v)); err != nil {
				return a2a.ErrInvalidParams.Withf("status: %q is not a task state", a2a.Truncate([]byte(v), 40))
			}
			p.Status = st
		}
		if p.PageSize, err = queryInt32(q, "pageSize"); err != nil {
			return err
		}
		if p.HistoryLength, err = queryInt32(q, "historyLength"); err != nil {
			return err
		}
		if v := queryString(q, "statusTimestampAfter"); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return a2a.ErrInvalidParams.With("statusTimestampAfter must be an RFC 3339 timestamp")
			}
			p.StatusTimestampAfter = &t
		}
		if v := queryString(q, "includeArtifacts"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return a2a.ErrInvalidParams.With("includeArtifacts must be true or false")
			}
			p.IncludeArtifacts = &b
		}
	case *a2a.TaskPushNotificationConfig:
		p.TaskID, p.Tenant = rt.id, orTenant(rt.tenant, p.Tenant)
	case *a2a.GetTaskPushNotificationConfigRequest:
		p.TaskID, p.ID, p.Tenant = rt.id, rt.configID, orTenant(rt.tenant, p.Tenant)
	case *a2a.DeleteTaskPushNotificationConfigRequest:
		p.TaskID, p.ID, p.Tenant = rt.id, rt.configID, orTenant(rt.tenant, p.Tenant)
	case *a2a.ListTaskPushNotificationConfigsRequest:
		p.TaskID, p.Tenant = rt.id, orTenant(rt.tenant, p.Tenant)
		p.PageToken = queryString(q, "pageToken")
		v, err := queryInt32(q, "pageSize")
		if err != nil {
			return err
		}
		if v != nil {
			p.PageSize = *v
		}
	case *a2a.GetExtendedAgentCardRequest:
		p.Tenant = orTenant(rt.tenant, p.Tenant)
	}
	return nil
}

func orTenant(path, body string) string {
	if path != "" {
		return path
	}
	return body
}

// queryString reads a camelCase query parameter, accepting snake_case too.
func queryString(q url.Values, name string) string {
	if v := q.Get(name); v != "" {
		return v
	}
	return q.Get(snakeCase(name))
}

func snakeCase(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

func queryInt32(q url.Values, name string) (*int32, error) {
	v := queryString(q, name)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return nil, a2a.ErrInvalidParams.Withf("%s must be an integer", name)
	}
	i := int32(n)
	return &i, nil
}

func quoteIfName(v string) []byte {
	if _, err := strconv.Atoi(v); err == nil {
		return []byte(v)
	}
	b, _ := json.Marshal(v)
	return b
}

type restError struct {
	Error restStatus `json:"error"`
}

type restStatus struct {
	Code    int              `json:"code"`
	Status  string           `json:"status"`
	Message string           `json:"message"`
	Details []map[string]any `json:"details,omitempty"`
}

func (s *Server) restErrorBody(err error) restError {
	e := s.loggedError(err)
	return restError{Error: restStatus{Code: e.HTTPStatus(s.cfg.ErrorTable), Status: e.GRPCStatus(), Message: e.Message, Details: e.Details()}}
}

func (s *Server) writeRESTError(w http.ResponseWriter, err error) {
	copyHeader(w.Header(), a2a.AsError(err).Header)
	body := s.restErrorBody(err)
	s.writeJSON(w, body.Error.Code, body)
}
