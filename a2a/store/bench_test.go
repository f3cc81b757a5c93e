package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
)

// benchStores opens each store kind for a benchmark: a writer and a reader
// (the same store, or for "postgres-2replicas" a second pool whose wake-ups
// come only through LISTEN/NOTIFY).
func benchStores(b *testing.B) []struct {
	name   string
	writer a2a.Store
	reader a2a.Store
} {
	m := store.NewMemory()
	sq := openSQLite(b, filepath.Join(b.TempDir(), "bench.db"))
	out := []struct {
		name   string
		writer a2a.Store
		reader a2a.Store
	}{{"memory", m, m}, {"sqlite", sq, sq}}
	if u := postgresURLOrEmpty(b); u != "" {
		pa, pb := openPostgres(b, u), openPostgres(b, u)
		out = append(out,
			struct {
				name   string
				writer a2a.Store
				reader a2a.Store
			}{"postgres", pa, pa},
			struct {
				name   string
				writer a2a.Store
				reader a2a.Store
			}{"postgres-2replicas", pa, pb})
	}
	return out
}

func postgresURLOrEmpty(b *testing.B) string {
	if os.Getenv("BRIDGE_TEST_POSTGRES_URL") == "" {
		b.Log("BRIDGE_TEST_POSTGRES_URL is not set; PostgreSQL benchmarks skipped")
		return ""
	}
	return postgresSchema(b)
}

func benchEvent() a2a.StreamResponse {
	return a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{Status: a2a.TaskStatus{
		State:   a2a.TaskStateWorking,
		Message: &a2a.Message{MessageID: "m", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("progress: 42% of the work is done")}},
	}}}
}

// BenchmarkAppend measures one event appended and published: UpdateTask
// (compare-and-swap, event row, snapshot, wake-up) one after another.
func BenchmarkAppend(b *testing.B) {
	for _, s := range benchStores(b) {
		if s.writer != s.reader {
			continue // a second reader changes nothing for the writer
		}
		b.Run(s.name, func(b *testing.B) {
			ctx := context.Background()
			id := "bench-append-" + s.name
			task := &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
			if err := s.writer.CreateTask(ctx, "alice", task); err != nil {
				b.Fatal(err)
			}
			evs := []a2a.StreamResponse{benchEvent()}
			version := int64(1)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec, err := s.writer.UpdateTask(ctx, "alice", task, version, evs)
				if err != nil {
					b.Fatal(err)
				}
				version = rec.Version
			}
		})
	}
}

// BenchmarkSubscribeLatency measures, per event, the time from the start of
// UpdateTask to a watcher's wake-up and its Events read returning the event
// (ns/op), and the part after UpdateTask returned (wake-ns/op).
func BenchmarkSubscribeLatency(b *testing.B) {
	for _, s := range benchStores(b) {
		b.Run(s.name, func(b *testing.B) {
			ctx := context.Background()
			id := "bench-sub-" + s.name
			task := &a2a.Task{ID: id, ContextID: "c", Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}
			if err := s.writer.CreateTask(ctx, "alice", task); err != nil {
				b.Fatal(err)
			}
			ch, stop := s.reader.Watch(ctx, id)
			defer stop()
			evs := []a2a.StreamResponse{benchEvent()}
			version, seen := int64(1), int64(0)
			var wake time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec, err := s.writer.UpdateTask(ctx, "alice", task, version, evs)
				if err != nil {
					b.Fatal(err)
				}
				written := time.Now()
				version = rec.Version
				for seen < rec.LastSeq {
					select {
					case <-ch:
					case <-time.After(10 * time.Second):
						b.Fatal("no wake-up")
					}
					got, err := s.reader.Events(ctx, "alice", id, seen, 64)
					if err != nil {
						b.Fatal(err)
					}
					if len(got) > 0 {
						seen = got[len(got)-1].Seq
					}
				}
				wake += time.Since(written)
			}
			b.ReportMetric(float64(wake.Nanoseconds())/float64(b.N), "wake-ns/op")
		})
	}
}
