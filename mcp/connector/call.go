package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The direct call: tools/call over streamable HTTP put on the wire by the
// connector through mcp-go's transport (transport.Interface.SendRequest),
// instead of through client.Client.CallTool.
//
// Measured reason (house rule: a hand-written replacement of a library path
// says why). Alloc profile of BenchmarkSendMessageThroughAgentHTTP
// (mcp/publish, 2026-07-28 era, streamable HTTP, -memprofilerate 1): of the
// 275 allocations per call under CallToolWith, client.CallTool's own work
// was ~170: applyStandardHeaders 69 (marshals the params, unmarshals them
// again for the tool name and the x-mcp-header lookup), applyRequestMeta 50
// (marshals the params, unmarshals them into a map, unmarshals and
// re-marshals _meta), ParseCallToolResult ~51 (decodes the result into
// mcp-go's typed content, which the connector throws away: its callers
// take the raw result), plus the arguments decoded into a map for the
// library to encode again. The real binary's CPU profile put ~25% of the
// publish path's CPU in mcp-go's client. Here the params are marshalled
// once (the arguments stay the caller's bytes) and the result is probed
// once for what the library checked; the transport, and so the session,
// the death detection of rawTransport, the HTTP cancellation and the
// relays (progress, logs, elicitation and sampling requests on the call's
// stream), is the same one the client uses. Measured after: 100
// allocations per call under CallToolWith (70 of them the transport's);
// that benchmark's allocs/op 987 → 797 (2026-07-28) and 623 → 572
// (2025-11-25); `make bench` publish-memory allocs/req 661 → 471 against
// the baseline binary in the same run.
//
// What the client did that this keeps: the 2026-07-28 per-request _meta
// (protocol version, client capabilities, client info) and the Mcp-Method
// and Mcp-Name headers; the multi round-trip loop (SEP-2322) answering
// input requests with the same handlers the client has; a request whose
// context has ended is not sent; transport failures come back as
// *transport.Error (Unreachable matches them); a JSON-RPC error comes back
// as ServerError. Calls that need what it does not do go through the
// client: other transports (stdio, legacy SSE, in-process), tools whose
// schema has x-mcp-header annotations (Mcp-Param-* headers), and every
// call when libraryCalls is set (the differential test's reference).

// libraryCalls sends every call through mcp-go's client (tests).
var libraryCalls bool

// directID numbers the direct calls' JSON-RPC ids, in a range of their own
// (the client numbers its requests from 1 on the same transport).
const directIDBase = 1 << 32

// direct reports whether calls of tool on s can be sent directly.
func (c *Conn) direct(s *session, tool string) bool {
	if libraryCalls || s.rt == nil || s.rt.http == nil || s.rt.sse || s.meta == nil {
		return false
	}
	c.mu.Lock()
	lib := c.headerTools[tool]
	c.mu.Unlock()
	return !lib
}

// sessionMeta is the part of a tools/call's _meta that is the same for
// every call of a session: on 2026-07-28 what the client's
// applyRequestMeta adds (without a leading comma), else empty. nil when it
// cannot be built (then calls go through the client).
func (c *Conn) sessionMeta(era string) []byte {
	if !mcp.IsModernProtocol(era) {
		return []byte{}
	}
	// The capabilities the client declares: its handlers (connect sets
	// elicitation and sampling unless withheld; it sets no roots).
	var caps mcp.ClientCapabilities
	if !c.cfg.NoSampling {
		caps.Sampling = &mcp.SamplingCapability{}
	}
	if !c.cfg.NoElicitation {
		caps.Elicitation = &mcp.ElicitationCapability{}
	}
	fields := []struct {
		key string
		v   any
	}{
		{mcp.MetaKeyClientCapabilities, caps},
		{mcp.MetaKeyClientInfo, mcp.Implementation{Name: c.cfg.ClientName, Version: c.cfg.ClientVersion}},
		{mcp.MetaKeyProtocolVersion, era},
	}
	var b []byte
	for i, f := range fields {
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return b
}

// callParams is a tools/call's params as the client puts them on the wire
// (mcp.CallToolParams), with the arguments and _meta already encoded.
type callParams struct {
	Name           string             `json:"name"`
	Arguments      json.RawMessage    `json:"arguments"`
	Meta           json.RawMessage    `json:"_meta"`
	InputResponses mcp.InputResponses `json:"inputResponses,omitempty"`
	RequestState   string             `json:"requestState,omitempty"`
}

// callArgs returns the arguments as they go on the wire: the caller's
// bytes when they are one JSON object; null when there are none (what the
// client sent for a nil map); otherwise what the client's path made of
// them, or its error.
func (c *Conn) callArgs(args json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(args)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("null"), nil
	}
	if t[0] == '{' && json.Valid(t) {
		return t, nil
	}
	argv, err := c.decodeArgs(args)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(argv)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: arguments must be a JSON object: %w", c.cfg.Name, err)
	}
	return b, nil
}

// decodeArgs decodes arguments for the client's path (numbers kept
// exact).
func (c *Conn) decodeArgs(args json.RawMessage) (map[string]any, error) {
	var argv map[string]any
	if t := bytes.TrimSpace(args); len(t) > 0 && string(t) != "null" {
		d := json.NewDecoder(bytes.NewReader(args))
		d.UseNumber()
		if err := d.Decode(&argv); err != nil {
			return nil, fmt.Errorf("upstream %q: arguments must be a JSON object: %w", c.cfg.Name, err)
		}
	}
	return argv, nil
}

// callMeta is the call's _meta: its progress token, the caller's trace
// context, the log level it asks for, and the session's part.
func callMeta(s *session, token string, tc map[string]any, level string) (json.RawMessage, error) {
	b := make([]byte, 0, 64+len(s.meta))
	b = append(b, `{"progressToken":`...)
	b = strconv.AppendQuote(b, token) // "bridge-<n>": no character strconv and JSON quote differently
	add := func(k string, v any) error {
		kb, err := json.Marshal(k)
		if err != nil {
			return err
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b = append(append(append(append(b, ','), kb...), ':'), vb...)
		return nil
	}
	for k, v := range tc {
		if err := add(k, v); err != nil {
			return nil, err
		}
	}
	if level != "" {
		if err := add(mcp.MetaKeyLogLevel, level); err != nil {
			return nil, err
		}
	}
	if len(s.meta) > 0 {
		b = append(append(b, ','), s.meta...)
	}
	return append(b, '}'), nil
}

// callDirect sends the call on s's transport: one request per round trip
// of the multi round-trip loop. It returns the result, or the server's
// JSON-RPC error (rpcErr, with err its error), or a transport error.
func (c *Conn) callDirect(ctx context.Context, s *session, name string, args, meta json.RawMessage) (raw json.RawMessage, rpcErr *ServerError, err error) {
	var header http.Header
	if mcp.RequiresStandardHeaders(s.era) {
		header = http.Header{}
		header.Set(mcp.HeaderMethod, string(mcp.MethodToolsCall))
		if v, ok := mcp.EncodeHeaderValue(name); ok && name != "" {
			header.Set(mcp.HeaderName, v)
		}
	}
	p := callParams{Name: name, Arguments: args, Meta: meta}
	loadShedding := 0
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, transport.NewError(err) // not sent: nothing to cancel
		}
		params, err := json.Marshal(p)
		if err != nil {
			return nil, nil, fmt.Errorf("encode tools/call params: %w", err)
		}
		resp, err := c.send(ctx, s, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION,
			ID:      mcp.NewRequestId(int64(directIDBase + c.idSeq.Add(1))),
			Method:  string(mcp.MethodToolsCall),
			Params:  json.RawMessage(params),
			Header:  header,
		})
		if err != nil {
			return nil, nil, transport.NewError(err)
		}
		if resp.Error != nil {
			return nil, &ServerError{Code: resp.Error.Code, Message: resp.Error.Message}, resp.Error.AsError()
		}
		var probe resultProbe
		if err := json.Unmarshal(resp.Result, &probe); err != nil {
			return nil, nil, fmt.Errorf("failed to unmarshal response: %w", err)
		}
		if probe.ResultType != mcp.ResultTypeInputRequired {
			if !probe.Content.present {
				return nil, nil, errors.New("content is missing")
			}
			return resp.Result, nil, nil
		}
		// SEP-2322, as the client's multiRoundTrip: answer the server's
		// input requests and call again with the answers.
		if len(probe.InputRequests) == 0 {
			loadShedding++
			if loadShedding >= maxLoadSheddingRoundTrips {
				return nil, nil, fmt.Errorf("%w: server asked to retry %d times without requesting input",
					client.ErrMaxInputRoundTripsExceeded, loadShedding)
			}
		} else {
			loadShedding = 0
		}
		if attempt >= maxInputRoundTrips {
			return nil, nil, fmt.Errorf("%w (%d)", client.ErrMaxInputRoundTripsExceeded, maxInputRoundTrips)
		}
		answers, err := c.fulfil(ctx, probe.InputRequests)
		if err != nil {
			return nil, nil, err
		}
		p.InputResponses, p.RequestState = answers, probe.RequestState
	}
}

// The client's bounds of the multi round-trip loop (its defaults: the
// connector sets no WithMaxInputRoundTrips).
const (
	maxInputRoundTrips        = 10
	maxLoadSheddingRoundTrips = 3
)

// fulfil answers a server's input requests with the handlers connect gives
// the client (elicitAdapter, samplingAdapter; no roots), concurrently, as
// the client's fulfillInputRequests does.
func (c *Conn) fulfil(ctx context.Context, reqs mcp.InputRequests) (mcp.InputResponses, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		out      = make(mcp.InputResponses, len(reqs))
		firstErr error
	)
	for id, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.fulfilOne(ctx, r)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("fulfilling input request %q: %w", id, err)
					cancel()
				}
				return
			}
			out[id] = res
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("multi round-trip: %w", firstErr)
	}
	return out, nil
}

func (c *Conn) fulfilOne(ctx context.Context, r mcp.InputRequest) (mcp.InputResponse, error) {
	switch r.Method {
	case mcp.MethodElicitationCreate:
		if c.cfg.NoElicitation {
			return mcp.InputResponse{}, errors.New("no elicitation handler configured")
		}
		if r.Elicitation == nil {
			return mcp.InputResponse{}, errors.New("elicitation input request has no params")
		}
		res, err := elicitAdapter{c}.Elicit(ctx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: *r.Elicitation,
		})
		if err != nil {
			return mcp.InputResponse{}, err
		}
		return mcp.NewElicitationInputResponse(*res), nil
	case mcp.MethodSamplingCreateMessage:
		if c.cfg.NoSampling {
			return mcp.InputResponse{}, errors.New("no sampling handler configured")
		}
		if r.Sampling == nil {
			return mcp.InputResponse{}, errors.New("sampling input request has no params")
		}
		res, err := samplingAdapter{c}.CreateMessage(ctx, mcp.CreateMessageRequest{
			Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)}, CreateMessageParams: *r.Sampling,
		})
		if err != nil {
			return mcp.InputResponse{}, err
		}
		if res == nil {
			return mcp.InputResponse{}, errors.New("sampling handler returned no result")
		}
		return mcp.NewSamplingInputResponse(*res), nil
	case mcp.MethodListRoots:
		return mcp.InputResponse{}, errors.New("no roots handler configured")
	default:
		return mcp.InputResponse{}, fmt.Errorf("unsupported input request method %q", r.Method)
	}
}

// resultProbe reads of a tools/call result what the client checked
// (mcp.ParseCallToolResult) and what the multi round-trip loop needs.
type resultProbe struct {
	Content       contentProbe      `json:"content"`
	ResultType    mcp.ResultType    `json:"resultType"`
	InputRequests mcp.InputRequests `json:"inputRequests"`
	RequestState  string            `json:"requestState"`
}

// contentProbe notes that content is present and checks each block's type
// as mcp.UnmarshalContent does (a string, one of the content types mcp-go
// knows); the fields of a block are left to the caller, which decodes them
// (publish's toParts), instead of being decoded twice.
type contentProbe struct{ present bool }

// UnmarshalJSON implements json.Unmarshaler.
func (p *contentProbe) UnmarshalJSON(b []byte) error {
	p.present = true
	if string(b) == "null" {
		return nil
	}
	// A block's type as a pointer: absent or null leaves it nil, which
	// fails as in mcp.UnmarshalContent (one decode for all blocks, not
	// one per block).
	var blocks []struct {
		Type *typeProbe `json:"type"`
	}
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	for _, bl := range blocks {
		if bl.Type == nil {
			return errors.New("missing or invalid type field")
		}
	}
	return nil
}

type typeProbe struct{}

// knownTypes are the quoted content types mcp.UnmarshalContent accepts.
var knownTypes = []string{
	`"` + mcp.ContentTypeText + `"`, `"` + mcp.ContentTypeImage + `"`, `"` + mcp.ContentTypeAudio + `"`,
	`"` + mcp.ContentTypeLink + `"`, `"` + mcp.ContentTypeResource + `"`,
	`"` + mcp.ContentTypeToolUse + `"`, `"` + mcp.ContentTypeToolResult + `"`,
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *typeProbe) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		return errors.New("missing or invalid type field")
	}
	for _, k := range knownTypes {
		if string(b) == k {
			return nil
		}
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("missing or invalid type field")
	}
	for _, k := range knownTypes {
		if `"`+s+`"` == k {
			return nil
		}
	}
	return fmt.Errorf("unknown content type: %s", s)
}
