package client

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// sseCollect reads every event of r and the final error.
func sseCollect(r io.Reader, max int) ([]string, error) {
	s := newSSEReader(r, max)
	var out []string
	for {
		data, err := s.next()
		if err != nil {
			return out, err
		}
		out = append(out, string(data))
	}
}

// sseChunks is a reader that returns its input in the given pieces, one per
// Read, so a test controls exactly where reads split the stream.
type sseChunks struct{ parts [][]byte }

func (c *sseChunks) Read(p []byte) (int, error) {
	for len(c.parts) > 0 && len(c.parts[0]) == 0 {
		c.parts = c.parts[1:]
	}
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	return n, nil
}

func sseSplit(b []byte, at ...int) io.Reader {
	var parts [][]byte
	prev := 0
	for _, i := range at {
		parts = append(parts, b[prev:i])
		prev = i
	}
	return &sseChunks{parts: append(parts, b[prev:])}
}

func TestSSEReaderParses(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr error
	}{
		{"lf", "data: a\n\ndata: b\n\n", []string{"a", "b"}, io.EOF},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}, io.EOF},
		{"cr", "data: a\r\rdata: b\r\r", []string{"a", "b"}, io.EOF},
		{"mixed terminators", "data: a\r\n\ndata: b\r\rdata: c\n\r\n", []string{"a", "b", "c"}, io.EOF},
		{"multi-line data joined with LF", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}, io.EOF},
		{"no space after colon", "data:x\n\n", []string{"x"}, io.EOF},
		{"only one leading space stripped", "data:  x\n\n", []string{" x"}, io.EOF},
		{"field without colon is an empty value", "data\ndata\n\n", []string{"\n"}, io.EOF},
		{"keep-alive comments ignored", ": keep-alive\n\n:\ndata: a\n: mid\n\n: bye\n", []string{"a"}, io.EOF},
		{"id event retry tolerated", "id: 7\nevent: message\nretry: 1000\ndata: a\n\n", []string{"a"}, io.EOF},
		{"unknown field ignored", "foo: bar\ndata: a\n\n", []string{"a"}, io.EOF},
		{"blank lines without data dispatch nothing", "\n\n\nid: 1\n\n", nil, io.EOF},
		{"empty data value is an event", "data:\n\n", []string{""}, io.EOF},
		{"colon in value kept", "data: a:b: c\n\n", []string{"a:b: c"}, io.EOF},
		{"empty stream", "", nil, io.EOF},
		{"truncated event", "data: a\n\ndata: b\n", []string{"a"}, io.ErrUnexpectedEOF},
		{"truncated line", "data: a\n\ndata: b", []string{"a"}, io.ErrUnexpectedEOF},
		{"crlf pair is one break, not an empty line", "data: a\r\ndata: b\r\n\r\n", []string{"a\nb"}, io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sseCollect(strings.NewReader(tt.in), 1<<10)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSSEReaderEverySplit feeds each stream in two reads split at every byte
// offset, then in three reads at every pair of offsets, and one byte at a
// time: the events must not depend on where reads end. The stream mixes
// CRLF, CR and LF so some splits fall between a CR and its LF.
func TestSSEReaderEverySplit(t *testing.T) {
	streams := []string{
		": keep-alive\r\n\r\ndata: {\"task\":{\"id\":\"t1\"}}\r\n\r\ndata: one\r\ndata: two\r\n\r\n",
		"data: a\r\rdata: b\r\n\r\n: c\r\ndata: d\n\n",
		"id: 1\r\nevent: x\r\ndata:\r\n\r\ndata: e\r\r",
	}
	for _, stream := range streams {
		in := []byte(stream)
		want, wantErr := sseCollect(bytes.NewReader(in), 1<<10)
		if wantErr != io.EOF || len(want) == 0 {
			t.Fatalf("reference parse of %q: %q, %v", stream, want, wantErr)
		}
		check := func(name string, r io.Reader) {
			t.Helper()
			got, err := sseCollect(r, 1<<10)
			if err != io.EOF || strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
				t.Fatalf("%s of %q: got %q, %v; want %q, EOF", name, stream, got, err, want)
			}
		}
		for i := 0; i <= len(in); i++ {
			check("split", sseSplit(in, i))
			for j := i; j <= len(in); j++ {
				check("split3", sseSplit(in, i, j))
			}
		}
		check("one byte", iotest.OneByteReader(bytes.NewReader(in)))
		check("data+EOF", iotest.DataErrReader(bytes.NewReader(in)))
	}
}

func TestSSEReaderSizeCap(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want []string
		fail bool
	}{
		{"event at the cap", "data: 12345\n\n", 5, []string{"12345"}, false},
		{"event over the cap", "data: 123456\n\n", 5, nil, true},
		{"lines joined over the cap", "data: 123\ndata: 45\n\n", 5, nil, true},
		{"lines joined at the cap", "data: 12\ndata: 45\n\n", 5, []string{"12\n45"}, false},
		{"endless comment line", ":" + strings.Repeat("x", 10000), 5, nil, true},
		{"endless data line", "data: " + strings.Repeat("x", 10000), 5, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sseCollect(iotest.HalfReader(strings.NewReader(tt.in)), tt.max)
			if tt.fail != errors.Is(err, ErrResponseTooLarge) {
				t.Fatalf("error = %v, want too large = %v", err, tt.fail)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("events = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSSEReaderEndlessEmptyReads stops a reader that makes no progress.
func TestSSEReaderEndlessEmptyReads(t *testing.T) {
	_, err := sseCollect(sseStuck{}, 10)
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("error = %v, want io.ErrNoProgress", err)
	}
}

type sseStuck struct{}

func (sseStuck) Read([]byte) (int, error) { return 0, nil }

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	_, err := sseCollect(io.MultiReader(strings.NewReader("data: a\n"), iotest.ErrReader(boom)), 10)
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want %v", err, boom)
	}
}

// BenchmarkSSEReader parses a stream of status-update-sized events in 4 KiB
// reads, as they come off a connection.
func BenchmarkSSEReader(b *testing.B) {
	event := "data: {\"statusUpdate\":{\"taskId\":\"3f1c2a9e-4b7d-4e8a-9c1f-2d3e4f5a6b7c\",\"contextId\":\"c-1\"," +
		"\"status\":{\"state\":\"TASK_STATE_WORKING\",\"timestamp\":\"2026-11-30T10:00:00.000Z\"}}}\r\n\r\n"
	stream := []byte(strings.Repeat(": keep-alive\r\n\r\n"+event, 64))
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	r := bytes.NewReader(stream)
	s := newSSEReader(r, 1<<20)
	for b.Loop() {
		r.Reset(stream)
		s.r = r
		s.start, s.end, s.rerr, s.skipLF = 0, 0, nil, false
		n := 0
		for {
			if _, err := s.next(); err != nil {
				break
			}
			n++
		}
		if n != 64 {
			b.Fatalf("events = %d", n)
		}
	}
}

// TestStreamReady: Ready is true only when Next would return without
// reading (a complete known event buffered, or the end), never consumes an
// event Next then misses, and skips what Next skips.
func TestStreamReady(t *testing.T) {
	id := []byte("1")
	ev := func(p string) string { return sseEvents(a2a.BindingJSONRPC, id, p) }
	// Read 1: the task and the status, whole; read 2: an unknown kind, a
	// keep-alive comment and half of the artifact; read 3: the rest of it
	// and the final status; then the end.
	art := ev(evArt)
	first := ev(evTask) + ev(evStatus)
	second := ev(evFuture) + ": keep-alive\n\n" + art[:20]
	third := art[20:] + ev(evDone)
	body := &sseChunks{parts: [][]byte{[]byte(first), []byte(second), []byte(third)}}
	s := &Stream{op: "test", id: 1, body: io.NopCloser(body), sse: newSSEReader(body, 1<<20)}
	next := func(want string) {
		t.Helper()
		e, err := s.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if got := e.Kind(); got != want {
			t.Fatalf("Next: %s, want %s", got, want)
		}
	}
	ready := func(want bool) {
		t.Helper()
		if got := s.Ready(); got != want {
			t.Fatalf("Ready: %v, want %v", got, want)
		}
	}
	ready(false) // nothing read yet
	next("task")
	ready(true) // the status is buffered
	ready(true) // asking again changes nothing
	next("statusUpdate")
	ready(false) // the buffer is empty
	// Next reads the second part: the unknown event and the comment are
	// skipped, the artifact is incomplete, so it reads the third.
	next("artifactUpdate")
	ready(true)
	next("statusUpdate")
	ready(false) // the end is not read yet
	if _, err := s.Next(); err != io.EOF {
		t.Fatalf("Next at the end: %v, want io.EOF", err)
	}
	ready(true) // after an error, Next answers at once

	// A buffered keep-alive alone, an unknown kind, or the first half of an
	// event is not ready.
	for _, c := range []struct{ head, rest, want string }{
		{": keep-alive\n\n", "", "statusUpdate"},
		{ev(evFuture), "", "statusUpdate"},
		{art[:20], art[20:], "artifactUpdate"},
	} {
		body := &sseChunks{parts: [][]byte{[]byte(ev(evTask) + c.head), []byte(c.rest + ev(evDone))}}
		s = &Stream{op: "test", id: 1, body: io.NopCloser(body), sse: newSSEReader(body, 1<<20)}
		next("task")
		ready(false)
		next(c.want)
	}
}
