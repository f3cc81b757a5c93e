//go:build !bridge_nofastjson

package fastjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// The request body the client writes by hand must be json.Marshal's,
// byte for byte, for every SendMessage params it takes (and json.Marshal's
// own for the ones it leaves alone).
func TestEncodeClientRPCRequestMatchesJSONMarshal(t *testing.T) {
	zero, five := int32(0), int32(5)
	msg := &a2a.Message{MessageID: "m-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello <b>&</b>")}, TaskID: "up-task", ContextID: "up-ctx"}
	rich := &a2a.Message{
		MessageID: "m-2", Role: a2a.RoleAgent, Extensions: []string{"urn:x"}, ReferenceTaskIDs: []string{"t-0"},
		Parts: []a2a.Part{
			a2a.TextPart("tab\t\u2028 é \xff"), a2a.RawPart([]byte{0, 1, 2, 250}, "application/octet-stream", "a.bin"),
			a2a.URLPart("https://example.com/a?b=c&d", "text/html", ""), {Kind: a2a.PartData, Data: json.RawMessage(`{"k":[1,2.5,"x"]}`)},
		},
		Metadata: a2a.Metadata{"z": 1.5, "a": map[string]any{"n": nil, "l": []any{true, "s"}}},
	}
	tests := []struct {
		name   string
		params any
	}{
		{"proxy blocking send", &a2a.SendMessageRequest{Message: msg, Configuration: &a2a.SendMessageConfiguration{HistoryLength: &zero}}},
		{"output modes", &a2a.SendMessageRequest{Message: msg, Configuration: &a2a.SendMessageConfiguration{AcceptedOutputModes: []string{"text/plain", "application/json"}, HistoryLength: &five, ReturnImmediately: true}}},
		{"empty configuration", &a2a.SendMessageRequest{Message: msg, Configuration: &a2a.SendMessageConfiguration{}}},
		{"only return immediately", &a2a.SendMessageRequest{Message: msg, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}}},
		{"tenant and metadata", &a2a.SendMessageRequest{Tenant: "acme", Message: rich, Metadata: a2a.Metadata{"trace": "abc", "n": 3}}},
		{"nil message", &a2a.SendMessageRequest{}},
		{"push config left to json.Marshal", &a2a.SendMessageRequest{Message: msg, Configuration: &a2a.SendMessageConfiguration{TaskPushNotificationConfig: &a2a.TaskPushNotificationConfig{URL: "https://hook.example.com"}}}},
		{"get task left to json.Marshal", &a2a.GetTaskRequest{ID: "t-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, method := range []string{"SendMessage", "SendStreamingMessage"} {
				want, werr := json.Marshal(a2a.RPCRequest{JSONRPC: "2.0", ID: 42, Method: method, Params: tt.params})
				got, gerr := EncodeRPCRequest(42, method, tt.params)
				if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
					t.Fatalf("error %v, want %v", gerr, werr)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("body\n%s\nwant\n%s", got, want)
				}
			}
		})
	}
}

// A value the appenders refuse gives json.Marshal's error, not a body.
func TestEncodeClientRPCRequestKeepsJSONMarshalErrors(t *testing.T) {
	bad := &a2a.SendMessageRequest{Message: &a2a.Message{MessageID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{{Kind: a2a.PartData, Data: json.RawMessage(`{bad`)}}}}
	_, werr := json.Marshal(a2a.RPCRequest{JSONRPC: "2.0", ID: 1, Method: "SendMessage", Params: bad})
	_, gerr := EncodeRPCRequest(1, "SendMessage", bad)
	if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
		t.Fatalf("error %v, want %v", gerr, werr)
	}
}

func FuzzEncodeClientRPCRequest(f *testing.F) {
	f.Add("m-1", "hello", "ctx", "acme", "k", "v", int32(0), true)
	f.Add("<&>", "\xff\u2028", "", "", "", "", int32(-3), false)
	f.Fuzz(func(t *testing.T, id, text, ctxID, tenant, mk, mv string, hist int32, now bool) {
		p := &a2a.SendMessageRequest{
			Tenant:        tenant,
			Message:       &a2a.Message{MessageID: id, ContextID: ctxID, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}},
			Configuration: &a2a.SendMessageConfiguration{HistoryLength: &hist, ReturnImmediately: now, AcceptedOutputModes: []string{mk}},
			Metadata:      a2a.Metadata{mk: mv},
		}
		want, werr := json.Marshal(a2a.RPCRequest{JSONRPC: "2.0", ID: 7, Method: "SendMessage", Params: p})
		got, gerr := EncodeRPCRequest(7, "SendMessage", p)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("body %s (%v), want %s (%v)", got, gerr, want, werr)
		}
	})
}
