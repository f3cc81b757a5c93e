package a2a_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// Fuzz targets for the decoders of the wire types a peer sends us. Each
// checks that decoding arbitrary bytes never panics and that whatever
// decodes is a fixed point after one round: encode → decode → encode gives
// the same bytes and an equal value. Seeds: the golden files plus the
// entries under testdata/fuzz/<FuzzName>/. Run one with e.g.
//
//	go test ./a2a -run '^$' -fuzz '^FuzzDecodeTask$' -fuzztime 30s

// seedGolden adds the golden files whose name starts with one of prefixes.
func seedGolden(f *testing.F, prefixes ...string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	n := 0
	for _, file := range files {
		base := filepath.Base(file)
		for _, p := range prefixes {
			if strings.HasPrefix(base, p) {
				b, err := os.ReadFile(file)
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b)
				n++
				break
			}
		}
	}
	if n == 0 {
		f.Fatalf("no golden seeds for %v", prefixes)
	}
	for _, s := range []string{``, `null`, `{}`, `[]`, `"x"`, `{"":null}`} {
		f.Add([]byte(s))
	}
}

// checkFixedPoint decodes b into a new T; if that works, the value must
// re-encode, decode again, and reach a fixed point.
func checkFixedPoint[T any](t *testing.T, b []byte) {
	var v1 T
	if err := json.Unmarshal(b, &v1); err != nil {
		return
	}
	b2, err := json.Marshal(&v1)
	if err != nil {
		t.Fatalf("decoded value does not encode: %v\ninput: %q", err, b)
	}
	var v2 T
	if err := json.Unmarshal(b2, &v2); err != nil {
		t.Fatalf("our own encoding does not decode: %v\ninput: %q\nencoded: %s", err, b, b2)
	}
	b3, err := json.Marshal(&v2)
	if err != nil {
		t.Fatalf("second encode: %v", err)
	}
	if !bytes.Equal(b2, b3) {
		t.Fatalf("encoding is not stable\ninput: %q\nfirst:  %s\nsecond: %s", b, b2, b3)
	}
	// The encoder must not lose what the decoder read: the value decoded
	// from our encoding equals the first one up to normalisation.
	normalise(reflect.ValueOf(&v1).Elem())
	normalise(reflect.ValueOf(&v2).Elem())
	if !reflect.DeepEqual(v1, v2) {
		t.Fatalf("decode(encode(v)) != v\ninput: %q\nencoded: %s\nfirst:  %#v\nsecond: %#v", b, b2, v1, v2)
	}
}

func FuzzDecodeTask(f *testing.F) {
	seedGolden(f, "task.json", "task_minimal")
	f.Fuzz(func(t *testing.T, b []byte) { checkFixedPoint[a2a.Task](t, b) })
}

func FuzzDecodeMessage(f *testing.F) {
	seedGolden(f, "message")
	f.Fuzz(func(t *testing.T, b []byte) { checkFixedPoint[a2a.Message](t, b) })
}

func FuzzDecodeStreamResponse(f *testing.F) {
	seedGolden(f, "stream_response")
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFixedPoint[a2a.StreamResponse](t, b)
		var ev a2a.StreamResponse
		if json.Unmarshal(b, &ev) == nil {
			_ = ev.Kind() // must not panic on any decoded event
		}
	})
}

func FuzzDecodeSendMessageRequest(f *testing.F) {
	seedGolden(f, "send_message_request")
	f.Fuzz(func(t *testing.T, b []byte) { checkFixedPoint[a2a.SendMessageRequest](t, b) })
}

func FuzzDecodeAgentCard(f *testing.F) {
	seedGolden(f, "agent_card")
	f.Fuzz(func(t *testing.T, b []byte) { checkFixedPoint[a2a.AgentCard](t, b) })
}
