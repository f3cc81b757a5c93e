package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
)

func (s *Server) serveJSONRPC(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		s.writeRPCError(w, nil, a2a.ErrInvalidRequest.With("JSON-RPC requests are sent with POST").WithStatus(http.StatusMethodNotAllowed))
		return
	}
	if err := checkContentType(r); err != nil {
		s.writeRPCError(w, nil, err)
		return
	}
	body, err := s.readBody(w, r)
	if err != nil {
		s.writeRPCError(w, nil, err)
		return
	}
	req, id, err := fastjson.ReadRPCRequest(body)
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	if s.legacyRPC(r, *req.Method) {
		s.serveLegacyRPC(w, r, id, *req.Method, req.Params, int64(len(body)))
		return
	}
	if err := s.checkVersion(r); err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	params, streaming, ok := a2a.NewParams(*req.Method)
	if !ok {
		s.writeRPCError(w, id, a2a.ErrMethodNotFound.Withf("method %q not found", a2a.Truncate([]byte(*req.Method), 64)))
		return
	}
	if err := fastjson.ReadParams(req.Params, params); err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	if err := checkView(params); err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	call := newCall(r, *req.Method, a2a.BindingJSONRPC, params)
	call.bodyRead = int64(len(body))
	s.setWriteDeadline(w, 0)
	if streaming {
		s.streamRPC(w, r, id, call)
		return
	}
	res, err := s.dispatch(r.Context(), call)
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	s.writeJSON(w, http.StatusOK, a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: res})
}

func (s *Server) streamRPC(w http.ResponseWriter, r *http.Request, id json.RawMessage, call *Call) {
	run, err := s.openStream(r.Context(), call)
	if err != nil {
		s.writeRPCError(w, id, err)
		return
	}
	s.serveStream(w, r, call.bodyRead, run, func(ev *a2a.StreamResponse) any {
		return a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: ev}
	}, func(w http.ResponseWriter, err error) {
		s.writeRPCError(w, id, err)
	}, func(err error) any {
		e := s.loggedError(err)
		return a2a.RPCReply{JSONRPC: "2.0", ID: id, Error: &a2a.RPCReplyError{Code: e.Code, Message: e.Message, Data: e.Details()}}
	})
}

// loggedError converts err for the wire, logging what the caller won't see.
// A call that ended because its client went away (context.Canceled: the
// connection closed, the stream was cancelled) is logged as such, at Info:
// it is not a failure of the server.
func (s *Server) loggedError(err error) *a2a.Error {
	e := a2a.AsError(err)
	if e == a2a.ErrInternal {
		if errors.Is(err, context.Canceled) {
			s.cfg.Logger.Info("a2a: client disconnected before the response")
			return e
		}
		s.cfg.Logger.Error("a2a: request failed", "err", err)
	}
	return e
}

// nullID is the id of an answer to a request whose id could not be read.
var nullID = json.RawMessage("null")

func (s *Server) writeRPCError(w http.ResponseWriter, id json.RawMessage, err error) {
	if id == nil {
		id = nullID
	}
	e := s.loggedError(err)
	copyHeader(w.Header(), e.Header)
	status := http.StatusOK
	if e.Status != 0 || e.Code <= -31000 && e.Code > -32000 {
		status = e.HTTPStatus(s.cfg.ErrorTable)
	}
	s.writeJSON(w, status, a2a.RPCReply{JSONRPC: "2.0", ID: id, Error: &a2a.RPCReplyError{Code: e.Code, Message: e.Message, Data: e.Details()}})
}

func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	// Encoded into a pooled buffer (the bytes json.Marshal would return,
	// without its copy of them): by hand for the frequent results, else,
	// and whenever that fails, by encoding/json, which logs the error.
	e := getEncoder()
	defer putEncoder(e)
	body, ok := e.appendKnown("", v, "")
	if !ok {
		if err := e.enc.Encode(v); err != nil {
			s.cfg.Logger.Error("a2a: encode response", "err", err)
			status = http.StatusInternalServerError
			body = []byte(`{"error":{"code":500,"status":"INTERNAL","message":"internal error"}}`)
		} else {
			body = bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")) // Encode ends with a newline; Marshal does not
		}
	}
	s.setWriteDeadline(w, s.cfg.WriteTimeout)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
}
