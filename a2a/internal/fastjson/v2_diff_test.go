//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/internal/codectest"
)

// The v2 candidate (v2_test.go) against the paths the bridge runs, over
// the differential tables of the hand-written code: where it writes other
// bytes, accepts what they refuse or refuses what they accept. The test
// fails on a difference of meaning in what it writes; the differences it
// tolerates are logged (go test -run V2 -v) and summed up in
// docs/performance.md.

func TestV2EncodeAgainstEncodingJSON(t *testing.T) {
	var same, bytesOnly, names []string
	for name, v := range codectest.Cases(maxFastDepth) {
		want, wantErr := codectest.Reference(v)
		got, err := v2Marshal(v)
		switch {
		case (wantErr != nil) != (err != nil):
			t.Errorf("%s: encoding/json error %v, v2 error %v", name, wantErr, err)
		case wantErr != nil:
		case bytes.Equal(got, want):
			same = append(same, name)
		case bytes.Equal(got, bytes.ReplaceAll(want, []byte(`\ufffd`), []byte("\ufffd"))):
			// encoding/json escapes the U+FFFD that replaces invalid
			// UTF-8; v2 writes it as is.
			bytesOnly = append(bytesOnly, name)
			t.Logf("%s: same value, other bytes\n  v1 %.300s\n  v2 %.300s", name, want, got)
		case v2Equal(got, want):
			names = append(names, name)
			t.Errorf("%s: same value, other bytes\n  v1 %.300s\n  v2 %.300s", name, want, got)
		default:
			names = append(names, name)
			t.Errorf("%s: other value: %s", name, v2FirstDiff(want, got))
		}
	}
	sort.Strings(bytesOnly)
	t.Logf("encode: %d cases byte-equal, %d equal but for an unescaped U+FFFD (%s), %d differ", len(same), len(bytesOnly), strings.Join(bytesOnly, ", "), len(names))
}

// TestV2ReadRequestAgainstSlowPath: the SendMessage bodies of the request
// table, read by v2 (and v2 after the strictjson check) and by the slow
// path (a2a.ParseRPCRequest, a2a.DecodeParams, which the fast path equals).
func TestV2ReadRequestAgainstSlowPath(t *testing.T) {
	fastQuietLog(t)
	var n, agree int
	var v2Lenient, v2Refuses, v2Other []string
	for _, tc := range fastReqCases() {
		body := []byte(tc.body)
		var probe struct{ Method string }
		if json.Unmarshal(body, &probe) != nil || probe.Method != a2a.MethodSendMessage {
			continue
		}
		n++
		var want *a2a.SendMessageRequest
		var wantErr error
		if req, _, err := a2a.ParseRPCRequest(body); err != nil {
			wantErr = err
		} else {
			want = &a2a.SendMessageRequest{}
			if err := a2a.DecodeParams(req.Params, want); err != nil {
				want, wantErr = nil, err
			}
		}
		got, err := v2ReadSendRequestStrict(body)
		switch {
		case wantErr != nil && err == nil:
			v2Lenient = append(v2Lenient, tc.name)
			t.Errorf("%s: slow path refuses (%v), v2 accepts\n  %.200s", tc.name, wantErr, body)
		case wantErr == nil && err != nil:
			v2Refuses = append(v2Refuses, tc.name)
			t.Errorf("%s: slow path accepts, v2 refuses (%v)\n  %.200s", tc.name, err, body)
		case wantErr == nil && !reflect.DeepEqual(got, want):
			v2Other = append(v2Other, tc.name)
			t.Errorf("%s: other value\n  slow %+v\n  v2   %+v", tc.name, *want.Message, *got.Message)
		default:
			agree++
		}
	}
	t.Logf("request: %d SendMessage bodies, %d agree; v2 accepts %d the slow path refuses %v; refuses %d it accepts %v; reads %d otherwise %v",
		n, agree, len(v2Lenient), v2Lenient, len(v2Refuses), v2Refuses, len(v2Other), v2Other)
}

// TestV2DecodeResponseAgainstSlowPath: the send answers of the response
// table, read by v2 (after the strictjson check) and by
// a2a.DecodeRPCResponse.
func TestV2DecodeResponseAgainstSlowPath(t *testing.T) {
	fastQuietLog(t)
	var n, agree int
	var v2Lenient, v2Refuses, v2Other []string
	for _, tc := range fastCases() {
		if tc.kind != fastKindSend {
			continue
		}
		n++
		body := []byte(tc.body)
		want, wantErr := a2a.DecodeRPCResponse[a2a.SendMessageResponse](body)
		got, err := v2DecodeSendResponseStrict(body)
		switch {
		case wantErr != nil && err == nil:
			v2Lenient = append(v2Lenient, tc.name)
			t.Errorf("%s: slow path refuses (%v), v2 accepts\n  %.200s", tc.name, wantErr, body)
		case wantErr == nil && err != nil:
			v2Refuses = append(v2Refuses, tc.name)
			t.Errorf("%s: slow path accepts, v2 refuses (%v)\n  %.200s", tc.name, err, body)
		case wantErr == nil && !reflect.DeepEqual(got, want):
			v2Other = append(v2Other, tc.name)
			t.Errorf("%s: other value\n  slow %+v\n  v2   %+v", tc.name, want.Result, got.Result)
		default:
			agree++
		}
	}
	t.Logf("response: %d send bodies, %d agree; v2 accepts %d the slow path refuses %v; refuses %d it accepts %v; reads %d otherwise %v",
		n, agree, len(v2Lenient), v2Lenient, len(v2Refuses), v2Refuses, len(v2Other), v2Other)
}

// v2FirstDiff shows where two documents' values first differ.
func v2FirstDiff(a, b []byte) string {
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	i := 0
	for i < len(ja) && i < len(jb) && ja[i] == jb[i] {
		i++
	}
	lo := max(0, i-80)
	return "\n  v1 …" + string(ja[lo:min(len(ja), i+80)]) + "\n  v2 …" + string(jb[lo:min(len(jb), i+80)])
}
