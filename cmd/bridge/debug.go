package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/a2a-mcp-bridge/bridge/netguard"
)

// startDebug serves Go's runtime profiles (net/http/pprof) on addr, which
// must be a loopback address: profiles show what the process is doing
// (stacks, allocation sites, command line), so they are never served on the
// bridge's own listener nor off the machine. It returns the function that
// stops the listener.
func startDebug(addr string, log *slog.Logger) (stop func(), err error) {
	if !netguard.IsLoopbackHost(addr) {
		return nil, fmt.Errorf("--debug-addr %q: profiles are served on a loopback address only (127.0.0.1:PORT, [::1]:PORT, localhost:PORT)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--debug-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("debug listener stopped", "err", err)
		}
	}()
	log.Warn("debug listener serving Go runtime profiles (net/http/pprof); anyone on this machine can read them", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
