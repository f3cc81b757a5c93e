package a2a_test

import (
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

// Our codec against protojson on a realistic Task (three history messages,
// two artifacts with text, data and raw parts, metadata, timestamps):
//
//	go test ./a2a -run '^$' -bench 'BenchmarkCodec' -benchtime=2s -count=3

func benchTaskJSON(b *testing.B) []byte {
	b.Helper()
	out, err := json.Marshal(sampleTask())
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func benchTaskPB(b *testing.B) *a2apb.Task {
	b.Helper()
	m := &a2apb.Task{}
	if err := protojson.Unmarshal(benchTaskJSON(b), m); err != nil {
		b.Fatal(err)
	}
	return m
}

var benchSink []byte

func BenchmarkCodecMarshal(b *testing.B) {
	b.Run("ours", func(b *testing.B) {
		t := sampleTask()
		b.ReportAllocs()
		for b.Loop() {
			out, err := json.Marshal(&t)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = out
		}
	})
	b.Run("protojson", func(b *testing.B) {
		m := benchTaskPB(b)
		b.ReportAllocs()
		for b.Loop() {
			out, err := protojson.Marshal(m)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = out
		}
	})
}

func BenchmarkCodecUnmarshal(b *testing.B) {
	in := benchTaskJSON(b)
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			var t a2a.Task
			if err := json.Unmarshal(in, &t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("protojson", func(b *testing.B) {
		opts := protojson.UnmarshalOptions{DiscardUnknown: true}
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			var m a2apb.Task
			if err := opts.Unmarshal(in, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCodecRoundTrip(b *testing.B) {
	in := benchTaskJSON(b)
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var t a2a.Task
			if err := json.Unmarshal(in, &t); err != nil {
				b.Fatal(err)
			}
			out, err := json.Marshal(&t)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = out
		}
	})
	b.Run("protojson", func(b *testing.B) {
		opts := protojson.UnmarshalOptions{DiscardUnknown: true}
		b.ReportAllocs()
		for b.Loop() {
			var m a2apb.Task
			if err := opts.Unmarshal(in, &m); err != nil {
				b.Fatal(err)
			}
			out, err := protojson.Marshal(&m)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = out
		}
	})
}
