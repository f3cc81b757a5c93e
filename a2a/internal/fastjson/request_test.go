//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// fastReqBenchBody is the benchmark's SendMessage request (bench/wrk).
const fastReqBenchBody = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"wrk-1","role":"ROLE_USER","parts":[{"text":"hello from the benchmark"}]}}}`

// What the fast path must do with a body of the table.
const (
	reqSlow     = iota // decline the envelope (and so everything)
	reqEnvelope        // take the envelope, leave the params to the slow path
	reqFast            // take the envelope and the params
)

type fastReqCase struct {
	name string
	body string
	want int
}

// fastReqRPC wraps params (raw JSON, "" for none) in an envelope.
func fastReqRPC(method, params string) string {
	if params == "" {
		return `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`
	}
	return `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
}

// fastReqSend wraps a message as SendMessage params.
func fastReqSend(msg string) string { return fastReqRPC(a2a.MethodSendMessage, `{"message":`+msg+`}`) }

// fastReqPart wraps a part as the one part of a SendMessage.
func fastReqPart(part string) string {
	return fastReqSend(`{"messageId":"m","role":"ROLE_USER","parts":[` + part + `]}`)
}

// fastReqConfig wraps a configuration as SendMessage params.
func fastReqConfig(cfg string) string {
	return fastReqRPC(a2a.MethodSendMessage, `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"t"}]},"configuration":`+cfg+`}`)
}

func fastReqCases() []fastReqCase {
	full := `{"tenant":"acme","message":{"messageId":"m-1","contextId":"c-1","taskId":"t-1","role":"ROLE_USER",` +
		`"parts":[{"text":"hi","metadata":{"k":"v"}},{"raw":"aGk=","filename":"a.bin","mediaType":"application/octet-stream"},{"url":"https://x.invalid/f","mediaType":"text/plain"},{"data":{"a":[1,2.5,"s",true,null]}}],` +
		`"metadata":{"skillId":"echo","n":{"m":[{}]}},"extensions":["urn:e"],"referenceTaskIds":["t-0"]},` +
		`"configuration":{"acceptedOutputModes":["text/plain","application/json"],"taskPushNotificationConfig":{"tenant":"acme","id":"p","taskId":"t-1","url":"https://hook.invalid/a","token":"tok","authentication":{"scheme":"Bearer","credentials":"c"}},"historyLength":3,"returnImmediately":true},` +
		`"metadata":{"skillId":"top","trace":[1,2]}}`
	cases := []fastReqCase{
		// Every handled method, as a client writes it.
		{"bench body", fastReqBenchBody, reqFast},
		{"streaming send", strings.Replace(fastReqBenchBody, `"SendMessage"`, `"SendStreamingMessage"`, 1), reqFast},
		{"send with every member", fastReqRPC(a2a.MethodSendMessage, full), reqFast},
		{"streaming send with every member", fastReqRPC(a2a.MethodSendStreamingMessage, full), reqFast},
		{"get task", fastReqRPC(a2a.MethodGetTask, `{"id":"t-1","historyLength":2}`), reqFast},
		{"get task with tenant", fastReqRPC(a2a.MethodGetTask, `{"tenant":"acme","id":"t-1"}`), reqFast},
		{"cancel task", fastReqRPC(a2a.MethodCancelTask, `{"tenant":"acme","id":"t-1","metadata":{"reason":"user"}}`), reqFast},
		{"subscribe", fastReqRPC(a2a.MethodSubscribeToTask, `{"tenant":"acme","id":"t-1"}`), reqFast},
		{"get task without params", fastReqRPC(a2a.MethodGetTask, ""), reqFast},
		{"get task null params", fastReqRPC(a2a.MethodGetTask, `null`), reqFast},
		{"send empty params", fastReqRPC(a2a.MethodSendMessage, `{}`), reqFast},
		{"send without params", fastReqRPC(a2a.MethodSendMessage, ""), reqFast},
		{"subscribe empty params", fastReqRPC(a2a.MethodSubscribeToTask, `{}`), reqFast},

		// Methods whose params the fast path leaves to the slow path.
		{"list tasks", fastReqRPC(a2a.MethodListTasks, `{"pageSize":5,"status":"TASK_STATE_WORKING"}`), reqEnvelope},
		{"extended card", fastReqRPC(a2a.MethodGetExtendedAgentCard, ""), reqEnvelope},
		{"create push config", fastReqRPC(a2a.MethodCreatePushConfig, `{"taskId":"t","url":"https://h.invalid"}`), reqEnvelope},
		{"get push config", fastReqRPC(a2a.MethodGetPushConfig, `{"taskId":"t","id":"p"}`), reqEnvelope},
		{"list push configs", fastReqRPC(a2a.MethodListPushConfigs, `{"taskId":"t"}`), reqEnvelope},
		{"delete push config", fastReqRPC(a2a.MethodDeletePushConfig, `{"taskId":"t","id":"p"}`), reqEnvelope},
		{"unknown method", fastReqRPC("Frobnicate", `{"x":1}`), reqEnvelope},
		{"lower-case method", fastReqRPC("sendMessage", `{}`), reqEnvelope},
		{"method escaped", `{"jsonrpc":"2.0","id":1,"method":"Send\u004dessage","params":{}}`, reqFast},
		{"method with quote", `{"jsonrpc":"2.0","id":1,"method":"a\"b"}`, reqEnvelope},
		{"method invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"Get\xffTask\"}", reqSlow},
		{"method long", fastReqRPC(strings.Repeat("M", 300), ""), reqEnvelope},

		// Ids of every kind.
		{"id string", `{"jsonrpc":"2.0","id":"req-1","method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id long string", `{"jsonrpc":"2.0","id":"c110754b-9dc0-44ad-b78d-6eec1c14946c","method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id escaped string", `{"jsonrpc":"2.0","id":"a\u0041\n","method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\",\"method\":\"GetTask\",\"params\":{\"id\":\"t\"}}", reqSlow},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id zero", `{"jsonrpc":"2.0","id":0,"method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id negative", `{"jsonrpc":"2.0","id":-5,"method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id exponent", `{"jsonrpc":"2.0","id":1.5e3,"method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id huge", `{"jsonrpc":"2.0","id":123456789012345678901234567890e400,"method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id empty string", `{"jsonrpc":"2.0","id":"","method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"id absent", `{"jsonrpc":"2.0","method":"GetTask","params":{"id":"t"}}`, reqSlow},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"GetTask"}`, reqSlow},
		{"id list", `{"jsonrpc":"2.0","id":[1],"method":"GetTask"}`, reqSlow},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"GetTask"}`, reqSlow},
		{"id false", `{"jsonrpc":"2.0","id":false,"method":"GetTask"}`, reqSlow},
		{"id leading zero", `{"jsonrpc":"2.0","id":01,"method":"GetTask"}`, reqSlow},

		// Every error a2a.ParseRPCRequest answers.
		{"empty body", ``, reqSlow},
		{"whitespace only", " \r\n\t", reqSlow},
		{"not json", `hello`, reqSlow},
		{"unclosed object", `{"jsonrpc":"2.0","id":1,"method":"GetTask"`, reqSlow},
		{"batch", `[` + fastReqBenchBody + `]`, reqSlow},
		{"empty batch", `[]`, reqSlow},
		{"string body", `"x"`, reqSlow},
		{"number body", `1`, reqSlow},
		{"null body", `null`, reqSlow},
		{"true body", `true`, reqSlow},
		{"empty object", `{}`, reqSlow},
		{"jsonrpc number", `{"jsonrpc":2.0,"id":1,"method":"GetTask"}`, reqSlow},
		{"jsonrpc null", `{"jsonrpc":null,"id":1,"method":"GetTask"}`, reqSlow},
		{"jsonrpc absent", `{"id":1,"method":"GetTask"}`, reqSlow},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"GetTask"}`, reqSlow},
		{"jsonrpc 2.00", `{"jsonrpc":"2.00","id":1,"method":"GetTask"}`, reqSlow},
		{"jsonrpc with space", `{"jsonrpc":" 2.0","id":1,"method":"GetTask"}`, reqSlow},
		{"jsonrpc escaped", `{"jsonrpc":"2\u002e0","id":1,"method":"GetTask"}`, reqSlow},
		{"jsonrpc then garbage", `{"jsonrpc":"2.0"x,"id":1,"method":"GetTask"}`, reqSlow},
		{"method absent", `{"jsonrpc":"2.0","id":1,"params":{}}`, reqSlow},
		{"method empty", `{"jsonrpc":"2.0","id":1,"method":""}`, reqSlow},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, reqSlow},
		{"method number", `{"jsonrpc":"2.0","id":1,"method":5}`, reqSlow},
		{"method list", `{"jsonrpc":"2.0","id":1,"method":["GetTask"]}`, reqSlow},
		{"params list", fastReqRPC(a2a.MethodGetTask, `[{"id":"t"}]`), reqSlow},
		{"params string", fastReqRPC(a2a.MethodGetTask, `"t"`), reqSlow},
		{"params number", fastReqRPC(a2a.MethodGetTask, `5`), reqSlow},
		{"params true", fastReqRPC(a2a.MethodGetTask, `true`), reqSlow},
		{"params nul", fastReqRPC(a2a.MethodGetTask, `nul`), reqSlow},
		{"params unclosed", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}`, reqSlow},

		// Envelope member names: case, escapes, duplicates, unknown members.
		{"upper-case ID", `{"jsonrpc":"2.0","ID":1,"method":"GetTask"}`, reqSlow},
		{"capitalised Method", `{"jsonrpc":"2.0","id":1,"Method":"GetTask"}`, reqSlow},
		{"upper-case JSONRPC", `{"JSONRPC":"2.0","id":1,"method":"GetTask"}`, reqSlow},
		{"capitalised Params", `{"jsonrpc":"2.0","id":1,"method":"GetTask","Params":{"id":"t"}}`, reqSlow},
		{"long s in jsonrpc", `{"jſonrpc":"2.0","id":1,"method":"GetTask"}`, reqSlow},
		{"escaped id name", `{"jsonrpc":"2.0","\u0069d":1,"method":"GetTask"}`, reqSlow},
		{"escaped unknown name", `{"jsonrpc":"2.0","\u0078":1,"id":1,"method":"GetTask"}`, reqSlow},
		{"non-ascii unknown name", `{"jsonrpc":"2.0","ïd":1,"id":1,"method":"GetTask"}`, reqSlow},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"GetTask"}`, reqSlow},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","method":"GetTask","params":{"id":"t"}}`, reqSlow},
		{"duplicate jsonrpc", `{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"GetTask"}`, reqSlow},
		{"duplicate params", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"a"},"params":{"historyLength":1}}`, reqSlow},
		{"unknown envelope members", `{"extra":{"a":[true,false,null,-1.5e-3,{"b_c":"x"}]},"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"},"z":null}`, reqFast},
		{"snake_case envelope member", `{"json_rpc":"1.0","jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}`, reqFast},
		{"empty member name", `{"":1,"jsonrpc":"2.0","id":1,"method":"GetTask"}`, reqFast},
		{"members in another order", `{"params":{"id":"t"},"method":"GetTask","id":"x","jsonrpc":"2.0"}`, reqFast},

		// Whitespace, trailing bytes.
		{"surrounding whitespace", " \t\r\n" + fastReqBenchBody + "\n ", reqFast},
		{"whitespace inside", `{ "jsonrpc" : "2.0" , "id" : 1 , "method" : "SendMessage" , "params" : { "message" : { "messageId" : "m" , "role" : "ROLE_USER" , "parts" : [ { "text" : "x" } , { "data" : { "a" : [ 1 , 2 ] } } ] } } }`, reqFast},
		{"vertical tab before", "\v" + fastReqBenchBody, reqSlow},
		{"form feed after", fastReqBenchBody + "\f", reqSlow},
		{"no-break space after", fastReqBenchBody + "\u00a0", reqSlow},
		{"byte order mark", "\xef\xbb\xbf" + fastReqBenchBody, reqSlow},
		{"trailing garbage", fastReqBenchBody + "x", reqSlow},
		{"two documents", fastReqBenchBody + fastReqBenchBody, reqSlow},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,"method":"GetTask",}`, reqSlow},
		{"trailing nul byte", fastReqBenchBody + "\x00", reqSlow},

		// Params: proto (snake_case) names are the slow path's.
		{"snake_case historyLength", fastReqRPC(a2a.MethodGetTask, `{"id":"t","history_length":2}`), reqEnvelope},
		{"both spellings", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":1,"history_length":2}`), reqEnvelope},
		{"snake_case messageId", fastReqSend(`{"message_id":"m","role":"ROLE_USER","parts":[{"text":"x"}]}`), reqEnvelope},
		{"snake_case ids", fastReqSend(`{"messageId":"m","context_id":"c","task_id":"t","parts":[]}`), reqEnvelope},
		{"snake_case reference ids", fastReqSend(`{"messageId":"m","parts":[],"reference_task_ids":["a"]}`), reqEnvelope},
		{"snake_case media type", fastReqPart(`{"raw":"aGk=","media_type":"text/plain"}`), reqEnvelope},
		{"snake_case configuration", fastReqConfig(`{"accepted_output_modes":["text/plain"],"return_immediately":true,"history_length":1}`), reqEnvelope},
		{"snake_case push config", fastReqConfig(`{"task_push_notification_config":{"url":"https://h.invalid","task_id":"t"}}`), reqEnvelope},
		{"snake_case unknown member", fastReqRPC(a2a.MethodGetTask, `{"id":"t","some_thing":1}`), reqEnvelope},
		{"snake_case key inside unknown member", fastReqRPC(a2a.MethodGetTask, `{"id":"t","x":{"a_b":1}}`), reqEnvelope},
		{"snake_case keys in metadata", fastReqRPC(a2a.MethodCancelTask, `{"id":"t","metadata":{"a_b":{"c_d":1}}}`), reqFast},
		{"snake_case keys in data", fastReqPart(`{"data":{"a_b":[{"c_d":1}]}}`), reqFast},
		{"leading underscore", fastReqRPC(a2a.MethodGetTask, `{"id":"t","_x":1}`), reqFast},
		{"underscores in values", fastReqRPC(a2a.MethodGetTask, `{"id":"t_1","tenant":"a_b"}`), reqFast},
		{"escaped name in params", fastReqRPC(a2a.MethodGetTask, `{"\u0069d":"t"}`), reqSlow},
		{"escaped snake_case name", fastReqRPC(a2a.MethodGetTask, `{"id":"t","history\u005flength":2}`), reqSlow},
		{"escaped name in metadata", fastReqRPC(a2a.MethodCancelTask, `{"id":"t","metadata":{"\u0061_b":1}}`), reqSlow},

		// Params: case, duplicates, unknown members.
		{"capitalised Message", fastReqRPC(a2a.MethodSendMessage, `{"Message":{"messageId":"m","parts":[]}}`), reqEnvelope},
		{"upper-case MESSAGE", fastReqRPC(a2a.MethodSendMessage, `{"MESSAGE":{"messageId":"m","parts":[]}}`), reqEnvelope},
		{"messageID", fastReqSend(`{"messageID":"m","parts":[]}`), reqEnvelope},
		{"upper-case ID in get task", fastReqRPC(a2a.MethodGetTask, `{"ID":"t"}`), reqEnvelope},
		{"capitalised HistoryLength", fastReqRPC(a2a.MethodGetTask, `{"id":"t","HistoryLength":1}`), reqEnvelope},
		{"capitalised Configuration", fastReqRPC(a2a.MethodSendMessage, `{"Configuration":{}}`), reqEnvelope},
		{"lower-case returnimmediately", fastReqConfig(`{"returnimmediately":true}`), reqEnvelope},
		{"capitalised Text", fastReqPart(`{"Text":"x"}`), reqEnvelope},
		{"kelvin sign folds to k", fastReqSend("{\"messageId\":\"m\",\"tas\u212aId\":\"t\",\"parts\":[]}"), reqEnvelope},
		{"escaped kelvin sign", fastReqSend(`{"messageId":"m","tas\u212aId":"t","parts":[]}`), reqSlow},
		{"long s folds to s", fastReqSend(`{"meſsageId":"m","parts":[]}`), reqEnvelope},
		{"duplicate tenant", fastReqRPC(a2a.MethodGetTask, `{"id":"t","tenant":"a","tenant":"b"}`), reqSlow},
		{"duplicate message", fastReqRPC(a2a.MethodSendMessage, `{"message":{"messageId":"a"},"message":{"role":"ROLE_USER","parts":[]}}`), reqSlow},
		{"duplicate configuration", fastReqRPC(a2a.MethodSendMessage, `{"configuration":{"historyLength":1},"configuration":{"returnImmediately":true}}`), reqSlow},
		{"duplicate get task id", fastReqRPC(a2a.MethodGetTask, `{"id":"a","id":"b"}`), reqSlow},
		{"duplicate history length", fastReqRPC(a2a.MethodGetTask, `{"id":"a","historyLength":1,"historyLength":2}`), reqSlow},
		{"duplicate text", fastReqPart(`{"text":"a","text":"b"}`), reqSlow},
		{"duplicate push url", fastReqConfig(`{"taskPushNotificationConfig":{"url":"a","url":"b"}}`), reqSlow},
		{"duplicate scheme", fastReqConfig(`{"taskPushNotificationConfig":{"url":"a","authentication":{"scheme":"a","scheme":"b"}}}`), reqSlow},
		{"duplicate unknown member", fastReqRPC(a2a.MethodGetTask, `{"x":1,"id":"t","x":2}`), reqSlow},
		{"unknown members everywhere", fastReqRPC(a2a.MethodSendMessage, `{"kind":"send","message":{"kind":"message","messageId":"m","parts":[{"kind":"text","text":"t"}]},"configuration":{"blocking":true,"taskPushNotificationConfig":{"url":"u","x":1,"authentication":{"scheme":"s","y":[]}}},"z":{}}`), reqFast},

		// Params: strings.
		{"text escapes", fastReqPart(`{"text":"\"\\\/\b\f\n\r\t\u00e9\u20ac\ud83d\ude00"}`), reqFast},
		{"text lone surrogate", fastReqPart(`{"text":"a\ud800b"}`), reqSlow},
		{"text invalid utf-8", fastReqPart("{\"text\":\"a\xffb\xc0\"}"), reqSlow},
		{"message id invalid utf-8", fastReqSend("{\"messageId\":\"\xed\xa0\x80\",\"parts\":[]}"), reqSlow},
		{"task id invalid utf-8", fastReqRPC(a2a.MethodGetTask, "{\"id\":\"t\xfe\"}"), reqSlow},
		{"tenant escaped", fastReqRPC(a2a.MethodGetTask, `{"id":"t","tenant":"a\u0000b"}`), reqFast},
		{"text control char", fastReqPart("{\"text\":\"a\tb\"}"), reqSlow},
		{"text bad escape", fastReqPart(`{"text":"\x"}`), reqSlow},

		// Params: historyLength as an int32.
		{"history length max", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":2147483647}`), reqFast},
		{"history length min", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":-2147483648}`), reqFast},
		{"history length zero", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":0}`), reqFast},
		{"history length minus zero", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":-0}`), reqFast},
		{"history length negative", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":-1}`), reqFast},
		{"history length null", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":null}`), reqFast},
		{"history length in configuration", fastReqConfig(`{"historyLength":7}`), reqFast},
		{"history length over max", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":2147483648}`), reqEnvelope},
		{"history length under min", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":-2147483649}`), reqEnvelope},
		{"history length eleven digits", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":10000000000}`), reqEnvelope},
		{"history length huge", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":123456789012345678901234567890}`), reqEnvelope},
		{"history length exponent", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":1e3}`), reqEnvelope},
		{"history length huge exponent", fastReqConfig(`{"historyLength":1e400}`), reqEnvelope},
		{"history length fraction", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":1.0}`), reqEnvelope},
		{"history length string", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":"5"}`), reqEnvelope},
		{"history length bool", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":true}`), reqEnvelope},
		{"history length list", fastReqConfig(`{"historyLength":[1]}`), reqEnvelope},
		{"history length leading zero", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":01}`), reqSlow},
		{"history length bare minus", fastReqRPC(a2a.MethodGetTask, `{"id":"t","historyLength":-}`), reqSlow},

		// Params: nulls.
		{"null message", fastReqRPC(a2a.MethodSendMessage, `{"message":null}`), reqFast},
		{"null send members", fastReqRPC(a2a.MethodSendMessage, `{"tenant":null,"message":null,"configuration":null,"metadata":null}`), reqFast},
		{"null configuration members", fastReqConfig(`{"acceptedOutputModes":null,"taskPushNotificationConfig":null,"historyLength":null,"returnImmediately":null}`), reqFast},
		{"null push config members", fastReqConfig(`{"taskPushNotificationConfig":{"tenant":null,"id":null,"taskId":null,"url":null,"token":null,"authentication":null}}`), reqFast},
		{"null authentication members", fastReqConfig(`{"taskPushNotificationConfig":{"url":"u","authentication":{"scheme":null,"credentials":null}}}`), reqFast},
		{"null message members", fastReqSend(`{"messageId":null,"contextId":null,"taskId":null,"role":null,"parts":null,"metadata":null,"extensions":null,"referenceTaskIds":null}`), reqFast},
		{"null get task members", fastReqRPC(a2a.MethodGetTask, `{"tenant":null,"id":null,"historyLength":null}`), reqFast},
		{"null cancel members", fastReqRPC(a2a.MethodCancelTask, `{"tenant":null,"id":null,"metadata":null}`), reqFast},
		{"null output mode", fastReqConfig(`{"acceptedOutputModes":["a",null]}`), reqEnvelope},
		{"null part", fastReqSend(`{"messageId":"m","parts":[null]}`), reqEnvelope},
		{"null extension", fastReqSend(`{"messageId":"m","parts":[],"extensions":[null]}`), reqEnvelope},
		{"part null text and url", fastReqPart(`{"text":null,"url":"u"}`), reqFast},
		{"part data null", fastReqPart(`{"data":null}`), reqFast},

		// Params: empty lists and objects.
		{"empty lists", fastReqSend(`{"messageId":"m","parts":[],"extensions":[],"referenceTaskIds":[]}`), reqFast},
		{"empty configuration", fastReqConfig(`{}`), reqFast},
		{"empty output modes", fastReqConfig(`{"acceptedOutputModes":[]}`), reqFast},
		{"empty push config", fastReqConfig(`{"taskPushNotificationConfig":{}}`), reqFast},
		{"empty metadata", fastReqRPC(a2a.MethodSendMessage, `{"metadata":{}}`), reqFast},
		{"empty message", fastReqRPC(a2a.MethodSendMessage, `{"message":{}}`), reqFast},

		// Params: values of another type than the field's.
		{"message string", fastReqRPC(a2a.MethodSendMessage, `{"message":"hi"}`), reqEnvelope},
		{"message list", fastReqRPC(a2a.MethodSendMessage, `{"message":[]}`), reqEnvelope},
		{"configuration list", fastReqConfig(`[]`), reqEnvelope},
		{"configuration string", fastReqConfig(`"x"`), reqEnvelope},
		{"return immediately string", fastReqConfig(`{"returnImmediately":"true"}`), reqEnvelope},
		{"return immediately number", fastReqConfig(`{"returnImmediately":1}`), reqEnvelope},
		{"output modes string", fastReqConfig(`{"acceptedOutputModes":"text/plain"}`), reqEnvelope},
		{"output modes numbers", fastReqConfig(`{"acceptedOutputModes":[1]}`), reqEnvelope},
		{"push config list", fastReqConfig(`{"taskPushNotificationConfig":[]}`), reqEnvelope},
		{"push url number", fastReqConfig(`{"taskPushNotificationConfig":{"url":5}}`), reqEnvelope},
		{"authentication string", fastReqConfig(`{"taskPushNotificationConfig":{"url":"u","authentication":"Bearer"}}`), reqEnvelope},
		{"metadata list", fastReqRPC(a2a.MethodSendMessage, `{"metadata":[]}`), reqEnvelope},
		{"metadata string", fastReqRPC(a2a.MethodCancelTask, `{"id":"t","metadata":"x"}`), reqEnvelope},
		{"metadata number out of range", fastReqRPC(a2a.MethodCancelTask, `{"id":"t","metadata":{"a":1e400}}`), reqEnvelope},
		{"tenant number", fastReqRPC(a2a.MethodSendMessage, `{"tenant":5}`), reqEnvelope},
		{"get task id number", fastReqRPC(a2a.MethodGetTask, `{"id":5}`), reqEnvelope},
		{"subscribe id object", fastReqRPC(a2a.MethodSubscribeToTask, `{"id":{}}`), reqEnvelope},
		{"cancel id bool", fastReqRPC(a2a.MethodCancelTask, `{"id":false}`), reqEnvelope},
		{"role object", fastReqSend(`{"messageId":"m","role":{},"parts":[]}`), reqEnvelope},
		{"role by number", fastReqSend(`{"messageId":"m","role":1,"parts":[]}`), reqFast},
		{"role unknown name", fastReqSend(`{"messageId":"m","role":"ROLE_ROBOT","parts":[]}`), reqFast},
		{"parts object", fastReqSend(`{"messageId":"m","parts":{}}`), reqEnvelope},

		// Params: parts the slow path refuses or drops.
		{"part two kinds", fastReqPart(`{"text":"a","url":"b"}`), reqEnvelope},
		{"part of unknown kind", fastReqPart(`{"file":{"uri":"x"}}`), reqEnvelope},
		{"part with no member", fastReqPart(`{}`), reqEnvelope},
		{"part bad base64", fastReqPart(`{"raw":"a*b"}`), reqEnvelope},
		{"part raw url-safe", fastReqPart(`{"raw":"-_8"}`), reqFast},
		{"part data with spaces", fastReqPart(`{"data": { "a" : [ 1 , "x y" ] } }`), reqFast},

		// Nesting.
		{"nested metadata within bounds", fastReqRPC(a2a.MethodCancelTask, `{"id":"t","metadata":{"a":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}}`), reqFast},
		{"deeply nested metadata", fastReqRPC(a2a.MethodCancelTask, `{"id":"t","metadata":{"a":`+strings.Repeat("[", 600)+strings.Repeat("]", 600)+`}}`), reqSlow},
		{"deeply nested unknown member", `{"jsonrpc":"2.0","id":1,"method":"GetTask","x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, reqSlow},
		{"nesting beyond encoding/json", fastReqRPC(a2a.MethodCancelTask, `{"id":"t","metadata":{"a":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+`}}`), reqSlow},
		{"deeply nested snake_case", fastReqRPC(a2a.MethodGetTask, `{"id":"t","x":`+strings.Repeat(`{"a_b":`, 300)+`1`+strings.Repeat("}", 300)+`}`), reqEnvelope},
	}
	// The bench body cut at every few bytes: all invalid.
	for i := 1; i < len(fastReqBenchBody); i += 11 {
		cases = append(cases, fastReqCase{"truncated bench body", fastReqBenchBody[:i], reqSlow})
	}
	// The richest body indented: whitespace everywhere.
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(fastReqRPC(a2a.MethodSendMessage, full)), "", "\t"); err != nil {
		panic(err)
	}
	cases = append(cases, fastReqCase{"indented send", indented.String(), reqFast})
	return cases
}

// fastReqOutcome is what the server makes of a body: the envelope, the id
// it answers with, the params, the error, and the answer it writes.
type fastReqOutcome struct {
	req    *a2a.RPCEnvelope
	id     json.RawMessage
	params any
	err    error
	status int
	answer []byte
}

// fastReqAnswer writes the answer of the differential checks as the
// server's JSON-RPC binding shapes it (a2a/server checks its writer against
// encoding/json).
func fastReqAnswer(id json.RawMessage, params any, err error) []byte {
	v := a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: params}
	if err != nil {
		if id == nil {
			id = json.RawMessage("null")
		}
		e := a2a.AsError(err)
		v = a2a.RPCReply{JSONRPC: "2.0", ID: id, Error: &a2a.RPCReplyError{Code: e.Code, Message: e.Message, Data: e.Details()}}
	}
	b, jerr := json.Marshal(v)
	if jerr != nil {
		return []byte(jerr.Error())
	}
	return b
}

// fastReqRun reads body as serveJSONRPC does, with parse and decode.
func fastReqRun(body []byte, parse func([]byte) (*a2a.RPCEnvelope, json.RawMessage, error), decode func([]byte, any) error) fastReqOutcome {
	var o fastReqOutcome
	o.req, o.id, o.err = parse(body)
	if o.err == nil {
		p, _, ok := a2a.NewParams(*o.req.Method)
		if !ok {
			o.err = a2a.ErrMethodNotFound.Withf("method %q not found", a2a.Truncate([]byte(*o.req.Method), 64))
		} else if err := decode(o.req.Params, p); err != nil {
			o.err = err
		} else {
			o.params = p
		}
	}
	o.answer = fastReqAnswer(o.id, o.params, o.err)
	return o
}

// checkFastReqMatchesSlow reads body through readRPCRequest and
// readParams (the fast path and its fallback) and through a2a.ParseRPCRequest
// and decodeParams alone, and fails unless both give equal envelopes,
// ids, params, errors and answers. The fast path reads a copy of body that
// is overwritten afterwards, so that a result aliasing its input (other
// than the envelope's params, which are meant to) would differ. It
// returns whether the fast path took the envelope and the params.
func checkFastReqMatchesSlow(t *testing.T, body []byte) (envelope, params bool) {
	t.Helper()
	want := fastReqRun(body, a2a.ParseRPCRequest, a2a.DecodeParams)
	in := append([]byte(nil), body...)
	if req, ok := fastParseRPCRequest(in); ok {
		envelope = true
		if want.err != nil && want.req == nil {
			t.Fatalf("%q: fast path took an envelope the slow path refuses: %v", body, want.err)
		}
		if p, _, known := a2a.NewParams(*req.Method); known {
			params = fastDecodeParams(req.Params, p)
			if params && want.params == nil {
				t.Fatalf("%q: fast path took params the slow path refuses: %v", body, want.err)
			}
		}
	}
	got := fastReqRun(in, ReadRPCRequest, ReadParams)
	compare := func(when string) {
		t.Helper()
		if (got.err == nil) != (want.err == nil) || got.err != nil && (got.err.Error() != want.err.Error() || a2a.AsError(got.err).Code != a2a.AsError(want.err).Code) {
			t.Fatalf("%q %s: error %v, slow path %v", body, when, got.err, want.err)
		}
		if !bytes.Equal(got.id, want.id) {
			t.Fatalf("%q %s: id %q, slow path %q", body, when, got.id, want.id)
		}
		if !reflect.DeepEqual(got.params, want.params) {
			t.Fatalf("%q %s (fast params: %v):\n got %s\nwant %s", body, when, params, fastDumpValue(got.params), fastDumpValue(want.params))
		}
		if got.status != want.status || !bytes.Equal(got.answer, want.answer) {
			t.Fatalf("%q %s: answer %d %s\nslow path %d %s", body, when, got.status, got.answer, want.status, want.answer)
		}
	}
	compare("")
	if !reflect.DeepEqual(got.req, want.req) {
		t.Fatalf("%q (fast envelope: %v): envelope %s, slow path %s", body, envelope, fastReqDump(got.req), fastReqDump(want.req))
	}
	for i := range in {
		in[i] = 'x'
	}
	compare("after the body was overwritten")
	if got.req != nil {
		if *got.req.JSONRPC != *want.req.JSONRPC || *got.req.Method != *want.req.Method || !bytes.Equal(got.req.ID, want.req.ID) {
			t.Fatalf("%q: envelope aliases the body: %s, slow path %s", body, fastReqDump(got.req), fastReqDump(want.req))
		}
	}
	return envelope, params
}

func fastReqDump(r *a2a.RPCEnvelope) string {
	if r == nil {
		return "<nil>"
	}
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return fmt.Sprintf("%q", *p)
	}
	return fmt.Sprintf("{jsonrpc:%s id:%q method:%s params:%q}", s(r.JSONRPC), r.ID, s(r.Method), r.Params)
}

// TestFastRequestMatchesSlowPath: over every handled method, every error
// a2a.ParseRPCRequest answers and the odd inputs, the fast path with its
// fallback gives the slow path's envelope, params, error and answer, and
// takes (or declines) the bodies it is meant to.
func TestFastRequestMatchesSlowPath(t *testing.T) {
	fastQuietLog(t)
	for _, tc := range fastReqCases() {
		t.Run(tc.name, func(t *testing.T) {
			env, params := checkFastReqMatchesSlow(t, []byte(tc.body))
			got := reqSlow
			switch {
			case env && params:
				got = reqFast
			case env:
				got = reqEnvelope
			}
			if got != tc.want {
				t.Errorf("fast path level %d, want %d (0: declined, 1: envelope, 2: envelope and params)\n%s", got, tc.want, tc.body)
			}
		})
	}
}

// TestFastRequestFieldListsMatchTypes: the members the fast path knows are
// those of the types the slow path decodes into, so a field added there
// cannot be skipped as unknown here.
func TestFastRequestFieldListsMatchTypes(t *testing.T) {
	for _, tc := range []struct {
		typ    reflect.Type
		fields []string
	}{
		{reflect.TypeFor[a2a.RPCEnvelope](), fastRequestFields},
		{reflect.TypeFor[a2a.SendMessageRequest](), fastSendRequestFields},
		{reflect.TypeFor[a2a.SendMessageConfiguration](), fastSendConfigFields},
		{reflect.TypeFor[a2a.TaskPushNotificationConfig](), fastPushConfigFields},
		{reflect.TypeFor[a2a.AuthenticationInfo](), fastAuthenticationField},
		{reflect.TypeFor[a2a.GetTaskRequest](), fastGetTaskFields},
		{reflect.TypeFor[a2a.CancelTaskRequest](), fastCancelTaskFields},
		{reflect.TypeFor[a2a.SubscribeToTaskRequest](), fastSubscribeFields},
	} {
		if names := jsonMemberNames(tc.typ); !reflect.DeepEqual(names, tc.fields) {
			t.Errorf("%v: members %q, fast path knows %q", tc.typ, names, tc.fields)
		}
	}
	// Every method name is shared rather than copied.
	for _, m := range []string{a2a.MethodSendMessage, a2a.MethodSendStreamingMessage, a2a.MethodGetTask, a2a.MethodListTasks, a2a.MethodCancelTask, a2a.MethodSubscribeToTask,
		a2a.MethodCreatePushConfig, a2a.MethodGetPushConfig, a2a.MethodListPushConfigs, a2a.MethodDeletePushConfig, a2a.MethodGetExtendedAgentCard} {
		if _, _, ok := a2a.NewParams(m); !ok {
			t.Errorf("%s: not a method of newParams", m)
		}
		if got, ok := fastMethodName([]byte(m)); !ok || got != m {
			t.Errorf("fastMethodName(%q) = %q, %v", m, got, ok)
		}
	}
}

// TestFastRequestTakesCanonicalRequests: requests as encoding/json writes
// the public types are read by the fast path, envelope and params, with
// the slow path's values; it does not silently decline them.
func TestFastRequestTakesCanonicalRequests(t *testing.T) {
	hl := int32(4)
	data, err := a2a.DataPart(map[string]any{"k": []any{1, "x"}})
	if err != nil {
		t.Fatal(err)
	}
	msg := &a2a.Message{
		MessageID: "m-1", ContextID: "c-1", TaskID: "t-1", Role: a2a.RoleUser,
		Parts:      []a2a.Part{a2a.TextPart("Book <b>&</b> \"it\" ✓\n"), data, a2a.RawPart([]byte{0, 1, 0xff}, "application/octet-stream", "b.bin"), a2a.URLPart("https://x.invalid/a?b=1&c=2", "text/html", "a.html")},
		Metadata:   a2a.Metadata{"skillId": "travel", "n": 1.5},
		Extensions: []string{"urn:e"}, ReferenceTaskIDs: []string{"t-0"},
	}
	send := &a2a.SendMessageRequest{
		Tenant: "acme", Message: msg, Metadata: a2a.Metadata{"trace": "x"},
		Configuration: &a2a.SendMessageConfiguration{
			AcceptedOutputModes: []string{"text/plain"}, HistoryLength: &hl, ReturnImmediately: true,
			TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://hook.invalid/a", Token: "t", Authentication: &a2a.AuthenticationInfo{Scheme: "Bearer", Credentials: "c"}},
		},
	}
	type envelope struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}
	for _, e := range []envelope{
		{"2.0", 1, a2a.MethodSendMessage, send},
		{"2.0", "abc-123", a2a.MethodSendStreamingMessage, send},
		{"2.0", 2, a2a.MethodSendMessage, &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hi")}}}},
		{"2.0", 3, a2a.MethodGetTask, &a2a.GetTaskRequest{Tenant: "acme", ID: "t-1", HistoryLength: &hl}},
		{"2.0", 4, a2a.MethodCancelTask, &a2a.CancelTaskRequest{ID: "t-1", Metadata: a2a.Metadata{"reason": "x"}}},
		{"2.0", nil, a2a.MethodSubscribeToTask, &a2a.SubscribeToTaskRequest{ID: "t-1"}},
		{"2.0", 5, a2a.MethodGetTask, nil},
	} {
		body, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		env, params := checkFastReqMatchesSlow(t, body)
		if !env || !params {
			t.Errorf("fast path took the envelope: %v, the params: %v\n%s", env, params, body)
		}
	}
	// The value is the request that was written.
	body, _ := json.Marshal(envelope{"2.0", 1, a2a.MethodSendMessage, send})
	req, ok := fastParseRPCRequest(body)
	if !ok {
		t.Fatal("fast path declined the envelope")
	}
	var got a2a.SendMessageRequest
	if !fastDecodeParams(req.Params, &got) || !reflect.DeepEqual(&got, send) {
		t.Fatalf("fast path read %s, want %s", fastDumpValue(&got), fastDumpValue(send))
	}
}

// TestFastRequestAllocations pins the allocations of reading the
// benchmark's body, so a change that makes the fast path decline it, or
// allocate per byte, shows.
func TestFastRequestAllocations(t *testing.T) {
	body := []byte(fastReqBenchBody)
	n := testing.AllocsPerRun(100, func() {
		req, _, err := ReadRPCRequest(body)
		if err != nil {
			t.Fatal(err)
		}
		p, _, _ := a2a.NewParams(*req.Method)
		if err := ReadParams(req.Params, p); err != nil {
			t.Fatal(err)
		}
	})
	// The envelope, the id, the params, the message, its id, its parts and
	// the text.
	if n > 7 {
		t.Errorf("reading the benchmark's request: %v allocations, want at most 7", n)
	}
}

// fastReqReadOnly reads body as serveJSONRPC does and returns only what a
// stream keeps: the id and the params.
//
//go:noinline
func fastReqReadOnly(t *testing.T, body []byte) (json.RawMessage, any) {
	req, id, err := ReadRPCRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	p, _, _ := a2a.NewParams(*req.Method)
	if err := ReadParams(req.Params, p); err != nil {
		t.Fatal(err)
	}
	return id, p
}

// TestFastRequestReleasesBody: the id and params a stream keeps for its
// whole life do not keep the request body alive.
func TestFastRequestReleasesBody(t *testing.T) {
	body := []byte(strings.Replace(fastReqBenchBody, "SendMessage", "SendStreamingMessage", 1))
	if _, ok := fastParseRPCRequest(body); !ok {
		t.Fatal("fast path declined the body")
	}
	released := make(chan struct{})
	runtime.AddCleanup(&body[0], func(ch chan struct{}) { close(ch) }, released)
	id, params := fastReqReadOnly(t, body)
	body = nil
	deadline := time.After(5 * time.Second)
	for {
		runtime.GC()
		select {
		case <-released:
			runtime.KeepAlive(id)
			runtime.KeepAlive(params)
			return
		case <-deadline:
			t.Fatal("the body is still reachable from the id or params")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// FuzzFastRequestMatchesSlowPath: on any body the fast path with its
// fallback gives the slow path's envelope, params, error and answer.
// Seeds: the differential table, but for its bodies of many kilobytes
// (deep nesting), which the table covers and which the fuzzer would spend
// its time minimising.
//
//	taskset -c 0 go test ./a2a -run '^$' -fuzz FuzzFastRequestMatchesSlowPath -fuzztime 2m -parallel 1
func FuzzFastRequestMatchesSlowPath(f *testing.F) {
	for _, tc := range fastReqCases() {
		if len(tc.body) <= 4096 {
			f.Add([]byte(tc.body))
		}
	}
	fastQuietLog(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastReqMatchesSlow(t, body)
	})
}

// BenchmarkReadSendMessageRequest reads the benchmark's SendMessage as
// serveJSONRPC does (envelope, then params), through the fast path:
//
//	taskset -c 0 go test ./a2a -run '^$' -bench 'SendMessageRequest$' -count 6
func BenchmarkReadSendMessageRequest(b *testing.B) {
	fastReqBench(b, ReadRPCRequest, ReadParams)
}

// BenchmarkSlowReadSendMessageRequest is the same through a2a.ParseRPCRequest
// and decodeParams alone, what the fast path saves.
func BenchmarkSlowReadSendMessageRequest(b *testing.B) {
	fastReqBench(b, a2a.ParseRPCRequest, a2a.DecodeParams)
}

func fastReqBench(b *testing.B, parse func([]byte) (*a2a.RPCEnvelope, json.RawMessage, error), decode func([]byte, any) error) {
	body := []byte(fastReqBenchBody)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req, _, err := parse(body)
		if err != nil {
			b.Fatal(err)
		}
		p, _, _ := a2a.NewParams(*req.Method)
		if err := decode(req.Params, p); err != nil {
			b.Fatal(err)
		}
		if r := p.(*a2a.SendMessageRequest); r.Message == nil || len(r.Message.Parts) != 1 {
			b.Fatal(r)
		}
	}
}
