package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Legacy is an older version of the protocol that a server answers at its
// edge (A2A 0.3: package a2a/v03). A request of that version is read
// strictly, once, into the 1.0 method and request message, which the
// server then runs exactly as a 1.0 request: the same guards, owner
// scoping, limits, push and event log. Only the result, the events and the
// card are written back in the older shape.
//
// A request is of the older version when it carries no A2A-Version (or
// one of major version 0) and its JSON-RPC method contains "/"
// ("message/send"), or its HTTP+JSON path starts with "/v1/".
type Legacy interface {
	// DecodeRPC reads a JSON-RPC request: the 1.0 method and its request
	// message. An unknown method is ErrMethodNotFound; bad params are
	// ErrInvalidParams.
	DecodeRPC(method string, params []byte) (string, any, error)
	// Result is the older shape of the 1.0 result of method.
	Result(method string, res any) (any, error)
	// Event is the older shape of a stream event.
	Event(ev *a2a.StreamResponse) any
}

// LegacyREST is a Legacy that answers the HTTP+JSON binding of its
// version too: paths below /rest/v1/.
type LegacyREST interface {
	Legacy
	// DecodeREST reads an HTTP+JSON request whose path (below "/v1") is
	// path: the 1.0 method and its request message.
	DecodeREST(verb, path string, q url.Values, body []byte) (string, any, error)
	// RESTResult is the older HTTP+JSON shape of the 1.0 result of method.
	RESTResult(method string, res any) (any, error)
	// RESTEvent is the older HTTP+JSON shape of a stream event.
	RESTEvent(ev *a2a.StreamResponse) any
	// RESTError is the older HTTP+JSON body of an error.
	RESTError(e *a2a.Error) any
}

// LegacyCard derives the card served to readers of the older version
// (see ServerConfig.LegacyCard) from the JSON of the 1.0 card; the gateway
// signs it.
type LegacyCard func(cardJSON []byte) ([]byte, error)

// legacyVersion reports whether r names no protocol version, or one of
// major version 0.
func legacyVersion(r *http.Request) bool {
	v := requestVersion(r)
	return v == "" || strings.HasPrefix(v, "0.")
}

// requestVersion is the A2A-Version r names, in its header or its query.
func requestVersion(r *http.Request) string {
	if v := strings.TrimSpace(r.Header.Get("A2A-Version")); v != "" {
		return v
	}
	return strings.TrimSpace(r.URL.Query().Get("A2A-Version"))
}

// legacyRPC reports whether a JSON-RPC request is of the older version.
func (s *Server) legacyRPC(r *http.Request, method string) bool {
	return s.cfg.Legacy != nil && strings.Contains(method, "/") && legacyVersion(r)
}

// legacyREST reports whether an HTTP+JSON path (below /rest) is of the
// older version, and returns the path below "/v1".
func (s *Server) legacyREST(r *http.Request, p string) (string, bool) {
	if _, ok := s.cfg.Legacy.(LegacyREST); !ok || !legacyVersion(r) {
		return "", false
	}
	rest, ok := strings.CutPrefix(p, "/v1/")
	return "/" + rest, ok
}

func legacyStreaming(method string) bool {
	return method == a2a.MethodSendStreamingMessage || method == a2a.MethodSubscribeToTask
}

// serveLegacyRPC serves a JSON-RPC request of the older version.
func (s *Server) serveLegacyRPC(w http.ResponseWriter, r *http.Request, id json.RawMessage, method string, params []byte, bodyRead int64) {
	m, p, err := s.cfg.Legacy.DecodeRPC(method, params)
	if err == nil {
		err = checkView(p)
	}
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	call := newCall(r, m, a2a.BindingJSONRPC, p)
	call.Version = legacyVersionName
	call.bodyRead = bodyRead
	s.setWriteDeadline(w, 0)
	if legacyStreaming(m) {
		run, err := s.openStream(r.Context(), call)
		if err != nil {
			s.writeRPCError(w, id, err)
			return
		}
		s.serveStream(w, r, call.bodyRead, s.legacyEvents(run), func(ev *a2a.StreamResponse) any {
			return a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: s.cfg.Legacy.Event(ev)}
		}, func(w http.ResponseWriter, err error) {
			s.writeRPCError(w, id, err)
		}, func(err error) any {
			e := s.loggedError(err)
			return a2a.RPCReply{JSONRPC: "2.0", ID: id, Error: &a2a.RPCReplyError{Code: e.Code, Message: e.Message, Data: e.Details()}}
		})
		return
	}
	res, err := s.dispatch(r.Context(), call)
	if err == nil {
		res, err = s.cfg.Legacy.Result(m, res)
	}
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	s.writeJSON(w, http.StatusOK, a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: res})
}

// serveLegacyREST serves an HTTP+JSON request of the older version; path
// is below "/v1".
func (s *Server) serveLegacyREST(w http.ResponseWriter, r *http.Request, path string) {
	lr := s.cfg.Legacy.(LegacyREST)
	writeError := func(w http.ResponseWriter, err error) {
		e := s.loggedError(err)
		copyHeader(w.Header(), e.Header)
		s.writeJSON(w, e.HTTPStatus(s.cfg.ErrorTable), lr.RESTError(e))
	}
	var body []byte
	bodyRead := int64(-1)
	if r.Method == http.MethodPost {
		if err := checkContentType(r); err != nil {
			writeError(w, err)
			return
		}
		b, err := s.readBody(w, r)
		if err != nil {
			writeError(w, err)
			return
		}
		body, bodyRead = b, int64(len(b))
	}
	m, p, err := lr.DecodeREST(r.Method, path, r.URL.Query(), body)
	if err == nil {
		err = checkView(p)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	call := newCall(r, m, a2a.BindingHTTPJSON, p)
	call.Version = legacyVersionName
	call.bodyRead = bodyRead
	s.setWriteDeadline(w, 0)
	if legacyStreaming(m) {
		run, err := s.openStream(r.Context(), call)
		if err != nil {
			writeError(w, err)
			return
		}
		s.serveStream(w, r, call.bodyRead, s.legacyEvents(run), lr.RESTEvent, writeError,
			func(err error) any { return namedEvent{name: "error", data: lr.RESTError(s.loggedError(err))} })
		return
	}
	res, err := s.dispatch(r.Context(), call)
	if err == nil {
		res, err = lr.RESTResult(m, res)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, res)
}

// legacyVersionName is Call.Version of a request of the older version.
const legacyVersionName = "0.3"

// legacyEvents drops the events the older version has no shape for (an
// event kind this version does not know either).
func (s *Server) legacyEvents(run streamFunc) streamFunc {
	return func(ctx context.Context, send func(*a2a.StreamResponse) error) error {
		return run(ctx, func(ev *a2a.StreamResponse) error {
			if ev == nil || ev.Task == nil && ev.Message == nil && ev.StatusUpdate == nil && ev.ArtifactUpdate == nil {
				return nil
			}
			return send(ev)
		})
	}
}
