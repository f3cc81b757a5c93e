//go:build !bridge_nofastjson

package server

import (
	"bytes"
	"log/slog"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// encLog captures what a server logs.
func encLog() (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	h := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	return slog.New(h), &buf
}

// encBenchTask is a task as the bench agent returns it: completed, one
// history message and one artifact with one text part each.
func encBenchTask() *a2a.Task {
	ts := time.Date(2026, 5, 28, 10, 0, 1, 250_123_456, time.UTC)
	return &a2a.Task{
		ID: "5b1f0f5e-8f0c-4d61-9c1e-0e6c2f1f9a77", ContextID: "c7d2a8f4-3f0b-4b7e-8d6a-2f1e9c4b5a10",
		Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &ts},
		Artifacts: []a2a.Artifact{{ArtifactID: "0b9e2c6d-1a4f-4e8b-9f3c-7d5a6b2e1c90", Name: "echo",
			Parts: []a2a.Part{a2a.TextPart("echo: hello")}}},
		History: []a2a.Message{{MessageID: "m-1", ContextID: "c7d2a8f4-3f0b-4b7e-8d6a-2f1e9c4b5a10",
			TaskID: "5b1f0f5e-8f0c-4d61-9c1e-0e6c2f1f9a77", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}}},
	}
}

// encFastDepth is the depth past which a2a's hand-written encoders hand a
// metadata value to encoding/json (maxFastDepth there).
const encFastDepth = 100
