package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/gateway"
	"github.com/a2a-mcp-bridge/bridge/gateway/listener"
	configreload "github.com/a2a-mcp-bridge/bridge/gateway/reload"
	"github.com/a2a-mcp-bridge/bridge/observe"
)

// loadConfig loads FILE and prints every problem to stderr.
func loadConfig(file string, stderr io.Writer) (*config.Config, error) {
	if file == "" {
		return nil, fmt.Errorf("name a configuration file with --config FILE: %w", errUsage)
	}
	cfg, err := config.Load(file)
	var ps config.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			fmt.Fprintln(stderr, p.Error())
		}
		return nil, fmt.Errorf("%s: %d problem(s); run bridge check-config %s", file, len(ps), file)
	}
	return cfg, err
}

// configLogger builds the logger the observability section asks for, with
// the request id (and trace id, when traced) added to every line logged in
// a request's context.
func configLogger(o config.Observability, w io.Writer) *slog.Logger {
	l, _ := bufferedLogger(o, w)
	return l
}

// bufferedLogger is configLogger with observability.log_flush_interval:
// the lines below warn level are written in batches (observe.LogBuffer);
// flush writes what is buffered and must run before the process exits.
func bufferedLogger(o config.Observability, w io.Writer) (_ *slog.Logger, flush func() error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	return observe.BufferedLogger(observe.LogConfig{Format: o.LogFormat, Level: level, Output: w, FlushInterval: o.LogFlushInterval.D()})
}

// startTracing installs the OTLP exporter when observability.otlp_endpoint
// is set (tracing is off otherwise). The returned function flushes and
// stops it.
func startTracing(ctx context.Context, o config.Observability, log *slog.Logger) (stop func(), err error) {
	shutdown, err := observe.Tracing(ctx, observe.TracingConfig{Endpoint: o.OTLPEndpoint, ServiceName: o.ServiceName})
	if err != nil {
		return func() {}, err
	}
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			log.Warn("flushing traces failed", "err", err)
		}
	}, nil
}

// runServe is `bridge serve --config FILE`: it builds the bridge from the
// file, serves every face on the configured listener, and drains on
// SIGTERM (ctx ending) within server.shutdown_grace.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", "", "configuration file (YAML)")
	storeURL := fs.String("store", "", "task store URL, overriding the file's store: (sqlite:PATH, postgres://…, memory:)")
	debugAddr := fs.String("debug-addr", "", "loopback address serving Go runtime profiles at /debug/pprof/ (go tool pprof); default: none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig(*file, stderr)
	if err != nil {
		return err
	}
	if *storeURL != "" {
		cfg.Store = *storeURL
	}
	return serveConfig(ctx, cfg, serveOptions{file: *file, debugAddr: *debugAddr}, stdout, stderr)
}

// serveOptions are what `bridge serve` and `bridge demo` do differently
// around the one build and serve path.
type serveOptions struct {
	// file is reloaded on SIGHUP (and watched with reload.watch); "" for
	// an embedded configuration, which is not reloaded.
	file string
	// debugAddr serves Go runtime profiles ("" : none).
	debugAddr string
	// banner, if set, prints what is served once the bridge is built.
	banner func(stdout io.Writer, pub string)
}

// serveConfig builds the bridge from cfg, serves every face on its
// listener, and drains on SIGTERM (ctx ending) within
// server.shutdown_grace.
func serveConfig(ctx context.Context, cfg *config.Config, o serveOptions, stdout, stderr io.Writer) error {
	log, flushLog := bufferedLogger(cfg.Observability, stderr)
	defer func() { _ = flushLog() }() // last, after every line of the shutdown
	defer startGCFloor(int64(cfg.Server.GCMinHeap))()
	if o.debugAddr != "" {
		stopDebug, err := startDebug(o.debugAddr, log)
		if err != nil {
			return err
		}
		defer stopDebug()
	}
	stopTracing, err := startTracing(ctx, cfg.Observability, log)
	if err != nil {
		return err
	}
	defer stopTracing()
	reg := prometheus.NewRegistry()
	l := &listener.Listener{
		Addr: cfg.Listen, Grace: cfg.Server.ShutdownGrace.D(), Log: log,
		ReadHeaderTimeout: cfg.Server.ReadHeaderTimeout.D(), ReadTimeout: cfg.Server.ReadTimeout.D(), IdleTimeout: cfg.Server.IdleTimeout.D(),
		MaxConns: cfg.Server.MaxConnections, MaxConnsPerClient: cfg.Server.MaxConnectionsPerClient, Registerer: reg,
	}
	if g := cfg.Server.GRPC; g.Enabled {
		// gRPC on the main listener needs HTTP/2 without TLS; on its own
		// listener, that listener is bound now with the main one.
		l.UnencryptedHTTP2 = g.Listen == ""
		l.GRPCAddr = g.Listen
	}
	if err := l.Listen(); err != nil {
		return err
	}
	pub := cfg.PublicURL
	if pub == "" {
		pub = "http://" + displayAddr(l.BoundAddr())
	}
	b, err := gateway.Build(ctx, cfg, gateway.Options{Logger: log, PublicURL: pub, Registry: reg})
	if err != nil {
		return err
	}
	defer b.Close()
	l.Handler = b.Handler()
	l.GRPC = b.GRPC()
	l.OnDrain, l.Settle, l.Stop = b.GoingAway, b.Settle, b.Stop

	bg, stopBG := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { b.Run(bg) })
	defer func() { stopBG(); waitBounded(&wg, backgroundStopWait) }()
	if o.file != "" {
		stopReload := watchReload(ctx, o.file, cfg, b, log)
		defer stopReload()
	}

	log.Info("bridge serving", "addr", l.BoundAddr(), "public_url", pub, "version", gateway.Version)
	if g := cfg.Server.GRPC; g.Enabled {
		where := "the main listener (h2c)"
		if g.Listen != "" {
			where = g.Listen
		}
		log.Info("A2A gRPC binding served", "on", where, "tls", g.CertFile != "")
	}
	fmt.Fprintf(stdout, "bridge serving on %s (public URL %s)\n", l.BoundAddr(), pub)
	if o.banner != nil {
		o.banner(stdout, pub)
	}
	if cfg.Admin.Enabled() {
		stopAdmin, err := startAdmin(ctx, cfg, b, log, stdout)
		if err != nil {
			return err
		}
		defer stopAdmin()
	}
	return l.Serve(ctx)
}

// backgroundStopWait bounds the wait for the background jobs (push
// delivery, card refresh, maintenance) to return once told to stop.
const backgroundStopWait = 200 * time.Millisecond

// waitBounded waits for wg, at most d.
func waitBounded(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// watchReload reloads the file on SIGHUP and, with reload.watch, when its
// content or the content of a file it names changes (see
// gateway.Bridge.Reload); an invalid file is logged and the running
// configuration kept.
func watchReload(ctx context.Context, file string, cfg *config.Config, b *gateway.Bridge, log *slog.Logger) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	rctx, cancel := context.WithCancel(ctx)
	reload := func(why string) {
		next, err := config.Load(file)
		if err != nil {
			var ps config.Problems
			if errors.As(err, &ps) {
				for _, p := range ps {
					log.Error("reload: problem in the configuration", "problem", p.Error())
				}
			}
			log.Error("reload refused; the running configuration is kept", "file", file, "trigger", why, "err", err)
			return
		}
		if err := b.Reload(next); err != nil {
			log.Error("reload refused; the running configuration is kept", "file", file, "trigger", why, "err", err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var changed <-chan struct{}
		if cfg.Reload.Watch {
			changed = configreload.WatchFiles(rctx, cfg.Reload.WatchInterval.D(), func() []string { return append([]string{file}, b.WatchedFiles()...) })
			log.Info("watching the configuration for changes", "file", file, "every", cfg.Reload.WatchInterval.D().String())
		}
		for {
			select {
			case <-rctx.Done():
				return
			case <-ch:
				reload("SIGHUP")
			case <-changed:
				reload("file changed")
			}
		}
	}()
	return func() { signal.Stop(ch); cancel(); <-done }
}

// runMCP is `bridge mcp --config FILE`: the exposed agents as MCP tools on
// stdin/stdout, for desktop hosts. Logs go to stderr; stdout carries MCP
// only.
func runMCP(ctx context.Context, args []string, _, stderr io.Writer) error {
	return serveMCP(ctx, args, os.Stdin, os.Stdout, stderr)
}

func serveMCP(ctx context.Context, args []string, in io.Reader, out, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("config", "", "configuration file (YAML)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig(*file, stderr)
	if err != nil {
		return err
	}
	if !cfg.Expose.MCP.Stdio {
		return errors.New("expose.mcp.stdio is false: set it to serve the exposed agents over stdio")
	}
	if len(cfg.Expose.Agents) == 0 {
		return errors.New("expose.agents is empty: there is nothing to serve over stdio")
	}
	log := configLogger(cfg.Observability, stderr)
	b, err := gateway.Build(ctx, cfg, gateway.Options{Logger: log, MCPOnly: true})
	if err != nil {
		return err
	}
	defer b.Close()
	bg, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { b.Run(bg) })
	defer func() { stopBG(); waitBounded(&wg, backgroundStopWait) }()
	// SIGTERM: new requests are refused, those in flight may finish within
	// server.shutdown_grace, then they are cancelled.
	return b.Face().ServeStdioGracefully(ctx, cfg.Server.ShutdownGrace.D(), in, out)
}
