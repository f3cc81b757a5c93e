package a2agrpc

import (
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	pb "github.com/a2a-mcp-bridge/bridge/a2a/a2apb"
)

func benchTask() *a2a.Task {
	now := time.Now().UTC()
	return &a2a.Task{ID: "0b6f7d52-4a1e-4c55-9a43-2a7e8f0c1d11", ContextID: "c9b5b8a4-1f0e-4d39-8c52-6d1c2b3a4e5f",
		Status:    a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &now},
		Artifacts: []a2a.Artifact{{ArtifactID: "a1", Parts: []a2a.Part{{Text: "echo: hello from the benchmark"}}}},
		History:   []a2a.Message{{MessageID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hello from the benchmark"}}}}}
}

func BenchmarkConvertTask(b *testing.B) {
	t := benchTask()
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := encodeMessage(&a2a.SendMessageResponse{Task: t}, new(pb.SendMessageResponse)); err != nil {
				b.Fatal(err)
			}
		}
	})
	var m pb.SendMessageResponse
	if err := encodeMessage(&a2a.SendMessageResponse{Task: t}, &m); err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out a2a.SendMessageResponse
			if err := decodeMessage(&m, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
