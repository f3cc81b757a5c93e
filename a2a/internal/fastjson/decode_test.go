//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// fastBenchSendBody is what the benchmark's upstream answers to SendMessage
// (bench/sut.go): a completed task with one history message and one
// artifact, each with one text part, and a status timestamp.
const fastBenchSendBody = `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"c110754b-9dc0-44ad-b78d-6eec1c14946c","contextId":"db257ad3-98eb-429c-bb3c-7c73dffdd870","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-11-30T13:56:16.095385Z"},"artifacts":[{"artifactId":"519a35d6-1bb4-488b-890b-f88870b04c0f","name":"echo","parts":[{"text":"echo: hello from the benchmark"}]}],"history":[{"messageId":"bench-1","contextId":"db257ad3-98eb-429c-bb3c-7c73dffdd870","taskId":"c110754b-9dc0-44ad-b78d-6eec1c14946c","role":"ROLE_USER","parts":[{"text":"hello from the benchmark"}]}]}}}`

// Kinds of result a body of the table is meant for.
const (
	fastKindSend  = "send"
	fastKindTask  = "task"
	fastKindEvent = "event"
)

// fastCase is a body of the differential table. Every body is decoded as
// each of the three result types and must give the slow path's value and
// error; fast says whether the fast path must accept it (true) or decline
// it (false) for its kind, so the table also pins down what is canonical.
type fastCase struct {
	name string
	kind string
	body string
	fast bool
}

// fastRPCBody wraps a result in the envelope a server writes.
func fastRPCBody(result string) string { return `{"jsonrpc":"2.0","id":1,"result":` + result + `}` }

// fastSendMsgBody wraps a message as a send's answer.
func fastSendMsgBody(msg string) string { return fastRPCBody(`{"message":` + msg + `}`) }

// fastPartBody wraps a part as a send's answer.
func fastPartBody(part string) string {
	return fastSendMsgBody(`{"messageId":"m","role":"ROLE_AGENT","parts":[` + part + `]}`)
}

// fastTextBody wraps a string literal as the text of a part.
func fastTextBody(lit string) string { return fastPartBody(`{"text":` + lit + `}`) }

func fastCases() []fastCase {
	task := `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"s1","contextId":"c1","taskId":"t1","role":"ROLE_AGENT","parts":[{"text":"working"}]},"timestamp":"2026-05-28T12:00:02.123456789+02:00"},` +
		`"artifacts":[{"artifactId":"a1","name":"n","description":"d","parts":[{"text":"x","metadata":{"k":"v"}},{"data":{"a":[1,2.5,"s",true,null]}}],"metadata":{"m":{"n":[{}]}},"extensions":["urn:e"]},{"artifactId":"a2","parts":[{"url":"https://x.invalid/f","filename":"f.txt","mediaType":"text/plain"}]}],` +
		`"history":[{"messageId":"h1","role":"ROLE_USER","parts":[{"raw":"aGk=","mediaType":"application/octet-stream"}],"referenceTaskIds":["t0"]},{"messageId":"h2","contextId":"c1","taskId":"t1","role":"ROLE_AGENT","parts":[{"text":"a"},{"text":"b"},{"text":"c"}]}],` +
		`"metadata":{"priority":3,"tags":["x","y"]}}`
	msg := `{"messageId":"m","contextId":"c","taskId":"t","role":"ROLE_AGENT","parts":[{"text":"x"}],"metadata":{"k":[1,2.5,"s",true,null,{"n":{}}]},"extensions":["e1"],"referenceTaskIds":["r1","r2"]}`
	cases := []fastCase{
		// Every result kind, as a server writes it.
		{"bench send task", fastKindSend, fastBenchSendBody, true},
		{"send task", fastKindSend, fastRPCBody(`{"task":` + task + `}`), true},
		{"send message", fastKindSend, fastSendMsgBody(msg), true},
		{"task", fastKindTask, fastRPCBody(task), true},
		{"minimal task", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":"TASK_STATE_SUBMITTED"}}`), true},
		{"event task", fastKindEvent, fastRPCBody(`{"task":` + task + `}`), true},
		{"event message", fastKindEvent, fastRPCBody(`{"message":` + msg + `}`), true},
		{"event status update", fastKindEvent, fastRPCBody(`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q","role":"ROLE_AGENT","parts":[{"text":"which?"}]},"timestamp":"2026-05-28T10:00:02Z"},"metadata":{"final":true}}}`), true},
		{"event artifact update", fastKindEvent, fastRPCBody(`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a","parts":[{"text":"chunk"}]},"append":true,"lastChunk":false,"metadata":{"seq":2}}}`), true},
		{"event artifact update last", fastKindEvent, fastRPCBody(`{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a","parts":[{"text":"end"}]},"lastChunk":true}}`), true},
		{"event empty", fastKindEvent, fastRPCBody(`{}`), true},
		{"event of unknown kind", fastKindEvent, fastRPCBody(`{"future":{"x":[1,{"y":null}]}}`), true},
		{"event two members", fastKindEvent, fastRPCBody(`{"task":{"id":"t"},"message":{"messageId":"m","parts":[]}}`), false},
		{"send both", fastKindSend, fastRPCBody(`{"task":{"id":"t"},"message":{"messageId":"m","parts":[]}}`), false},
		{"send empty", fastKindSend, fastRPCBody(`{}`), true},

		// Every part kind.
		{"part text", fastKindSend, fastPartBody(`{"text":"hi"}`), true},
		{"part text empty", fastKindSend, fastPartBody(`{"text":""}`), true},
		{"part raw padded", fastKindSend, fastPartBody(`{"raw":"aGk=","filename":"a.bin"}`), true},
		{"part raw url-safe unpadded", fastKindSend, fastPartBody(`{"raw":"-_8"}`), true},
		{"part raw empty", fastKindSend, fastPartBody(`{"raw":""}`), true},
		{"part raw bad base64", fastKindSend, fastPartBody(`{"raw":"a*b"}`), false},
		{"part url", fastKindSend, fastPartBody(`{"url":"https://x.invalid/a?b=c&d","filename":"a","mediaType":"image/png"}`), true},
		{"part data object", fastKindSend, fastPartBody(`{"data":{"a":{"b":[1,-2.5e3,"\u00e9"]}}}`), true},
		{"part data array", fastKindSend, fastPartBody(`{"data":[1,"two",false]}`), true},
		{"part data string", fastKindSend, fastPartBody(`{"data":"s"}`), true},
		{"part data number", fastKindSend, fastPartBody(`{"data":-0.5E+2}`), true},
		{"part data bool", fastKindSend, fastPartBody(`{"data":true}`), true},
		{"part data null", fastKindSend, fastPartBody(`{"data":null}`), true},
		{"part data with spaces", fastKindSend, fastPartBody(`{"data": { "a" : [ 1 , "x y" ] } }`), true},
		{"part with metadata", fastKindSend, fastPartBody(`{"text":"t","metadata":{"a":{"b":{"c":[1,{"d":null}]}},"e":1e300}}`), true},
		{"part metadata empty", fastKindSend, fastPartBody(`{"text":"t","metadata":{}}`), true},
		{"part metadata duplicate keys", fastKindSend, fastPartBody(`{"text":"t","metadata":{"a":1,"a":{"b":2}}}`), false},
		{"part metadata not an object", fastKindSend, fastPartBody(`{"text":"t","metadata":"x"}`), false},
		{"part metadata number out of range", fastKindSend, fastPartBody(`{"text":"t","metadata":{"a":1e400}}`), false},
		{"part two members", fastKindSend, fastPartBody(`{"text":"a","url":"b"}`), false},
		{"part of unknown kind", fastKindSend, fastPartBody(`{"file":{"uri":"x"}}`), false},
		{"part with no member", fastKindSend, fastPartBody(`{}`), false},
		{"part null text and url", fastKindSend, fastPartBody(`{"text":null,"url":"u"}`), true},
		{"part null text only", fastKindSend, fastPartBody(`{"text":null}`), false},
		{"part null filename", fastKindSend, fastPartBody(`{"text":"t","filename":null,"mediaType":null,"metadata":null}`), true},
		{"part text number", fastKindSend, fastPartBody(`{"text":5}`), false},
		{"part unknown member", fastKindSend, fastPartBody(`{"kind":"text","text":"t"}`), true},

		// Strings: escapes, surrogates, invalid UTF-8.
		{"escapes", fastKindSend, fastTextBody(`"\"\\\/\b\f\n\r\t\u00e9\u20ac\ud83d\ude00"`), true},
		{"html escapes", fastKindSend, fastTextBody(`"\u003cb\u003e \u0026 \u2028\u2029"`), true},
		{"lone high surrogate", fastKindSend, fastTextBody(`"a\ud800b"`), false},
		{"lone low surrogate", fastKindSend, fastTextBody(`"\udc00x"`), false},
		{"high surrogate then letter", fastKindSend, fastTextBody(`"\ud800\u0041"`), false},
		{"two high surrogates", fastKindSend, fastTextBody(`"\ud800\ud800\udc00"`), false},
		{"surrogate at end", fastKindSend, fastTextBody(`"\ud83d"`), false},
		{"upper-case hex", fastKindSend, fastTextBody(`"\u00E9\uD83D\uDE00"`), true},
		{"invalid utf-8", fastKindSend, fastTextBody("\"a\xffb\xc0\""), false},
		{"utf-8 surrogate bytes", fastKindSend, fastTextBody("\"\xed\xa0\x80\""), false},
		{"truncated utf-8", fastKindSend, fastTextBody("\"\xe2\x82\""), false},
		{"valid utf-8", fastKindSend, fastTextBody(`"héllo € 😀"`), true},
		{"utf-8 then escape", fastKindSend, fastTextBody(`"é\n"`), true},
		{"replacement char", fastKindSend, fastTextBody(`"\ufffd` + "\xef\xbf\xbd\""), true},
		{"del byte", fastKindSend, fastTextBody("\"\x7f\""), true},
		{"invalid escape", fastKindSend, fastTextBody(`"\x"`), false},
		{"quote escape", fastKindSend, fastTextBody(`"\'"`), false},
		{"short unicode escape", fastKindSend, fastTextBody(`"\u12"`), false},
		{"bad hex", fastKindSend, fastTextBody(`"\u12g4"`), false},
		{"control char", fastKindSend, fastTextBody("\"a\tb\""), false},
		{"unterminated", fastKindSend, fastTextBody(`"abc`), false},
		{"escaped ids", fastKindSend, fastSendMsgBody(`{"messageId":"\u006d","contextId":"c\"","taskId":"\/","role":"ROLE_USER","parts":[]}`), true},

		// Enums and timestamps, by their own methods.
		{"role by number", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":1,"parts":[]}`), true},
		{"role unknown number", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":7,"parts":[]}`), true},
		{"role unknown name", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":"ROLE_ROBOT","parts":[]}`), true},
		{"role escaped", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":"ROLE_\u0055SER","parts":[]}`), true},
		{"role absent", fastKindSend, fastSendMsgBody(`{"messageId":"m","parts":[]}`), true},
		{"role null", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":null,"parts":[]}`), true},
		{"role fraction", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":1.5,"parts":[]}`), false},
		{"role bool", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":true,"parts":[]}`), false},
		{"role object", fastKindSend, fastSendMsgBody(`{"messageId":"m","role":{},"parts":[]}`), false},
		{"state by number", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":3}}`), true},
		{"state unknown", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":"TASK_STATE_PAUSED"}}`), true},
		{"state null", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":null}}`), true},
		{"state negative", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":-1}}`), true},
		{"timestamp offset", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":3,"timestamp":"2026-01-02T03:04:05.5-07:30"}}`), true},
		{"timestamp null", fastKindTask, fastRPCBody(`{"id":"t","status":{"timestamp":null}}`), true},
		{"timestamp year 0", fastKindTask, fastRPCBody(`{"id":"t","status":{"timestamp":"0000-01-01T00:00:00Z"}}`), false},
		{"timestamp year 10000 in utc", fastKindTask, fastRPCBody(`{"id":"t","status":{"timestamp":"9999-12-31T23:00:00-02:00"}}`), false},
		{"timestamp bad", fastKindTask, fastRPCBody(`{"id":"t","status":{"timestamp":"yesterday"}}`), false},
		{"timestamp number", fastKindTask, fastRPCBody(`{"id":"t","status":{"timestamp":17}}`), false},
		{"timestamp escaped", fastKindTask, fastRPCBody(`{"id":"t","status":{"timestamp":"2026-01-02T03:04:05\u002e5Z"}}`), false},
		{"two timestamps", fastKindEvent, fastRPCBody(`{"task":{"id":"t","status":{"state":3,"timestamp":"2026-01-02T03:04:05Z","message":{"messageId":"m","parts":[]}}}}`), true},

		// Nulls: what encoding/json makes of them is what an absent member gives.
		{"nulls in task", fastKindTask, fastRPCBody(`{"id":null,"contextId":null,"status":null,"artifacts":null,"history":null,"metadata":null}`), true},
		{"nulls in message", fastKindSend, fastSendMsgBody(`{"messageId":null,"contextId":null,"taskId":null,"role":null,"parts":null,"metadata":null,"extensions":null,"referenceTaskIds":null}`), true},
		{"nulls in artifact", fastKindTask, fastRPCBody(`{"id":"t","artifacts":[{"artifactId":null,"name":null,"description":null,"parts":null,"metadata":null,"extensions":null}]}`), true},
		{"nulls in status", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":null,"message":null,"timestamp":null}}`), true},
		{"nulls in events", fastKindEvent, fastRPCBody(`{"task":null,"message":null,"statusUpdate":null,"artifactUpdate":{"taskId":null,"contextId":null,"artifact":null,"append":null,"lastChunk":null,"metadata":null}}`), true},
		{"null status update members", fastKindEvent, fastRPCBody(`{"statusUpdate":{"taskId":null,"contextId":null,"status":null,"metadata":null}}`), true},
		{"null send members", fastKindSend, fastRPCBody(`{"task":null,"message":null}`), true},
		{"null result", fastKindSend, `{"jsonrpc":"2.0","id":1,"result":null}`, true},
		{"null result and error", fastKindSend, `{"jsonrpc":"2.0","id":1,"result":null,"error":null}`, true},
		{"null list element", fastKindSend, fastSendMsgBody(`{"messageId":"m","parts":[null]}`), false},
		{"null string element", fastKindSend, fastSendMsgBody(`{"messageId":"m","parts":[],"extensions":[null]}`), false},
		{"null artifact element", fastKindTask, fastRPCBody(`{"id":"t","artifacts":[null]}`), false},
		{"null history element", fastKindTask, fastRPCBody(`{"id":"t","history":[null]}`), false},
		{"top-level null", fastKindSend, `null`, false},

		// Empty lists stay empty, not nil.
		{"empty lists", fastKindTask, fastRPCBody(`{"id":"t","artifacts":[],"history":[]}`), true},
		{"empty lists in message", fastKindSend, fastSendMsgBody(`{"messageId":"m","parts":[],"extensions":[],"referenceTaskIds":[]}`), true},
		{"empty parts in artifact", fastKindTask, fastRPCBody(`{"id":"t","artifacts":[{"artifactId":"a","parts":[],"extensions":[]}]}`), true},
		{"many elements", fastKindTask, fastRPCBody(`{"id":"t","artifacts":[{"artifactId":"1","parts":[{"text":"1"},{"text":"2"},{"text":"3"},{"text":"4"},{"text":"5"}]},{"artifactId":"2","parts":[]},{"artifactId":"3","parts":[]}],"history":[{"messageId":"1","parts":[],"extensions":["a","b","c","d","e","f"]},{"messageId":"2","parts":[]},{"messageId":"3","parts":[]}]}`), true},

		// Duplicates, case, escapes in names, unknown members.
		{"duplicate id", fastKindSend, `{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`, false},
		{"duplicate result", fastKindSend, `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"a"}},"result":{"task":{"contextId":"b"}}}`, false},
		{"duplicate task", fastKindSend, fastRPCBody(`{"task":{"id":"a"},"task":{"contextId":"b"}}`), false},
		{"duplicate status", fastKindTask, fastRPCBody(`{"id":"t","status":{"state":3},"status":{"timestamp":"2026-01-02T03:04:05Z"}}`), false},
		{"duplicate text", fastKindSend, fastPartBody(`{"text":"a","text":"b"}`), false},
		{"duplicate metadata", fastKindSend, fastPartBody(`{"text":"a","metadata":{"a":1},"metadata":{"b":2}}`), false},
		{"duplicate unknown member", fastKindSend, fastPartBody(`{"x":1,"text":"a","x":2}`), false},
		{"duplicate jsonrpc", fastKindSend, `{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"result":{}}`, false},
		{"upper-case ID", fastKindSend, `{"jsonrpc":"2.0","ID":1,"result":{}}`, false},
		{"capitalised Result", fastKindSend, `{"jsonrpc":"2.0","id":1,"Result":{"task":{"id":"t"}}}`, false},
		{"lower-case messageid", fastKindSend, fastSendMsgBody(`{"messageid":"m","parts":[]}`), false},
		{"upper-case TEXT", fastKindSend, fastPartBody(`{"TEXT":"a"}`), false},
		{"upper-case JSONRPC", fastKindSend, `{"JSONRPC":"2.0","id":1,"result":{}}`, true},
		{"long s folds to s", fastKindEvent, fastRPCBody(`{"statusUpdate":{"taſkId":"t"}}`), false},
		{"kelvin sign folds to k", fastKindEvent, fastRPCBody(`{"tas\u212a":{"id":"t"}}`), false},
		{"escaped name", fastKindSend, `{"jsonrpc":"2.0","\u0069d":1,"result":{}}`, false},
		{"escaped unknown name", fastKindSend, `{"jsonrpc":"2.0","\u0078":1,"id":1,"result":{}}`, false},
		{"non-ascii unknown name", fastKindSend, `{"jsonrpc":"2.0","ïd":1,"id":1,"result":{}}`, false},
		{"unknown members everywhere", fastKindTask, fastRPCBody(`{"kind":"task","id":"t","status":{"state":3,"x":[]},"artifacts":[{"artifactId":"a","parts":[{"text":"t","y":{"\"\u0041":[1,{}]}}],"z":null}],"history":[{"messageId":"m","kind":"message","parts":[]}]}`) + ``, false},
		{"unknown member before result", fastKindSend, `{"extra":{"a":[true,false,null,-1.5e-3]},"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t"}}}`, true},
		{"member name with space", fastKindSend, `{"jsonrpc":"2.0","id ":1,"id":2,"result":{}}`, true},
		{"empty member name", fastKindSend, `{"":1,"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{"send answer read as task", fastKindTask, fastRPCBody(`{"task":{"id":"t"}}`), true},

		// Errors, with and without data; ids of every kind.
		{"error", fastKindSend, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}`, true},
		{"error with data", fastKindSend, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org","metadata":{"taskId":"t"}}]}}`, true},
		{"error with details and null id", fastKindEvent, `{"jsonrpc":"2.0","id":null,"error":{"code":404,"status":"NOT_FOUND","message":"no","details":[{"a":1}]}}`, true},
		{"error and result", fastKindSend, `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t"}},"error":{"code":-32603,"message":"x"}}`, true},
		{"error with string code", fastKindSend, `{"jsonrpc":"2.0","id":1,"error":{"code":"-32001","message":"x"}}`, false},
		{"error as string", fastKindSend, `{"jsonrpc":"2.0","id":1,"error":"boom"}`, false},
		{"error with unknown and folded members", fastKindSend, `{"jsonrpc":"2.0","id":1,"error":{"CODE":-1,"Message":"m","x":1}}`, false},
		{"id string", fastKindSend, `{"jsonrpc":"2.0","id":"1","result":{}}`, true},
		{"id escaped string", fastKindSend, `{"jsonrpc":"2.0","id":"a\u0041","result":{}}`, true},
		{"id null", fastKindSend, `{"jsonrpc":"2.0","id":null,"result":{}}`, true},
		{"id negative", fastKindSend, `{"jsonrpc":"2.0","id":-5,"result":{}}`, true},
		{"id exponent", fastKindSend, `{"jsonrpc":"2.0","id":1.5e3,"result":{}}`, true},
		{"id long", fastKindSend, `{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}`, true},
		{"id object", fastKindSend, `{"jsonrpc":"2.0","id":{"a": [1, 2]},"result":{}}`, true},
		{"id absent", fastKindSend, `{"jsonrpc":"2.0","result":{}}`, true},
		{"empty envelope", fastKindSend, `{}`, true},

		// Types other than the field's.
		{"task id number", fastKindTask, fastRPCBody(`{"id":5}`), false},
		{"append string", fastKindEvent, fastRPCBody(`{"artifactUpdate":{"append":"true"}}`), false},
		{"append number", fastKindEvent, fastRPCBody(`{"artifactUpdate":{"append":1}}`), false},
		{"parts object", fastKindSend, fastSendMsgBody(`{"messageId":"m","parts":{}}`), false},
		{"status list", fastKindTask, fastRPCBody(`{"id":"t","status":[]}`), false},
		{"status string", fastKindTask, fastRPCBody(`{"id":"t","status":"x"}`), false},
		{"artifacts number", fastKindTask, fastRPCBody(`{"id":"t","artifacts":7}`), false},
		{"extensions of numbers", fastKindSend, fastSendMsgBody(`{"messageId":"m","parts":[],"extensions":[1]}`), false},
		{"result string", fastKindTask, fastRPCBody(`"x"`), false},
		{"result list", fastKindEvent, fastRPCBody(`[]`), false},
		{"task list", fastKindSend, fastRPCBody(`{"task":[]}`), false},
		{"top-level list", fastKindSend, `[]`, false},
		{"top-level string", fastKindSend, `"x"`, false},

		// Whitespace, truncation, invalid JSON.
		{"surrounding whitespace", fastKindSend, " \t\r\n" + fastBenchSendBody + "\n ", true},
		{"byte order mark", fastKindSend, "\xef\xbb\xbf" + fastBenchSendBody, false},
		{"trailing garbage", fastKindSend, fastBenchSendBody + "x", false},
		{"two documents", fastKindSend, fastBenchSendBody + fastBenchSendBody, false},
		{"trailing comma", fastKindSend, `{"jsonrpc":"2.0","id":1,}`, false},
		{"trailing comma in list", fastKindSend, fastSendMsgBody(`{"messageId":"m","parts":[{"text":"a"},]}`), false},
		{"missing colon", fastKindSend, `{"jsonrpc" "2.0"}`, false},
		{"missing comma", fastKindSend, `{"jsonrpc":"2.0" "id":1}`, false},
		{"leading zero", fastKindSend, `{"jsonrpc":"2.0","id":01}`, false},
		{"bare minus", fastKindSend, `{"jsonrpc":"2.0","id":-}`, false},
		{"fraction without digits", fastKindSend, `{"jsonrpc":"2.0","id":1.}`, false},
		{"exponent without digits", fastKindSend, `{"jsonrpc":"2.0","id":1e+}`, false},
		{"leading dot", fastKindSend, `{"jsonrpc":"2.0","id":.5}`, false},
		{"truncated literal", fastKindSend, `{"jsonrpc":"2.0","id":1,"result":nul}`, false},
		{"literal with tail", fastKindSend, `{"jsonrpc":"2.0","id":1,"result":nullx}`, false},
		{"true with tail", fastKindEvent, fastRPCBody(`{"artifactUpdate":{"append":truex}}`), false},
		{"unknown literal", fastKindSend, `{"jsonrpc":"2.0","id":1,"x":nan,"result":{}}`, false},
		{"bad skipped string", fastKindSend, `{"jsonrpc":"2.0","id":1,"x":"\q","result":{}}`, false},
		{"empty", fastKindSend, ``, false},
		{"whitespace only", fastKindSend, " \n", false},
		{"unclosed object", fastKindSend, `{`, false},
		{"unclosed list", fastKindSend, `[`, false},
		{"deeply nested metadata", fastKindSend, fastPartBody(`{"text":"t","metadata":{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}`), false},
		{"nested metadata within bounds", fastKindSend, fastPartBody(`{"text":"t","metadata":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`), true},
	}
	// The bench body cut at every few bytes: all invalid.
	for i := 1; i < len(fastBenchSendBody); i += 37 {
		cases = append(cases, fastCase{"truncated bench body", fastKindSend, fastBenchSendBody[:i], false})
	}
	// The bench body indented: whitespace everywhere.
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(fastBenchSendBody), "", "\t"); err != nil {
		panic(err)
	}
	cases = append(cases, fastCase{"indented bench body", fastKindSend, indented.String(), true})
	return cases
}

// checkFastMatchesSlow decodes body as T through decodeRPCResponse (the
// fast path and its fallback) and through the slow path alone, and fails
// unless both give equal values and the same error text. The fast path
// decodes a copy of body that is overwritten afterwards, so a result
// that aliased its input would differ. It returns whether the fast path
// accepted body.
func checkFastMatchesSlow[T any](t *testing.T, kind string, body []byte) bool {
	t.Helper()
	want, werr := a2a.DecodeRPCResponse[T](body)
	in := append([]byte(nil), body...)
	_, fast := fastDecodeRPCResponse[T](in)
	got, gerr := DecodeRPCResponse[T](in)
	for i := range in {
		in[i] = 'x'
	}
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("%s %q: error %v, slow path %v", kind, body, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %q (fast path took it: %v):\n got %s\nwant %s", kind, body, fast, fastDumpEnv(got), fastDumpEnv(want))
	}
	if fast && werr != nil {
		t.Fatalf("%s %q: fast path accepted a body the slow path rejects: %v", kind, body, werr)
	}
	return fast
}

// fastDumpEnv prints an envelope with its result and error for a failure.
func fastDumpEnv[T any](env *a2a.RPCResponse[T]) string {
	if env == nil {
		return "<nil>"
	}
	return strings.NewReplacer("\n", " ").Replace(
		"id=" + string(env.ID) + " result=" + fastDumpValue(env.Result) + " error=" + fastDumpValue(env.Error))
}

func fastDumpValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b) + " " + strings.ReplaceAll(strings.TrimSpace(fastDumpTree(v)), "\n", " ")
}

func fastDumpTree(v any) string {
	var sb strings.Builder
	var walk func(reflect.Value, int)
	walk = func(v reflect.Value, depth int) {
		if depth > 8 {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				sb.WriteString("nil")
				return
			}
			walk(v.Elem(), depth+1)
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				sb.WriteString(v.Interface().(time.Time).String())
				return
			}
			sb.WriteString("{")
			for i := range v.NumField() {
				sb.WriteString(v.Type().Field(i).Name + ":")
				walk(v.Field(i), depth+1)
				sb.WriteString(" ")
			}
			sb.WriteString("}")
		case reflect.Slice:
			if v.IsNil() {
				sb.WriteString("nil")
				return
			}
			sb.WriteString("[")
			for i := range v.Len() {
				walk(v.Index(i), depth+1)
				sb.WriteString(" ")
			}
			sb.WriteString("]")
		default:
			if v.CanInterface() {
				fmt.Fprintf(&sb, "%q", fmt.Sprint(v.Interface()))
			}
		}
	}
	walk(reflect.ValueOf(v), 0)
	return sb.String()
}

// checkFastAllKinds runs checkFastMatchesSlow for the three result types and
// returns whether the fast path accepted body as kind.
func checkFastAllKinds(t *testing.T, kind string, body []byte) bool {
	t.Helper()
	send := checkFastMatchesSlow[a2a.SendMessageResponse](t, fastKindSend, body)
	task := checkFastMatchesSlow[a2a.Task](t, fastKindTask, body)
	event := checkFastMatchesSlow[a2a.StreamResponse](t, fastKindEvent, body)
	switch kind {
	case fastKindSend:
		return send
	case fastKindTask:
		return task
	}
	return event
}

// fastQuietLog silences the slow path's log line for a skipped part of unknown
// kind while the test runs.
func fastQuietLog(tb testing.TB) {
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler))
	tb.Cleanup(func() { slog.SetDefault(prev) })
}

// TestFastDecodeMatchesSlowPath: over every result kind, part kind and the
// odd inputs, the fast path with its fallback gives the slow path's value
// and error, and takes (or declines) the bodies it is meant to.
func TestFastDecodeMatchesSlowPath(t *testing.T) {
	fastQuietLog(t)
	for _, tc := range fastCases() {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkFastAllKinds(t, tc.kind, []byte(tc.body)); got != tc.fast {
				t.Errorf("fast path took the body as %s: %v, want %v\n%s", tc.kind, got, tc.fast, tc.body)
			}
		})
	}
}

// TestFastDecodeFieldListsMatchWireTypes: the members the fast path knows
// are those of the public types (whose wire mirrors, which the slow path
// decodes into, a2a's TestWireMirrorsMatchPublicTypes keeps in step), so a
// field added there cannot be skipped as unknown here.
func TestFastDecodeFieldListsMatchWireTypes(t *testing.T) {
	for _, tc := range []struct {
		typ    reflect.Type
		fields []string
	}{
		{reflect.TypeFor[a2a.RPCResponse[a2a.Task]](), fastEnvelopeFields},
		{reflect.TypeFor[a2a.SendMessageResponse](), fastSendFields},
		{reflect.TypeFor[a2a.StreamResponse](), fastStreamFields},
		{reflect.TypeFor[a2a.Task](), fastTaskFields},
		{reflect.TypeFor[a2a.TaskStatus](), fastStatusFields},
		{reflect.TypeFor[a2a.Message](), fastMessageFields},
		{reflect.TypeFor[a2a.Artifact](), fastArtifactFields},
		{reflect.TypeFor[a2a.Part](), fastPartFields},
		{reflect.TypeFor[a2a.TaskStatusUpdateEvent](), fastStatusUpdateFields},
		{reflect.TypeFor[a2a.TaskArtifactUpdateEvent](), fastArtifactUpdateFields},
	} {
		if names := jsonMemberNames(tc.typ); !reflect.DeepEqual(names, tc.fields) {
			t.Errorf("%v: members %q, fast path knows %q", tc.typ, names, tc.fields)
		}
	}
}

// jsonMemberNames lists typ's JSON member names in field order. A Part,
// which has no tags (its MarshalJSON writes the oneof), is named by its
// fields: the lower camel case of each but Kind.
func jsonMemberNames(typ reflect.Type) []string {
	var names []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if typ == reflect.TypeFor[a2a.Part]() {
			switch f := typ.Field(i).Name; f {
			case "Kind":
				continue // not on the wire
			case "URL":
				name = "url"
			default:
				name = strings.ToLower(f[:1]) + f[1:]
			}
		}
		if name == "-" {
			continue // not on the wire
		}
		names = append(names, name)
	}
	return names
}

// fastCanonicalTask is a task with every member a server writes set, strings
// that need escaping, and every part kind.
func fastCanonicalTask() *a2a.Task {
	ts := time.Date(2026, 5, 28, 10, 0, 2, 123456000, time.UTC)
	data, _ := a2a.DataPart(map[string]any{"flight": "TP1351", "price": 129.5, "seats": []any{"1A", "1B"}})
	data.Metadata = a2a.Metadata{"schema": "booking"}
	return &a2a.Task{
		ID: "task-1", ContextID: "ctx-1",
		Status: a2a.TaskStatus{
			State: a2a.TaskStateCompleted, Timestamp: &ts,
			Message: &a2a.Message{MessageID: "m-3", ContextID: "ctx-1", TaskID: "task-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Booked <b>&</b> \"done\" ✓\n")}},
		},
		Artifacts: []a2a.Artifact{{
			ArtifactID: "art-1", Name: "itinerary", Description: "LHR → LIS",
			Parts:      []a2a.Part{a2a.TextPart("TP1351"), data, a2a.RawPart([]byte{0, 1, 2, 0xff}, "application/octet-stream", "b.bin"), a2a.URLPart("https://x.invalid/a?b=1&c=2", "text/html", "a.html")},
			Metadata:   a2a.Metadata{"n": 1.0, "nested": map[string]any{"list": []any{true, nil, "s"}}},
			Extensions: []string{"urn:ext:1"},
		}},
		History: []a2a.Message{
			{MessageID: "m-1", ContextID: "ctx-1", TaskID: "task-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("book it")}, ReferenceTaskIDs: []string{"task-0"}, Extensions: []string{"urn:ext:1"}, Metadata: a2a.Metadata{"k": "v"}},
			{MessageID: "m-2", ContextID: "ctx-1", TaskID: "task-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("which day?")}},
		},
		Metadata: a2a.Metadata{"priority": 3.0},
	}
}

// TestFastDecodeTakesWhatTheServerWrites: the bodies the a2a server writes
// (a send's answer, a task, every stream event, an error) are read by the
// fast path, with the slow path's values; it does not silently decline
// them.
func TestFastDecodeTakesWhatTheServerWrites(t *testing.T) {
	task := fastCanonicalTask()
	msg := &task.History[0]
	ts := time.Date(2026, 5, 28, 10, 0, 3, 0, time.UTC)
	id := json.RawMessage(`42`)
	// The server writes a body, and each event's data, with AppendKnown
	// (a2a/server checks that its writers do).
	unary := func(v a2a.RPCReply) []byte {
		b, err := AppendKnown(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	event := func(ev *a2a.StreamResponse) []byte { return unary(a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: ev}) }
	bodies := []struct {
		kind string
		body []byte
	}{
		{fastKindSend, unary(a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: &a2a.SendMessageResponse{Task: task}})},
		{fastKindSend, unary(a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: &a2a.SendMessageResponse{Message: msg}})},
		{fastKindTask, unary(a2a.RPCReply{JSONRPC: "2.0", ID: id, Result: task})},
		{fastKindSend, unary(a2a.RPCReply{JSONRPC: "2.0", ID: id, Error: &a2a.RPCReplyError{Code: -32001, Message: "Task not found", Data: a2a.ErrTaskNotFound.Details()}})},
		{fastKindEvent, event(&a2a.StreamResponse{Task: task})},
		{fastKindEvent, event(&a2a.StreamResponse{Message: msg})},
		{fastKindEvent, event(&a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts, Message: msg}, Metadata: a2a.Metadata{"a": "b"}}})},
		{fastKindEvent, event(&a2a.StreamResponse{ArtifactUpdate: &a2a.TaskArtifactUpdateEvent{TaskID: "task-1", ContextID: "ctx-1", Artifact: task.Artifacts[0], Append: true, LastChunk: true}})},
	}
	for _, b := range bodies {
		if !checkFastAllKinds(t, b.kind, b.body) {
			t.Errorf("the fast path declined what the server wrote, as %s:\n%s", b.kind, b.body)
		}
	}
	// And the value is the task that was written.
	env, ok := fastDecodeRPCResponse[a2a.SendMessageResponse](bodies[0].body)
	if !ok || env.Result == nil || !reflect.DeepEqual(env.Result.Task, task) {
		t.Fatalf("fast path read %s, want %s", fastDumpEnv(env), fastDumpValue(task))
	}
}

// TestFastDecodeAllocations pins the allocations of the benchmark's body,
// so a change that makes the fast path decline it, or allocate per byte,
// shows.
func TestFastDecodeAllocations(t *testing.T) {
	body := []byte(fastBenchSendBody)
	if _, ok := fastDecodeRPCResponse[a2a.SendMessageResponse](body); !ok {
		t.Fatal("fast path declined the benchmark's body")
	}
	n := testing.AllocsPerRun(100, func() {
		if _, err := DecodeRPCResponse[a2a.SendMessageResponse](body); err != nil {
			t.Fatal(err)
		}
	})
	if n > 15 {
		t.Errorf("decodeRPCResponse of the benchmark's body: %v allocations, want at most 15", n)
	}
}

// FuzzFastDecodeMatchesSlowPath: on any input the fast path with its
// fallback gives the slow path's value and error. Seeds: the differential
// table and the golden files, bare and as the result of an envelope.
//
//	go test ./a2a -run '^$' -fuzz FuzzFastDecodeMatchesSlowPath -fuzztime 3m
func FuzzFastDecodeMatchesSlowPath(f *testing.F) {
	for _, tc := range fastCases() {
		f.Add([]byte(tc.body))
	}
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add([]byte(fastRPCBody(string(b))))
	}
	fastQuietLog(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastMatchesSlow[a2a.SendMessageResponse](t, fastKindSend, body)
		checkFastMatchesSlow[a2a.Task](t, fastKindTask, body)
		checkFastMatchesSlow[a2a.StreamResponse](t, fastKindEvent, body)
	})
}

// BenchmarkDecodeRPCResponse reads the benchmark upstream's answer to
// SendMessage, as the bridge does for every proxied send:
//
//	taskset -c 1 go test ./a2a -run '^$' -bench 'DecodeRPCResponse$' -count 6
func BenchmarkDecodeRPCResponse(b *testing.B) {
	body := []byte(fastBenchSendBody)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		env, err := DecodeRPCResponse[a2a.SendMessageResponse](body)
		if err != nil || env.Result == nil || env.Result.Task == nil {
			b.Fatal(env, err)
		}
	}
}

// BenchmarkSlowDecodeRPCResponse is the same body through encoding/json,
// what the fast path saves.
func BenchmarkSlowDecodeRPCResponse(b *testing.B) {
	body := []byte(fastBenchSendBody)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		env, err := a2a.DecodeRPCResponse[a2a.SendMessageResponse](body)
		if err != nil || env.Result == nil || env.Result.Task == nil {
			b.Fatal(env, err)
		}
	}
}
