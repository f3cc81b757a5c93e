package publish

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// mapMembers is what Select read before toolMembers: the map decode.
func mapMembers(d []byte) (tool, args json.RawMessage, hasTool, hasArgs, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(d, &m) != nil {
		return nil, nil, false, false, false
	}
	tool, hasTool = m["tool"]
	args, hasArgs = m["arguments"]
	// null decodes to no map: as toolMembers, that is not an object.
	return tool, args, hasTool, hasArgs, m != nil
}

var memberCases = []string{
	`{"tool":"echo","arguments":{"text":"hello"}}`,
	` { "tool" : "echo" , "arguments" : { "text" : "a \"}\" b" } } `,
	`{"arguments":[1,{"a":"]"}],"tool":"x"}`,
	`{"tool":"a","tool":"b"}`,
	`{"tool":"a","arguments":1,"arguments":null}`,
	`{"Tool":"a","ARGUMENTS":{}}`,
	`{"\u0074ool":"esc","argument\u0073":true}`,
	`{"to\"ol":"q"}`,
	`{"tool\\":"q"}`,
	`{"tool":"\u00e9\ud83d\ude00"}`,
	"{\"tool\":\"a\",\"x\":\"\xff\"}",
	"{\"t\xffol\":\"a\"}",
	`{"tool":1}`,
	`{"tool":null}`,
	`{"tool":{"nested":"tool"}}`,
	`{"x":{"tool":"inner"},"arguments":-1.5e3}`,
	`{}`,
	`{"tool":"a",}`,
	`{"tool":"a"`,
	`{"tool":"a"}x`,
	`null`,
	`[]`,
	`"tool"`,
	`12`,
	`true`,
	``,
	`   `,
	`{"tool":"a","arguments":{"deep":[[[[{"b":[]}]]]]}}`,
	`{"a":"\\","tool":"after backslash"}`,
	`{"a":"x\\\"","tool":"after escaped quote"}`,
	"{\"tool\"\n:\t\"ws\"\r}",
	`{"k\u2028":"line sep","tool":"t"}`,
}

func TestToolMembersMatchTheMapDecode(t *testing.T) {
	for _, c := range memberCases {
		checkMembers(t, []byte(c))
	}
}

func checkMembers(t *testing.T, d []byte) {
	t.Helper()
	wt, wa, wht, wha, wok := mapMembers(d)
	gt, ga, ght, gha, gok := toolMembers(d)
	if wok != gok || wht != ght || wha != gha || !bytes.Equal(wt, gt) || !bytes.Equal(wa, ga) {
		t.Errorf("toolMembers(%q) = %q %q %v %v %v; the map decode: %q %q %v %v %v", d, gt, ga, ght, gha, gok, wt, wa, wht, wha, wok)
	}
}

func FuzzToolMembers(f *testing.F) {
	for _, c := range memberCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		checkMembers(t, d)
		checkString(t, d)
	})
}

var stringCases = []string{`"echo"`, `""`, `"a\"b"`, `"\u0041"`, "\"\xff\"", `"é"`, `"a"b"`, `1`, `null`, `"`, `"x`, "\"\x01\"", `["a"]`}

func TestStringValueMatchesUnmarshal(t *testing.T) {
	for _, c := range stringCases {
		checkString(t, []byte(c))
	}
}

func checkString(t *testing.T, raw []byte) {
	t.Helper()
	var want string
	werr := json.Unmarshal(raw, &want)
	got, err := stringValue(raw)
	if (werr == nil) != (err == nil) || (err == nil && got != want) {
		t.Errorf("stringValue(%q) = %q, %v; json.Unmarshal: %q, %v", raw, got, err, want, werr)
	}
}

func BenchmarkSelect(b *testing.B) {
	msg := &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{
		{Kind: a2a.PartData, Data: json.RawMessage(`{"tool":"echo","arguments":{"text":"hello from the benchmark"}}`)},
	}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Select(msg, nil); err != nil {
			b.Fatal(err)
		}
	}
}
