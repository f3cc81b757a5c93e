package server

import (
	"context"
	"net/http"
	"net/url"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/fastjson"
)

// This file is the server core's entry for bindings that live in packages
// of their own (gRPC: a2a/a2agrpc). Such a binding decodes its wire form
// into the ProtoJSON form of the request, and the core takes it from there
// exactly as it takes a JSON-RPC call: the same strict decoder, the same
// view check, the same owner, guard, manager and store.

// DecodeRequest decodes the ProtoJSON form of method's request message with
// the strict decoder the JSON-RPC binding uses for its params. streaming
// says whether the method streams. An unknown method is ErrMethodNotFound;
// a request that cannot be read one way only is ErrInvalidParams.
func DecodeRequest(method string, raw []byte) (params any, streaming bool, err error) {
	params, streaming, ok := a2a.NewParams(method)
	if !ok {
		return nil, false, a2a.ErrMethodNotFound.Withf("method %q not found", a2a.Truncate([]byte(method), 64))
	}
	if err := fastjson.ReadParams(raw, params); err != nil {
		return nil, false, err
	}
	if err := checkView(params); err != nil {
		return nil, false, err
	}
	return params, streaming, nil
}

// NewCall is the call of a request decoded by DecodeRequest. r stands for
// the caller as the guards read it (its headers, remote address and
// context); binding is the binding's name (BindingGRPC).
func NewCall(r *http.Request, method, binding string, params any) *Call {
	return newCall(r, method, binding, params)
}

// CheckVersion applies the server's version negotiation to the version a
// caller sent (empty: none was sent), as for the A2A-Version header.
func (s *Server) CheckVersion(v string) error {
	r := &http.Request{Header: http.Header{}, URL: &url.URL{}}
	if v != "" {
		r.Header.Set("A2A-Version", v)
	}
	return s.checkVersion(r)
}

// Serve serves a unary call of another binding: the caller's owner, the
// guard, then the method, as the HTTP bindings serve it.
func (s *Server) Serve(ctx context.Context, c *Call) (any, error) {
	if err := checkView(c.Params); err != nil {
		return nil, err
	}
	return s.dispatch(ctx, c)
}

// ServeStream serves a streaming call of another binding, sending each
// event with send in the order of the task's event log. An error before
// the first event is returned without any event sent; an error of send
// ends the stream.
func (s *Server) ServeStream(ctx context.Context, c *Call, send func(*a2a.StreamResponse) error) error {
	if err := checkView(c.Params); err != nil {
		return err
	}
	run, err := s.openStream(ctx, c)
	if err != nil {
		return err
	}
	return s.runRecovered(ctx, c.Method, func(ctx context.Context) error { return run(ctx, send) })
}

// ErrorTable is the error table the server answers with.
func (s *Server) ErrorTable() a2a.ErrorTable { return s.cfg.ErrorTable }

// LogError converts err for the wire as the HTTP bindings do: an A2A error
// passes through; anything else is logged and becomes ErrInternal.
func (s *Server) LogError(err error) *a2a.Error { return s.loggedError(err) }
