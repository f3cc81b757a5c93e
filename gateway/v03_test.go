package gateway_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestServerA2AV03: server.a2a_v03 and server.a2a_v03_card as configured:
// accept answers a 0.3 call of an authenticated caller, refuse answers
// -32009 as before; the card for readers naming no version follows
// a2a_v03_card.
func TestServerA2AV03(t *testing.T) {
	send := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"data","data":{"tool":"echo","arguments":{"text":"hi"}}}]}}}`
	cases := []struct {
		name, extra string
		wantCode    int // 0: a 0.3 task
		wantCard03  bool
	}{
		{"default", "", 0, false},
		{"accept, card by default", "server: {a2a_v03: accept, a2a_v03_card: default}\n", 0, true},
		{"refuse", "server: {a2a_v03: refuse}\n", -32009, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := startWithYAML(t, startDemoAgent(t), c.extra)
			req, _ := http.NewRequest(http.MethodPost, e.url+"/a2a/tools", strings.NewReader(send))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+aliceKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Result json.RawMessage
				Error  *struct{ Code int }
			}
			_ = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			switch {
			case c.wantCode != 0 && (r.Error == nil || r.Error.Code != c.wantCode):
				t.Fatalf("got %+v %s, want error %d", r.Error, r.Result, c.wantCode)
			case c.wantCode == 0 && (r.Error != nil || !bytes.Contains(r.Result, []byte(`"kind":"task"`)) || !bytes.Contains(r.Result, []byte(`"completed"`))):
				t.Fatalf("got %+v %s, want a completed 0.3 task", r.Error, r.Result)
			}
			_, card := get(t, e.url+"/a2a/tools/.well-known/agent-card.json")
			if got := bytes.Contains(card, []byte(`"preferredTransport"`)); got != c.wantCard03 {
				t.Errorf("card without a version has the 0.3 members: %v, want %v", got, c.wantCard03)
			}
		})
	}
}
