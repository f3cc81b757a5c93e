package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestDebugAddrRefusesNonLoopback: profiles name the process's internals;
// they are never served off the machine.
func TestDebugAddrRefusesNonLoopback(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:6060", "example.com:6060"} {
		if stop, err := startDebug(addr, log); err == nil {
			stop()
			t.Errorf("--debug-addr %s was accepted", addr)
		} else if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("--debug-addr %s: %v", addr, err)
		}
	}
}

func TestDebugAddrServesProfiles(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	stop, err := startDebug(addr, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/heap?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "heap profile") {
		t.Fatalf("heap profile: %d %.200s", resp.StatusCode, body)
	}
}
