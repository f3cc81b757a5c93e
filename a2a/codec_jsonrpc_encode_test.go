package a2a

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The request body the client writes by hand must be json.Marshal's,
// byte for byte, for every SendMessage params it takes (and json.Marshal's
// own for the ones it leaves alone).
func TestEncodeClientRPCRequestMatchesJSONMarshal(t *testing.T) {
	zero, five := int32(0), int32(5)
	msg := &Message{MessageID: "m-1", Role: RoleUser, Parts: []Part{TextPart("hello <b>&</b>")}, TaskID: "up-task", ContextID: "up-ctx"}
	rich := &Message{
		MessageID: "m-2", Role: RoleAgent, Extensions: []string{"urn:x"}, ReferenceTaskIDs: []string{"t-0"},
		Parts: []Part{
			TextPart("tab\t\u2028 é \xff"), RawPart([]byte{0, 1, 2, 250}, "application/octet-stream", "a.bin"),
			URLPart("https://example.com/a?b=c&d", "text/html", ""), {Kind: PartData, Data: json.RawMessage(`{"k":[1,2.5,"x"]}`)},
		},
		Metadata: Metadata{"z": 1.5, "a": map[string]any{"n": nil, "l": []any{true, "s"}}},
	}
	tests := []struct {
		name   string
		params any
	}{
		{"proxy blocking send", &SendMessageRequest{Message: msg, Configuration: &SendMessageConfiguration{HistoryLength: &zero}}},
		{"output modes", &SendMessageRequest{Message: msg, Configuration: &SendMessageConfiguration{AcceptedOutputModes: []string{"text/plain", "application/json"}, HistoryLength: &five, ReturnImmediately: true}}},
		{"empty configuration", &SendMessageRequest{Message: msg, Configuration: &SendMessageConfiguration{}}},
		{"only return immediately", &SendMessageRequest{Message: msg, Configuration: &SendMessageConfiguration{ReturnImmediately: true}}},
		{"tenant and metadata", &SendMessageRequest{Tenant: "acme", Message: rich, Metadata: Metadata{"trace": "abc", "n": 3}}},
		{"nil message", &SendMessageRequest{}},
		{"push config left to json.Marshal", &SendMessageRequest{Message: msg, Configuration: &SendMessageConfiguration{TaskPushNotificationConfig: &TaskPushNotificationConfig{URL: "https://hook.example.com"}}}},
		{"get task left to json.Marshal", &GetTaskRequest{ID: "t-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, method := range []string{"SendMessage", "SendStreamingMessage"} {
				want, werr := json.Marshal(RPCRequest{JSONRPC: "2.0", ID: 42, Method: method, Params: tt.params})
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
	bad := &SendMessageRequest{Message: &Message{MessageID: "m", Role: RoleUser, Parts: []Part{{Kind: PartData, Data: json.RawMessage(`{bad`)}}}}
	_, werr := json.Marshal(RPCRequest{JSONRPC: "2.0", ID: 1, Method: "SendMessage", Params: bad})
	_, gerr := EncodeRPCRequest(1, "SendMessage", bad)
	if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
		t.Fatalf("error %v, want %v", gerr, werr)
	}
}

func FuzzEncodeClientRPCRequest(f *testing.F) {
	f.Add("m-1", "hello", "ctx", "acme", "k", "v", int32(0), true)
	f.Add("<&>", "\xff\u2028", "", "", "", "", int32(-3), false)
	f.Fuzz(func(t *testing.T, id, text, ctxID, tenant, mk, mv string, hist int32, now bool) {
		p := &SendMessageRequest{
			Tenant:        tenant,
			Message:       &Message{MessageID: id, ContextID: ctxID, Role: RoleUser, Parts: []Part{TextPart(text)}},
			Configuration: &SendMessageConfiguration{HistoryLength: &hist, ReturnImmediately: now, AcceptedOutputModes: []string{mk}},
			Metadata:      Metadata{mk: mv},
		}
		want, werr := json.Marshal(RPCRequest{JSONRPC: "2.0", ID: 7, Method: "SendMessage", Params: p})
		got, gerr := EncodeRPCRequest(7, "SendMessage", p)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("body %s (%v), want %s (%v)", got, gerr, want, werr)
		}
	})
}
