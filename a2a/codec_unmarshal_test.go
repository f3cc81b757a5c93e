package a2a

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// slowUnmarshal is what the public UnmarshalJSON methods did before they
// tried the fast decoder: the strict slow path alone.
func slowUnmarshal(b []byte, v any) error {
	switch v := v.(type) {
	case *Task:
		var w taskIn
		if err := UnmarshalStrict(b, &w); err != nil {
			return err
		}
		return w.task(v)
	case *Message:
		var w messageIn
		if err := UnmarshalStrict(b, &w); err != nil {
			return err
		}
		return w.message(v)
	case *StreamResponse:
		var w streamIn
		if err := UnmarshalStrict(b, &w); err != nil {
			return err
		}
		return w.stream(v)
	case *SendMessageResponse:
		var w sendMessageResponseIn
		if err := UnmarshalStrict(b, &w); err != nil {
			return err
		}
		return w.response(v)
	}
	panic("unknown type")
}

// checkPublicUnmarshal: the public UnmarshalJSON methods (fast decoder
// first) read exactly what the strict slow path reads, error or value.
func checkPublicUnmarshal(t *testing.T, b []byte) {
	t.Helper()
	for _, mk := range []func() (any, any){
		func() (any, any) { return new(Task), new(Task) },
		func() (any, any) { return new(Message), new(Message) },
		func() (any, any) { return new(StreamResponse), new(StreamResponse) },
		func() (any, any) { return new(SendMessageResponse), new(SendMessageResponse) },
	} {
		fast, slow := mk()
		errF := fast.(interface{ UnmarshalJSON([]byte) error }).UnmarshalJSON(b)
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
