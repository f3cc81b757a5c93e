package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestRequestIDMiddleware(t *testing.T) {
	tests := []struct {
		name    string
		header  string
		want    string // "" means a minted UUID
		refused bool
	}{
		{name: "accepted", header: "abc-123_X.y:z", want: "abc-123_X.y:z"},
		{name: "accepted at max length", header: strings.Repeat("a", MaxRequestIDLen), want: strings.Repeat("a", MaxRequestIDLen)},
		{name: "minted when absent"},
		{name: "refused too long", header: strings.Repeat("a", MaxRequestIDLen+1), refused: true},
		{name: "refused space", header: "a b", refused: true},
		{name: "refused quote", header: `a"b`, refused: true},
		{name: "refused equals", header: "a=b", refused: true},
		{name: "refused non-ascii", header: "ünïcode", refused: true},
		{name: "refused control", header: "a\x01b", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen string
			h := RequestIDMiddleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen = RequestID(r.Context())
			}))
			r := httptest.NewRequest("GET", "/", nil)
			if tt.header != "" {
				r.Header.Set(RequestIDHeader, tt.header)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			echoed := w.Header().Get(RequestIDHeader)
			if echoed != seen {
				t.Errorf("echoed %q, context %q", echoed, seen)
			}
			if tt.want != "" {
				if seen != tt.want {
					t.Errorf("id = %q, want %q", seen, tt.want)
				}
				return
			}
			if _, err := uuid.Parse(seen); err != nil {
				t.Errorf("id %q is not a minted UUID", seen)
			}
			if tt.refused && seen == tt.header {
				t.Errorf("unsafe id %q accepted", tt.header)
			}
		})
	}
}

// TestRequestIDLogForgery: a request id carrying a newline and a fake JSON
// record cannot reach the log; a minted id is logged instead.
func TestRequestIDLogForgery(t *testing.T) {
	var buf bytes.Buffer
	log := Logger(LogConfig{Output: &buf})
	h := RequestIDMiddleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.InfoContext(r.Context(), "served")
	}))
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set(RequestIDHeader, "x\n{\"level\":\"ERROR\",\"msg\":\"forged\"}")
	h.ServeHTTP(httptest.NewRecorder(), r)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 || strings.Contains(buf.String(), "forged") {
		t.Fatalf("log = %q", buf.String())
	}
}

func TestContextHandlerAddsRequestID(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			log := Logger(LogConfig{Output: &buf, Format: format, Level: slog.LevelDebug})
			ctx := WithRequestID(context.Background(), "req-1")
			log.With("agent", "weather").DebugContext(ctx, "hello")
			log.Info("no context")
			out := buf.String()
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 2 {
				t.Fatalf("log = %q", out)
			}
			if !strings.Contains(lines[0], "req-1") || !strings.Contains(lines[0], "request_id") {
				t.Errorf("record with context lacks request_id: %s", lines[0])
			}
			if strings.Contains(lines[1], "request_id") {
				t.Errorf("record without context has request_id: %s", lines[1])
			}
			if format == "json" {
				var rec map[string]any
				if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
					t.Fatal(err)
				}
				if rec["request_id"] != "req-1" || rec["agent"] != "weather" || rec["level"] != "DEBUG" {
					t.Errorf("record = %v", rec)
				}
			}
		})
	}
}

func TestLoggerLevel(t *testing.T) {
	var buf bytes.Buffer
	log := Logger(LogConfig{Output: &buf, Level: slog.LevelWarn})
	log.Info("dropped")
	log.Warn("kept")
	if out := buf.String(); strings.Contains(out, "dropped") || !strings.Contains(out, "kept") {
		t.Errorf("log = %q", out)
	}
}

func TestWithRequestIDReplacesUnsafe(t *testing.T) {
	if id := RequestID(WithRequestID(context.Background(), "bad id")); id == "bad id" || !ValidRequestID(id) {
		t.Errorf("id = %q", id)
	}
	if id := RequestID(context.Background()); id != "" {
		t.Errorf("id outside a request = %q", id)
	}
}

func FuzzValidRequestID(f *testing.F) {
	for _, s := range []string{"", "abc", "a b", "x\ny", strings.Repeat("z", 200), "ü", "a:b.c-d_e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidRequestID(s) {
			return
		}
		if len(s) > MaxRequestIDLen {
			t.Fatalf("accepted %d bytes", len(s))
		}
		if strings.ContainsAny(s, " \t\r\n\"'\\=<>{}") {
			t.Fatalf("accepted %q", s)
		}
		for _, r := range s {
			if r > 0x7e || r < 0x21 {
				t.Fatalf("accepted %q", s)
			}
		}
	})
}

func BenchmarkContextHandler(b *testing.B) {
	var buf bytes.Buffer
	log := Logger(LogConfig{Output: &buf})
	ctx := WithRequestID(context.Background(), "req-1")
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		log.InfoContext(ctx, "request", "face", "a2a")
	}
}

// TestNewRequestID_UUIDv4 pins the form of minted request ids: canonical
// version 4 UUIDs, all distinct.
func TestNewRequestID_UUIDv4(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := NewRequestID()
		u, err := uuid.Parse(id)
		if err != nil || u.String() != id || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("NewRequestID() = %q: not a canonical version 4 UUID (err %v)", id, err)
		}
		if seen[id] {
			t.Fatalf("NewRequestID() repeated %q", id)
		}
		seen[id] = true
	}
}
