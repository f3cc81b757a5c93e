// Command mcptestserver serves the connectortest tools, with the
// process-only tools (crash, env): over stdio by default, or over
// streamable HTTP at ADDR/mcp with -http ADDR. Tests build and run it as a
// child, and the fault suite restarts it to see the bridge reconnect.
//
//	mcptestserver                          stdio
//	mcptestserver -http 127.0.0.1:9000     streamable HTTP, every protocol version
//	mcptestserver -http ADDR -sessions     stateful sessions on the 2025 versions
//	                                       only: a session it does not know
//	                                       (after a restart) is answered 404
//	mcptestserver -extra-tool NAME         one more tool (an echo), so that a
//	                                       restart can change the tool list
//
// Arguments it does not know are ignored (it serves stdio then): tests
// also run it as a stand-in for `npx -y PACKAGE`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/a2a-mcp-bridge/bridge/mcp/connector/connectortest"
)

func main() {
	fs := flag.NewFlagSet("mcptestserver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	httpAddr := fs.String("http", "", "serve streamable HTTP at `ADDR`/mcp instead of stdio")
	sessions := fs.Bool("sessions", false, "with -http: stateful sessions, protocol versions 2025-11-25 and 2025-06-18 only")
	extra := fs.String("extra-tool", "", "add an echo tool of this `NAME`")
	if err := fs.Parse(os.Args[1:]); err != nil {
		*httpAddr, *sessions, *extra = "", false, ""
	}
	s := connectortest.NewServer(connectortest.Options{Process: true, ExtraTool: *extra})
	if *httpAddr == "" {
		fmt.Fprintln(os.Stderr, "mcptestserver: ready")
		if err := server.ServeStdio(s.MCP); err != nil {
			fmt.Fprintln(os.Stderr, "mcptestserver:", err)
			os.Exit(1)
		}
		return
	}
	var opts []server.StreamableHTTPOption
	if *sessions {
		opts = append(opts, server.WithStateful(true),
			server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125, mcp.ProtocolVersion20250618))
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s.MCP, opts...))
	srv := &http.Server{Addr: *httpAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintln(os.Stderr, "mcptestserver: listening on", *httpAddr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "mcptestserver:", err)
		os.Exit(1)
	}
}
