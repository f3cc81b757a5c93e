//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/json"
	"math"
	"sync/atomic"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// A fast path for the JSON-RPC requests the server reads: the envelope,
// and the params of the hot methods (SendMessage, SendStreamingMessage,
// GetTask, CancelTask, SubscribeToTask). a2a.ParseRPCRequest validates the
// body with json.Valid and decodes the envelope by reflection, copying the
// params; decodeParams looks the params over for proto field names and
// decodes them again by reflection into the wire mirror types. For a small
// SendMessage that was about a tenth of the server's CPU. The decoder
// below reads the canonical form of these requests (exact member names,
// each once, values of the fields' JSON types) with the scanner of
// codec_fastdecode.go: one pass over the envelope, which checks the params
// as it skips them, and one over the params, straight into the public
// types.
//
// Its rule is that of the response fast path: it either produces exactly
// what a2a.ParseRPCRequest and decodeParams produce over the same bytes, or it
// declines and they run. It declines every request they answer with an
// error (invalid JSON, a batch, a missing or mistyped id, jsonrpc or
// method, params that are not an object), and everything outside the
// canonical form: a member name with an escape or a non-ASCII byte, one
// that matches a field only case-insensitively, a duplicate member, a
// value of another JSON type than the field's, a null list element, a
// number that is not a plain int32 where one goes, a part of no or of two
// kinds. Params in which normalizeFieldNames might rename a key (a
// snake_case name) are declined as a whole, so proto names keep their
// slow path and its rules (a field under both its names is refused, keys
// are re-encoded). Duplicates, invalid UTF-8 and escaped lone surrogates
// are declined inside skipped values too; the slow path refuses them.
//
// Nothing returned aliases the body except the envelope's Params, which
// is read once, by readParams, while the body is still held. The id, which
// an answer or a whole stream keeps, is copied into an allocation of its
// own: sharing the envelope's would keep the params, and so the body,
// alive as long as the stream.

// fastRequestOff turns the request fast path off, so that tests can
// compare the server's answers with and without it.
var fastRequestOff atomic.Bool

// ReadRPCRequest is a2a.ParseRPCRequest, by the fast path when it can.
func ReadRPCRequest(body []byte) (*a2a.RPCEnvelope, json.RawMessage, error) {
	if !fastRequestOff.Load() {
		if req, ok := fastParseRPCRequest(body); ok {
			return req, req.ID, nil
		}
	}
	return a2a.ParseRPCRequest(body)
}

// ReadParams is decodeParams, by the fast path when it can. p is a fresh
// value from newParams.
func ReadParams(raw []byte, p any) error {
	if !fastRequestOff.Load() && fastDecodeParams(raw, p) {
		return nil
	}
	return a2a.DecodeParams(raw, p)
}

// The members of each request object, as named by the json tags of the
// types the slow path decodes into (a test keeps them in step). An unknown
// member is skipped only if it matches none of these case-insensitively.
var (
	fastRequestFields       = []string{"jsonrpc", "id", "method", "params"}
	fastSendRequestFields   = []string{"tenant", "message", "configuration", "metadata"}
	fastSendConfigFields    = []string{"acceptedOutputModes", "taskPushNotificationConfig", "historyLength", "returnImmediately"}
	fastPushConfigFields    = []string{"tenant", "id", "taskId", "url", "token", "authentication"}
	fastAuthenticationField = []string{"scheme", "credentials"}
	fastGetTaskFields       = []string{"tenant", "id", "historyLength"}
	fastCancelTaskFields    = []string{"tenant", "id", "metadata"}
	fastSubscribeFields     = []string{"tenant", "id"}
)

// fastRequest holds an envelope with its jsonrpc and method strings in
// one allocation.
type fastRequest struct {
	req     a2a.RPCEnvelope
	jsonrpc string
	method  string
}

var fastJSONRPC20 = []byte(`"2.0"`)

// fastParseRPCRequest reads body as a2a.ParseRPCRequest does when it accepts
// it; ok is false when it declines. The id to answer with is req.ID.
func fastParseRPCRequest(body []byte) (req *a2a.RPCEnvelope, ok bool) {
	d := fastDec{b: body}
	if !d.open('{') {
		return nil, false
	}
	box := new(fastRequest)
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return nil, false
		}
		if done {
			break
		}
		switch string(name) {
		case "jsonrpc":
			// Only the literal "2.0": any other value is an error, and an
			// escaped spelling of it is rare enough for the slow path.
			if !fastOnce(&seen, 0) || d.peek() != '"' || !d.literal(fastJSONRPC20) {
				return nil, false
			}
			box.jsonrpc = "2.0"
			box.req.JSONRPC = &box.jsonrpc
		case "id":
			if !fastOnce(&seen, 1) {
				return nil, false
			}
			// A string, a number or null; anything else is an error.
			switch c := d.peek(); {
			case c == '"', c == 'n', c == '-', '0' <= c && c <= '9':
			default:
				return nil, false
			}
			span, ok := d.value()
			if !ok {
				return nil, false
			}
			box.req.ID = append(json.RawMessage(nil), span...)
		case "method":
			if !fastOnce(&seen, 2) || !d.method(&box.method) {
				return nil, false
			}
			box.req.Method = &box.method
		case "params":
			if !fastOnce(&seen, 3) {
				return nil, false
			}
			switch d.peek() {
			case 'n':
				if !d.null() {
					return nil, false
				}
				// What json.RawMessage keeps of a null; len == cap, so
				// an append by a caller copies.
				box.req.Params = fastNull[:len(fastNull):len(fastNull)]
			case '{':
				span, ok := d.value()
				if !ok {
					return nil, false
				}
				box.req.Params = span
			default:
				return nil, false
			}
		default:
			if !d.skipUnknown(name, fastRequestFields, &unk) {
				return nil, false
			}
		}
	}
	if !d.end() || seen&0b111 != 0b111 {
		return nil, false
	}
	return &box.req, true
}

// method reads a non-empty method name; the known names are shared, not
// copied.
func (d *fastDec) method(dst *string) bool {
	if d.peek() != '"' {
		return false
	}
	if end := bytes.IndexByte(d.b[d.i+1:], '"'); end > 0 {
		if m, ok := fastMethodName(d.b[d.i+1 : d.i+1+end]); ok {
			d.i += end + 2
			*dst = m
			return true
		}
	}
	s, ok := d.str(false)
	*dst = s
	return ok && s != ""
}

// fastMethodName returns the method constant spelled by raw, if any.
func fastMethodName(raw []byte) (string, bool) {
	switch string(raw) {
	case a2a.MethodSendMessage:
		return a2a.MethodSendMessage, true
	case a2a.MethodSendStreamingMessage:
		return a2a.MethodSendStreamingMessage, true
	case a2a.MethodGetTask:
		return a2a.MethodGetTask, true
	case a2a.MethodListTasks:
		return a2a.MethodListTasks, true
	case a2a.MethodCancelTask:
		return a2a.MethodCancelTask, true
	case a2a.MethodSubscribeToTask:
		return a2a.MethodSubscribeToTask, true
	case a2a.MethodCreatePushConfig:
		return a2a.MethodCreatePushConfig, true
	case a2a.MethodGetPushConfig:
		return a2a.MethodGetPushConfig, true
	case a2a.MethodListPushConfigs:
		return a2a.MethodListPushConfigs, true
	case a2a.MethodDeletePushConfig:
		return a2a.MethodDeletePushConfig, true
	case a2a.MethodGetExtendedAgentCard:
		return a2a.MethodGetExtendedAgentCard, true
	}
	return "", false
}

// fastDecodeParams decodes raw into p as decodeParams would, for the
// request types it knows; false when it declines. p is a fresh value from
// newParams and is written only on success, so that the slow path, when
// it runs, starts from it as it was.
func fastDecodeParams(raw []byte, p any) bool {
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	// Exactly the test with which normalizeFieldNames returns raw as is.
	if bytes.IndexByte(raw, '_') >= 0 && a2a.ProtoNamesIn(raw) {
		return false
	}
	d := fastDec{b: raw}
	switch r := p.(type) {
	case *a2a.SendMessageRequest:
		var v a2a.SendMessageRequest
		if !d.sendMessageRequest(&v) || !d.end() {
			return false
		}
		*r = v
	case *a2a.GetTaskRequest:
		var v a2a.GetTaskRequest
		if !d.getTaskRequest(&v) || !d.end() {
			return false
		}
		*r = v
	case *a2a.CancelTaskRequest:
		var v a2a.CancelTaskRequest
		if !d.cancelTaskRequest(&v) || !d.end() {
			return false
		}
		*r = v
	case *a2a.SubscribeToTaskRequest:
		var v a2a.SubscribeToTaskRequest
		if !d.subscribeToTaskRequest(&v) || !d.end() {
			return false
		}
		*r = v
	default:
		return false
	}
	return true
}

// sendMessageRequest reads SendMessage params as decodeSendMessageRequest
// does.
func (d *fastDec) sendMessageRequest(r *a2a.SendMessageRequest) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(name) {
		case "tenant":
			ok = fastOnce(&seen, 0) && d.strField(&r.Tenant, false)
		case "message":
			ok = fastOnce(&seen, 1) && d.messagePtr(&r.Message)
		case "configuration":
			ok = fastOnce(&seen, 2) && d.sendConfiguration(&r.Configuration)
		case "metadata":
			ok = fastOnce(&seen, 3) && d.metadata(&r.Metadata)
		default:
			ok = d.skipUnknown(name, fastSendRequestFields, &unk)
		}
		if !ok {
			return false
		}
	}
}

// sendConfiguration reads an optional SendMessageConfiguration as
// encoding/json does (null: nil, {}: a zero configuration).
func (d *fastDec) sendConfiguration(dst **a2a.SendMessageConfiguration) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	c := new(a2a.SendMessageConfiguration)
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			*dst = c
			return true
		}
		switch string(name) {
		case "acceptedOutputModes":
			ok = fastOnce(&seen, 0) && d.strings(&c.AcceptedOutputModes)
		case "taskPushNotificationConfig":
			ok = fastOnce(&seen, 1) && d.pushConfig(&c.TaskPushNotificationConfig)
		case "historyLength":
			ok = fastOnce(&seen, 2) && d.int32Ptr(&c.HistoryLength)
		case "returnImmediately":
			ok = fastOnce(&seen, 3) && d.boolField(&c.ReturnImmediately)
		default:
			ok = d.skipUnknown(name, fastSendConfigFields, &unk)
		}
		if !ok {
			return false
		}
	}
}

// pushConfig reads an optional inline push notification config.
func (d *fastDec) pushConfig(dst **a2a.TaskPushNotificationConfig) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	c := new(a2a.TaskPushNotificationConfig)
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			*dst = c
			return true
		}
		switch string(name) {
		case "tenant":
			ok = fastOnce(&seen, 0) && d.strField(&c.Tenant, false)
		case "id":
			ok = fastOnce(&seen, 1) && d.strField(&c.ID, false)
		case "taskId":
			ok = fastOnce(&seen, 2) && d.strField(&c.TaskID, false)
		case "url":
			ok = fastOnce(&seen, 3) && d.strField(&c.URL, false)
		case "token":
			ok = fastOnce(&seen, 4) && d.strField(&c.Token, false)
		case "authentication":
			ok = fastOnce(&seen, 5) && d.authentication(&c.Authentication)
		default:
			ok = d.skipUnknown(name, fastPushConfigFields, &unk)
		}
		if !ok {
			return false
		}
	}
}

// authentication reads an optional push authentication.
func (d *fastDec) authentication(dst **a2a.AuthenticationInfo) bool {
	if d.null() {
		return true
	}
	if !d.open('{') {
		return false
	}
	a := new(a2a.AuthenticationInfo)
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			*dst = a
			return true
		}
		switch string(name) {
		case "scheme":
			ok = fastOnce(&seen, 0) && d.strField(&a.Scheme, false)
		case "credentials":
			ok = fastOnce(&seen, 1) && d.strField(&a.Credentials, false)
		default:
			ok = d.skipUnknown(name, fastAuthenticationField, &unk)
		}
		if !ok {
			return false
		}
	}
}

// getTaskRequest reads GetTask params.
func (d *fastDec) getTaskRequest(r *a2a.GetTaskRequest) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(name) {
		case "tenant":
			ok = fastOnce(&seen, 0) && d.strField(&r.Tenant, false)
		case "id":
			ok = fastOnce(&seen, 1) && d.strField(&r.ID, false)
		case "historyLength":
			ok = fastOnce(&seen, 2) && d.int32Ptr(&r.HistoryLength)
		default:
			ok = d.skipUnknown(name, fastGetTaskFields, &unk)
		}
		if !ok {
			return false
		}
	}
}

// cancelTaskRequest reads CancelTask params.
func (d *fastDec) cancelTaskRequest(r *a2a.CancelTaskRequest) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(name) {
		case "tenant":
			ok = fastOnce(&seen, 0) && d.strField(&r.Tenant, false)
		case "id":
			ok = fastOnce(&seen, 1) && d.strField(&r.ID, false)
		case "metadata":
			ok = fastOnce(&seen, 2) && d.metadata(&r.Metadata)
		default:
			ok = d.skipUnknown(name, fastCancelTaskFields, &unk)
		}
		if !ok {
			return false
		}
	}
}

// subscribeToTaskRequest reads SubscribeToTask params.
func (d *fastDec) subscribeToTaskRequest(r *a2a.SubscribeToTaskRequest) bool {
	if !d.open('{') {
		return false
	}
	var seen uint32
	var unk fastUnknown
	for n := 0; ; n++ {
		name, done, ok := d.member(n)
		if !ok {
			return false
		}
		if done {
			return true
		}
		switch string(name) {
		case "tenant":
			ok = fastOnce(&seen, 0) && d.strField(&r.Tenant, false)
		case "id":
			ok = fastOnce(&seen, 1) && d.strField(&r.ID, false)
		default:
			ok = d.skipUnknown(name, fastSubscribeFields, &unk)
		}
		if !ok {
			return false
		}
	}
}

// int32Ptr reads an optional int32 (null: nil). Only a plain integer in
// range is read: encoding/json refuses a fraction, an exponent or a value
// out of range, and those errors are the slow path's.
func (d *fastDec) int32Ptr(dst **int32) bool {
	if d.null() {
		return true
	}
	d.ws()
	b, j := d.b, d.i
	neg := j < len(b) && b[j] == '-'
	if neg {
		j++
	}
	start := j
	var n int64
	for ; j < len(b) && '0' <= b[j] && b[j] <= '9'; j++ {
		if j-start == 10 {
			return false // more digits than any int32 has
		}
		n = n*10 + int64(b[j]-'0')
	}
	if j == start || j-start > 1 && b[start] == '0' {
		return false // no digits, or a leading zero (invalid JSON)
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return false // a fraction or an exponent
	}
	if neg {
		n = -n
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		return false
	}
	d.i = j
	v := int32(n)
	*dst = &v
	return true
}
