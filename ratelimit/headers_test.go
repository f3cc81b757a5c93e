package ratelimit

import (
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// formatHeaders renders h as sorted "Name: value" lines.
func formatHeaders(h http.Header) string {
	var lines []string
	for name, vals := range h {
		for _, v := range vals {
			lines = append(lines, name+": "+v)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func TestHeadersGolden(t *testing.T) {
	now := t0
	tests := []struct {
		name string
		res  Result
	}{
		{name: "allowed", res: Result{Allowed: true, Limit: 60, Remaining: 12, Reset: now.Add(30 * time.Second), Window: time.Minute,
			Rule: "per-principal", Policy: policyMember("per-principal", MustParseRate("60/m"))}},
		{name: "allowed-subsecond-reset-rounds-up", res: Result{Allowed: true, Limit: 10, Remaining: 9, Reset: now.Add(300 * time.Millisecond), Window: time.Second,
			Rule: "per-principal-tool", Policy: policyMember("per-principal-tool", MustParseRate("10/s"))}},
		{name: "denied", res: Result{Allowed: false, Limit: 1000, Remaining: 0, Reset: now.Add(42*time.Minute + 500*time.Millisecond), Window: time.Hour,
			Rule: "per-agent", Policy: policyMember("per-agent", MustParseRate("1000/h"))}},
		{name: "denied-reset-passed-still-retry-1", res: Result{Allowed: false, Limit: 5, Remaining: 0, Reset: now.Add(-time.Second), Window: 24 * time.Hour,
			Rule: "daily", Policy: policyMember("daily", MustParseRate("5/d"))}},
		{name: "store-unavailable", res: Result{Allowed: false, Reset: now.Add(time.Second), Rule: "per-principal"}},
		{name: "no-rule", res: Result{Allowed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			setHeaders(h, tt.res, now)
			got := formatHeaders(h)
			path := filepath.Join("testdata", "headers", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("headers:\n%s\nwant (%s):\n%s", got, path, want)
			}
		})
	}
}

// TestRetryAfterMatchesT pins that Retry-After and the RateLimit t
// parameter agree and are at least 1 on every refusal.
func TestRetryAfterMatchesT(t *testing.T) {
	for _, d := range []time.Duration{-time.Hour, 0, time.Nanosecond, 999 * time.Millisecond, time.Second, 1500 * time.Millisecond, time.Hour} {
		h := http.Header{}
		res := Result{Allowed: false, Limit: 1, Reset: t0.Add(d), Window: time.Minute, Rule: "r", Policy: `"r";q=1;w=60`}
		setHeaders(h, res, t0)
		ra := h.Get("Retry-After")
		if ra == "" || ra == "0" || !strings.HasSuffix(h.Get("RateLimit"), ";t="+ra) {
			t.Fatalf("reset in %v: Retry-After %q, RateLimit %q", d, ra, h.Get("RateLimit"))
		}
	}
}

func TestWriteHeadersWritesNoBody(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteHeaders(rec, Result{Allowed: false, Limit: 1, Reset: time.Now().Add(time.Minute), Rule: "r", Policy: `"r";q=1;w=60`})
	if rec.Body.Len() != 0 || rec.Code != http.StatusOK {
		t.Fatalf("WriteHeaders wrote a body %q or status %d", rec.Body.String(), rec.Code)
	}
	if rec.Header().Get("Retry-After") == "" || rec.Header().Get("RateLimit-Policy") != `"r";q=1;w=60` {
		t.Fatalf("headers %v", rec.Header())
	}
}

func TestSFStringEscapes(t *testing.T) {
	tests := map[string]string{
		"per-principal": `"per-principal"`,
		`a"b\c`:         `"a\"b\\c"`,
		"tab\there":     `"tab?here"`,
		"é":             `"??"`,
	}
	for in, want := range tests {
		if got := sfString(in); got != want {
			t.Errorf("sfString(%q) = %s, want %s", in, got, want)
		}
	}
}
