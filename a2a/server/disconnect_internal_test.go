package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// TestClientDisconnectIsNotLoggedAsAnError: a call that ended because its
// client went away is logged at Info as a disconnect; a real failure is
// still an error.
func TestClientDisconnectIsNotLoggedAsAnError(t *testing.T) {
	tests := []struct {
		name, wantLevel, wantMsg string
		err                      error
	}{
		{"client went away", "INFO", "a2a: client disconnected before the response", fmt.Errorf("a2a: wait: %w", context.Canceled)},
		{"store failed", "ERROR", "a2a: request failed", errors.New("store: disk full")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			s := &Server{cfg: Config{Logger: slog.New(slog.NewTextHandler(&buf, nil))}}
			if e := s.loggedError(tt.err); e != a2a.ErrInternal {
				t.Fatalf("wire error %v, want internal", e)
			}
			line := buf.String()
			if !strings.Contains(line, "level="+tt.wantLevel) || !strings.Contains(line, `msg="`+tt.wantMsg+`"`) {
				t.Fatalf("log %q, want level %s msg %q", line, tt.wantLevel, tt.wantMsg)
			}
		})
	}
}
