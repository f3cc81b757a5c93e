//go:build !bridge_nofastjson

package fastjson

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// slowUnmarshal is the types' own UnmarshalJSON: the strict encoding/json
// path alone.
func slowUnmarshal(b []byte, v any) error {
	return v.(json.Unmarshaler).UnmarshalJSON(b)
}

// checkPublicUnmarshal: Unmarshal (fast decoder first) reads exactly what
// the strict slow path reads, error or value.
func checkPublicUnmarshal(t *testing.T, b []byte) {
	t.Helper()
	for _, mk := range []func() (any, any){
		func() (any, any) { return new(a2a.Task), new(a2a.Task) },
		func() (any, any) { return new(a2a.Message), new(a2a.Message) },
		func() (any, any) { return new(a2a.StreamResponse), new(a2a.StreamResponse) },
		func() (any, any) { return new(a2a.SendMessageResponse), new(a2a.SendMessageResponse) },
	} {
		fast, slow := mk()
		errF := Unmarshal(b, fast)
		errS := slowUnmarshal(b, slow)
		if (errF == nil) != (errS == nil) {
			t.Fatalf("%T %q: error %v, slow path %v", fast, b, errF, errS)
		}
		if errF == nil && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%T %q:\n got %s\nwant %s", fast, b, fastDumpValue(fast), fastDumpValue(slow))
		}
	}
}

func TestPublicUnmarshalMatchesSlowPath(t *testing.T) {
	fastQuietLog(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkPublicUnmarshal(t, b)
	}
	for _, tc := range fastCases() {
		checkPublicUnmarshal(t, []byte(tc.body))
	}
}

func FuzzPublicUnmarshalMatchesSlowPath(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fastQuietLog(t)
		checkPublicUnmarshal(t, b)
	})
}
