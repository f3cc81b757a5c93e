package observe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// countingWriter records every Write it is given.
type countingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	err    error
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	if w.err != nil {
		return 0, w.err
	}
	return w.buf.Write(p)
}

func (w *countingWriter) state() (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String(), w.writes
}

func TestLogBufferWritesManyLinesAtOnceOnFlush(t *testing.T) {
	var w countingWriter
	b := NewLogBuffer(&w, time.Hour)
	var want strings.Builder
	for i := range 100 {
		line := fmt.Sprintf("line %d\n", i)
		want.WriteString(line)
		if n, err := b.Write([]byte(line)); n != len(line) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if out, n := w.state(); n != 0 || out != "" {
		t.Fatalf("before Flush: %d writes, %q", n, out)
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	if out, n := w.state(); n != 1 || out != want.String() {
		t.Errorf("after Flush: %d writes (want 1), output in order: %v", n, out == want.String())
	}
}

func TestLogBufferWritesWithinTheInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var w countingWriter
		b := NewLogBuffer(&w, 100*time.Millisecond)
		_, _ = b.Write([]byte("one\n"))
		time.Sleep(50 * time.Millisecond)
		_, _ = b.Write([]byte("two\n"))
		synctest.Wait()
		if out, _ := w.state(); out != "" {
			t.Fatalf("written before the interval: %q", out)
		}
		time.Sleep(50 * time.Millisecond) // the interval since the first line
		synctest.Wait()
		if out, n := w.state(); out != "one\ntwo\n" || n != 1 {
			t.Fatalf("after the interval: %d writes, %q", n, out)
		}
		// An idle buffer arms no timer; the next line starts a new interval.
		time.Sleep(time.Second)
		_, _ = b.Write([]byte("three\n"))
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if out, n := w.state(); out != "one\ntwo\nthree\n" || n != 2 {
			t.Fatalf("second interval: %d writes, %q", n, out)
		}
		_ = b.Close()
	})
}

func TestLogBufferFullIsWrittenAtOnce(t *testing.T) {
	var w countingWriter
	b := NewLogBuffer(&w, time.Hour)
	line := []byte(strings.Repeat("x", 1023) + "\n")
	total := 0
	for total < logBufferSize {
		_, _ = b.Write(line)
		total += len(line)
	}
	if out, n := w.state(); n != 1 || len(out) != total {
		t.Fatalf("a full buffer: %d writes of %d bytes, want 1 of %d", n, len(out), total)
	}
	_ = b.Close()
}

func TestLogBufferCloseFlushesAndPassesThrough(t *testing.T) {
	var w countingWriter
	b := NewLogBuffer(&w, time.Hour)
	_, _ = b.Write([]byte("before\n"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	_, _ = b.Write([]byte("after\n"))
	if out, n := w.state(); out != "before\nafter\n" || n != 2 {
		t.Errorf("%d writes, %q", n, out)
	}
}

func TestLogBufferZeroIntervalPassesThrough(t *testing.T) {
	var w countingWriter
	b := NewLogBuffer(&w, 0)
	_, _ = b.Write([]byte("a\n"))
	_, _ = b.Write([]byte("b\n"))
	if out, n := w.state(); out != "a\nb\n" || n != 2 {
		t.Errorf("%d writes, %q", n, out)
	}
}

func TestLogBufferReportsAWriteError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := countingWriter{err: errors.New("disk full")}
		b := NewLogBuffer(&w, 100*time.Millisecond)
		_, _ = b.Write([]byte("lost\n"))
		time.Sleep(100 * time.Millisecond) // the timer's write fails
		synctest.Wait()
		if err := b.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("Flush after a failed timed write = %v", err)
		}
		if err := b.Flush(); err != nil {
			t.Errorf("the error is reported once: %v", err)
		}
	})
}

func TestBufferedLoggerWritesWarningsAtOnce(t *testing.T) {
	var w countingWriter
	log, flush := BufferedLogger(LogConfig{Output: &w, FlushInterval: time.Hour})
	log.Info("first")
	log.Info("second")
	if out, _ := w.state(); out != "" {
		t.Fatalf("info lines written before the interval: %q", out)
	}
	log.Warn("trouble")
	out, n := w.state()
	if n != 1 || !strings.Contains(out, "first") || !strings.Contains(out, "second") || !strings.Contains(out, "trouble") {
		t.Fatalf("a warning flushes every line before it in one write: %d writes, %q", n, out)
	}
	if i, j := strings.Index(out, "first"), strings.Index(out, "trouble"); i > j {
		t.Errorf("lines out of order: %q", out)
	}
	log.Info("last")
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	if out, _ := w.state(); !strings.Contains(out, "last") {
		t.Errorf("flush left a line: %q", out)
	}
}

func TestContextAttrsGivenByTheCallerAreNotRepeated(t *testing.T) {
	var buf bytes.Buffer
	log := Logger(LogConfig{Output: &buf})
	ctx := WithRequestID(context.Background(), "req-7")
	attrs := make([]slog.Attr, 0, 16)
	for i := range 12 {
		attrs = append(attrs, slog.Int(fmt.Sprintf("k%d", i), i))
	}
	attrs = AppendContextAttrs(ctx, attrs)
	log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
	log.LogAttrs(ctx, slog.LevelInfo, "plain", slog.Int("a", 1))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("log = %q", buf.String())
	}
	for _, l := range lines {
		if c := strings.Count(l, `"request_id":"req-7"`); c != 1 {
			t.Errorf("request_id %d times in %s", c, l)
		}
	}
	if !strings.HasSuffix(lines[0], `"k11":11,"request_id":"req-7"}`) {
		t.Errorf("request_id is not last, where the handler puts it: %s", lines[0])
	}
}
