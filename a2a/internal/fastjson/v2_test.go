//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/internal/strictjson"
)

// A candidate replacement of the hand-written paths by
// github.com/go-json-experiment/json (encoding/json/v2's code), written
// the way a v2 codec of package a2a would be: the types' wire rules (a
// part's oneof member, parts as a list even when empty, the state even
// when unspecified, ProtoJSON timestamps, roles absent read as
// unspecified) as type-specific marshalers and unmarshalers, everything
// else v2's struct codec. It lives beside the hand-written code only to
// be measured against it (v2_bench_test.go) and checked against it
// (v2_diff_test.go); nothing of the bridge calls it.
//
// Strictness: v2's defaults refuse duplicate member names and invalid
// UTF-8 and match names exactly, which the request view needs; a name
// that matches a field only under case folding ("Message") is skipped as
// unknown rather than refused, so v2Strict adds the strictjson check
// where the request view must refuse it (v2ReadSendRequest).

// v2Enc writes what encoding/json writes: HTML characters and U+2028/9
// escaped, invalid UTF-8 replaced, map keys sorted, v1's omitempty.
var v2Enc = jsonv2.JoinOptions(
	jsontext.EscapeForHTML(true),
	jsontext.EscapeForJS(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv2.Deterministic(true),
	jsonv1.OmitEmptyWithLegacySemantics(true),
	jsonv2.FormatNilSliceAsNull(true),
	jsonv2.FormatNilMapAsNull(true),
	jsonv2.WithMarshalers(jsonv2.JoinMarshalers(
		jsonv2.MarshalToFunc(v2MarshalNumber),
		jsonv2.MarshalToFunc(v2MarshalPart),
		jsonv2.MarshalToFunc(v2MarshalMessage),
		jsonv2.MarshalToFunc(v2MarshalArtifact),
		jsonv2.MarshalToFunc(v2MarshalStatus),
	)),
)

// v2Dec reads with v2's defaults (exact names, no duplicates, valid
// UTF-8, unknown members skipped) and the wire rules of the a2a types.
var v2Dec = jsonv2.JoinOptions(
	jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
		jsonv2.UnmarshalFromFunc(v2UnmarshalPart),
		jsonv2.UnmarshalFromFunc(v2UnmarshalMessage),
		jsonv2.UnmarshalFromFunc(v2UnmarshalArtifact),
		jsonv2.UnmarshalFromFunc(v2UnmarshalStatus),
	)),
)

var errV2PartKind = errors.New("a2a: cannot encode a part of unknown kind")

func v2MarshalPart(enc *jsontext.Encoder, p a2a.Part) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	var err error
	switch p.Kind {
	case a2a.PartText:
		err = v2Member(enc, "text", jsontext.String(p.Text))
	case a2a.PartRaw:
		err = v2Member(enc, "raw", jsontext.String(base64.StdEncoding.EncodeToString(p.Raw)))
	case a2a.PartURL:
		err = v2Member(enc, "url", jsontext.String(p.URL))
	case a2a.PartData:
		data := p.Data
		if len(data) == 0 {
			data = json.RawMessage("null")
		}
		if err = enc.WriteToken(jsontext.String("data")); err == nil {
			err = enc.WriteValue(jsontext.Value(data))
		}
	default:
		return errV2PartKind
	}
	if err != nil {
		return err
	}
	if len(p.Metadata) > 0 {
		if err := enc.WriteToken(jsontext.String("metadata")); err != nil {
			return err
		}
		if err := jsonv2.MarshalEncode(enc, p.Metadata); err != nil {
			return err
		}
	}
	if p.Filename != "" {
		if err := v2Member(enc, "filename", jsontext.String(p.Filename)); err != nil {
			return err
		}
	}
	if p.MediaType != "" {
		if err := v2Member(enc, "mediaType", jsontext.String(p.MediaType)); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// v2MarshalNumber writes a json.Number as the number it holds, as
// encoding/json does.
func v2MarshalNumber(enc *jsontext.Encoder, n json.Number) error {
	if n == "" {
		n = "0"
	}
	return enc.WriteValue(jsontext.Value(n))
}

func v2Member(enc *jsontext.Encoder, name string, v jsontext.Token) error {
	if err := enc.WriteToken(jsontext.String(name)); err != nil {
		return err
	}
	return enc.WriteToken(v)
}

// v2Message and v2Artifact are the types without their methods.
type (
	v2Message  a2a.Message
	v2Artifact a2a.Artifact
)

func v2MarshalMessage(enc *jsontext.Encoder, m a2a.Message) error {
	if m.Parts == nil {
		m.Parts = []a2a.Part{}
	}
	return jsonv2.MarshalEncode(enc, (*v2Message)(&m))
}

func v2MarshalArtifact(enc *jsontext.Encoder, a a2a.Artifact) error {
	if a.Parts == nil {
		a.Parts = []a2a.Part{}
	}
	return jsonv2.MarshalEncode(enc, (*v2Artifact)(&a))
}

// v2Status is a status on the wire.
type v2Status struct {
	State     a2a.TaskState `json:"state"`
	Message   *a2a.Message  `json:"message,omitempty"`
	Timestamp v2Time        `json:"timestamp,omitzero"`
}

// v2Time is a google.protobuf.Timestamp in ProtoJSON form (UTC, 0, 3, 6
// or 9 fractional digits).
type v2Time struct{ t *time.Time }

func (t v2Time) IsZero() bool { return t.t == nil }

func (t v2Time) MarshalJSONTo(enc *jsontext.Encoder) error {
	u := t.t.UTC()
	layout := "2006-01-02T15:04:05Z"
	switch ns := u.Nanosecond(); {
	case ns == 0:
	case ns%1_000_000 == 0:
		layout = "2006-01-02T15:04:05.000Z"
	case ns%1000 == 0:
		layout = "2006-01-02T15:04:05.000000Z"
	default:
		layout = "2006-01-02T15:04:05.000000000Z"
	}
	var buf [40]byte
	return enc.WriteToken(jsontext.String(string(u.AppendFormat(buf[:0], layout))))
}

func (t *v2Time) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var s string
	if err := jsonv2.UnmarshalDecode(dec, &s); err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	if y := v.UTC().Year(); y < 1 || y > 9999 {
		return fmt.Errorf("a2a: timestamp %q out of range", s)
	}
	t.t = &v
	return nil
}

func v2MarshalStatus(enc *jsontext.Encoder, s a2a.TaskStatus) error {
	w := v2Status{State: s.State, Message: s.Message, Timestamp: v2Time{s.Timestamp}}
	if w.State == "" {
		w.State = a2a.TaskStateUnspecified
	}
	return jsonv2.MarshalEncode(enc, &w)
}

// v2PartIn is a part as sent.
type v2PartIn struct {
	Text      *string        `json:"text"`
	Raw       *string        `json:"raw"`
	URL       *string        `json:"url"`
	Data      jsontext.Value `json:"data"`
	Metadata  a2a.Metadata   `json:"metadata"`
	Filename  string         `json:"filename"`
	MediaType string         `json:"mediaType"`
}

var errV2TwoKinds = errors.New("a2a: part sets more than one of text, raw, url, data")

func v2UnmarshalPart(dec *jsontext.Decoder, p *a2a.Part) error {
	var w v2PartIn
	if err := jsonv2.UnmarshalDecode(dec, &w); err != nil {
		return err
	}
	out := a2a.Part{Metadata: w.Metadata, Filename: w.Filename, MediaType: w.MediaType, Kind: a2a.PartUnknown}
	n := 0
	if w.Text != nil {
		n++
		out.Kind, out.Text = a2a.PartText, *w.Text
	}
	if w.Raw != nil {
		n++
		raw, err := a2a.DecodeBase64(*w.Raw)
		if err != nil {
			return err
		}
		out.Kind, out.Raw = a2a.PartRaw, raw
	}
	if w.URL != nil {
		n++
		out.Kind, out.URL = a2a.PartURL, *w.URL
	}
	if w.Data != nil {
		n++
		out.Kind, out.Data = a2a.PartData, a2a.CompactJSON(json.RawMessage(w.Data))
	}
	if n > 1 {
		return errV2TwoKinds
	}
	*p = out
	return nil
}

// v2KnownParts drops the parts of unknown kind.
func v2KnownParts(ps []a2a.Part) []a2a.Part {
	for i := range ps {
		if ps[i].Kind == a2a.PartUnknown {
			out := ps[:i:i]
			for _, p := range ps[i:] {
				if p.Kind != a2a.PartUnknown {
					out = append(out, p)
				}
			}
			return out
		}
	}
	return ps
}

func v2UnmarshalMessage(dec *jsontext.Decoder, m *a2a.Message) error {
	var w v2Message
	if err := jsonv2.UnmarshalDecode(dec, &w); err != nil {
		return err
	}
	if w.Role == "" {
		w.Role = a2a.RoleUnspecified
	}
	w.Parts = v2KnownParts(w.Parts)
	*m = a2a.Message(w)
	return nil
}

func v2UnmarshalArtifact(dec *jsontext.Decoder, a *a2a.Artifact) error {
	var w v2Artifact
	if err := jsonv2.UnmarshalDecode(dec, &w); err != nil {
		return err
	}
	w.Parts = v2KnownParts(w.Parts)
	*a = a2a.Artifact(w)
	return nil
}

func v2UnmarshalStatus(dec *jsontext.Decoder, s *a2a.TaskStatus) error {
	var w v2Status
	if err := jsonv2.UnmarshalDecode(dec, &w); err != nil {
		return err
	}
	if w.State == "" {
		w.State = a2a.TaskStateUnspecified
	}
	*s = a2a.TaskStatus{State: w.State, Message: w.Message, Timestamp: w.Timestamp.t}
	return nil
}

// v2Marshal is what the server's writers would call.
func v2Marshal(v any) ([]byte, error) { return jsonv2.Marshal(v, v2Enc) }

// v2Envelope is a JSON-RPC request as received.
type v2Envelope struct {
	JSONRPC *string        `json:"jsonrpc"`
	ID      jsontext.Value `json:"id"`
	Method  *string        `json:"method"`
	Params  jsontext.Value `json:"params"`
}

// v2ReadSendRequest reads a SendMessage request as the server does
// (envelope, its checks, then the params), by v2 alone.
func v2ReadSendRequest(body []byte) (*a2a.SendMessageRequest, error) {
	env, err := v2ReadEnvelope(body)
	if err != nil {
		return nil, err
	}
	var r a2a.SendMessageRequest
	if len(env.Params) > 0 {
		if err := jsonv2.Unmarshal(env.Params, &r, v2Dec); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

func v2ReadEnvelope(body []byte) (*v2Envelope, error) {
	var env v2Envelope
	if err := jsonv2.Unmarshal(body, &env, v2Dec); err != nil {
		return nil, err
	}
	if len(env.ID) == 0 || env.JSONRPC == nil || *env.JSONRPC != "2.0" || env.Method == nil || *env.Method == "" {
		return nil, errors.New("invalid request")
	}
	if len(env.Params) > 0 && env.Params[0] != '{' && string(env.Params) != "null" {
		return nil, errors.New("params must be an object")
	}
	return &env, nil
}

// v2SendSchema is the strictjson schema of a SendMessage request, its
// params included, for the names the v2 readers know.
var v2SendSchema = strictjson.For(reflect.TypeFor[struct {
	JSONRPC *string                 `json:"jsonrpc"`
	ID      jsontext.Value          `json:"id"`
	Method  *string                 `json:"method"`
	Params  *a2a.SendMessageRequest `json:"params"`
}](), strictjson.Options{Wire: map[reflect.Type]reflect.Type{
	reflect.TypeFor[a2a.Part]():       reflect.TypeFor[v2PartIn](),
	reflect.TypeFor[a2a.Message]():    reflect.TypeFor[v2Message](),
	reflect.TypeFor[a2a.TaskStatus](): reflect.TypeFor[v2Status](),
}})

// v2ReadSendRequestStrict is v2ReadSendRequest with what the request view
// needs besides: one strictjson pass over the body (case-folded names),
// and the slow path for params with proto (snake_case) names, which it
// renames first, as the fast path leaves them to it.
func v2ReadSendRequestStrict(body []byte) (*a2a.SendMessageRequest, error) {
	if err := v2SendSchema.Check(body); err != nil {
		return nil, err
	}
	env, err := v2ReadEnvelope(body)
	if err != nil {
		return nil, err
	}
	var r a2a.SendMessageRequest
	if bytes.IndexByte(env.Params, '_') >= 0 && a2a.ProtoNamesIn(env.Params) {
		return &r, a2a.DecodeParams(env.Params, &r)
	}
	if len(env.Params) > 0 {
		if err := jsonv2.Unmarshal(env.Params, &r, v2Dec); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// v2Response is a JSON-RPC response as a client reads it.
type v2Response[T any] struct {
	ID     jsontext.Value `json:"id"`
	Result *T             `json:"result"`
	Error  *a2a.ErrorBody `json:"error"`
}

// v2DecodeRPCResponse is DecodeRPCResponse by v2.
func v2DecodeRPCResponse[T any](data []byte) (*a2a.RPCResponse[T], error) {
	var env v2Response[T]
	if err := jsonv2.Unmarshal(data, &env, v2Dec); err != nil {
		return nil, err
	}
	return &a2a.RPCResponse[T]{ID: json.RawMessage(env.ID), Result: env.Result, Error: env.Error}, nil
}

// v2SendResponseSchema is the strictjson schema of a send's answer.
var v2SendResponseSchema = strictjson.For(reflect.TypeFor[v2Response[a2a.SendMessageResponse]](), strictjson.Options{Wire: map[reflect.Type]reflect.Type{
	reflect.TypeFor[a2a.Part]():       reflect.TypeFor[v2PartIn](),
	reflect.TypeFor[a2a.Message]():    reflect.TypeFor[v2Message](),
	reflect.TypeFor[a2a.Artifact]():   reflect.TypeFor[v2Artifact](),
	reflect.TypeFor[a2a.TaskStatus](): reflect.TypeFor[v2Status](),
}})

// v2DecodeSendResponseStrict is v2DecodeRPCResponse after the strictjson
// pass the client's slow path makes (case-folded names).
func v2DecodeSendResponseStrict(data []byte) (*a2a.RPCResponse[a2a.SendMessageResponse], error) {
	if err := v2SendResponseSchema.Check(data); err != nil {
		return nil, err
	}
	return v2DecodeRPCResponse[a2a.SendMessageResponse](data)
}

// v2EncodeRPCRequest is EncodeRPCRequest by v2.
func v2EncodeRPCRequest(id int64, method string, params any) ([]byte, error) {
	return jsonv2.Marshal(a2a.RPCRequest{JSONRPC: "2.0", ID: id, Method: method, Params: params}, v2Enc)
}

// v2Equal reports whether two documents hold the same JSON value.
func v2Equal(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
