// Command benchsut serves one system under test of the benchmark suite on
// loopback: the fast upstream agent (-role upstream), the fast MCP server
// of the translation benchmarks (-role mcp, at /mcp), or the bench-only
// composition of the bridge fronting the agent with auth, policy and rate
// limits on (-role bridge; a diagnostic beside the real `bridge serve`).
// A second loopback listener (-debug) serves /stats (allocation counters,
// requests, RSS) and net/http/pprof, for the harness in bench/run.sh.
// -role keys writes the key files and the caller's token `bridge serve`
// uses in the benchmark (bench/bridge.yaml) and exits; -role pg creates (or
// with -drop drops) the bench's own schema on a PostgreSQL server and prints
// the store URL that uses it.
//
//	benchsut -role upstream -listen 127.0.0.1:18081
//	benchsut -role mcp -listen 127.0.0.1:18084
//	benchsut -role bridge -listen 127.0.0.1:18083 -upstream http://127.0.0.1:18081 -token-file tok
//	benchsut -role keys -dir DIR -public-url http://127.0.0.1:18085
//	benchsut -role pg -pg-url postgres://… -schema bench_1234 [-drop]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/bench"
	"github.com/a2a-mcp-bridge/bridge/netguard"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchsut:", err)
		os.Exit(1)
	}
}

func run() error {
	role := flag.String("role", "", "upstream, mcp, bridge, keys or pg")
	pgURL := flag.String("pg-url", "", "PostgreSQL server URL (role pg)")
	schema := flag.String("schema", "", "schema of the bench's own (role pg)")
	drop := flag.Bool("drop", false, "drop the schema instead of creating it (role pg)")
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to serve on")
	debug := flag.String("debug", "", "loopback address of /stats and /debug/pprof (empty: none)")
	upstream := flag.String("upstream", "", "base URL of the upstream agent (role bridge)")
	tokenFile := flag.String("token-file", "", "file to write the bridge's bearer token to (role bridge)")
	h1direct := flag.Bool("h1direct", true, "relay to the upstream with netguard's HTTP/1.1 direct transport (Config.HTTP1Direct); -h1direct=false uses net/http's (role bridge)")
	dir := flag.String("dir", "", "directory the key files and the token are written to (role keys)")
	publicURL := flag.String("public-url", "", "the bridge's public URL, the token's audience (role keys)")
	retain := flag.Duration("retain", 10*time.Second, "prune finished tasks older than this, every second (the retention bridge serve applies), so the memory store holds a steady state rather than every task of the run; 0 keeps them all")
	flag.Parse()
	if *role == "pg" {
		return pgSchema(*pgURL, *schema, *drop)
	}
	if *role == "keys" {
		if *dir == "" || *publicURL == "" {
			return errors.New("-dir and -public-url are required with -role keys")
		}
		k, err := bench.WriteServeKeys(*dir, *publicURL)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(*dir, "token"), []byte(k.Token), 0o600)
	}

	ln, err := loopbackListen(*listen)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var h http.Handler
	var wait func()
	var mgr *taskmanager.Manager
	var prune func(context.Context) (int, error) // every finished task, now
	switch *role {
	case "upstream":
		up, err := bench.NewUpstream(base, nil)
		if err != nil {
			return err
		}
		h, wait, mgr = up.Handler, up.Manager.Wait, up.Manager
		prune = func(ctx context.Context) (int, error) { return up.Store.Prune(ctx, time.Now()) }
	case "mcp":
		mux := http.NewServeMux()
		mux.Handle("/mcp", bench.NewMCPServer(nil))
		h, wait = mux, func() {}
	case "bridge":
		if *upstream == "" {
			return errors.New("-upstream is required with -role bridge")
		}
		br, err := bench.NewBridge(ctx, bench.BridgeConfig{
			UpstreamCardURL: strings.TrimSuffix(*upstream, "/") + "/.well-known/agent-card.json", BaseURL: base,
			// The client the gateway gives a fronted agent: netguard's
			// trusted client for streams (no overall timeout, no body cap)
			// on the HTTP/1.1 direct transport, which cut the bridge's CPU
			// per relayed call by about 10% in A/B runs.
			HTTPClient: netguard.Trusted(netguard.Config{Timeout: -1, MaxBodyBytes: -1, HTTP1Direct: *h1direct}),
		})
		if err != nil {
			return err
		}
		defer br.Limiter.Close()
		if *tokenFile != "" {
			if err := os.WriteFile(*tokenFile, []byte(br.Token), 0o600); err != nil {
				return fmt.Errorf("write token file: %w", err)
			}
		}
		h, wait, mgr = br.Handler, br.Manager.Wait, br.Manager
	default:
		return errors.New("-role must be upstream, mcp, bridge or keys")
	}
	if *retain > 0 && mgr != nil {
		go mgr.RunMaintenance(ctx, time.Second, *retain)
	}

	var requests atomic.Int64
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: counted, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()

	var dsrv *http.Server
	if *debug != "" {
		dln, err := loopbackListen(*debug)
		if err != nil {
			return err
		}
		dsrv = &http.Server{Handler: debugMux(&requests, prune), ReadHeaderTimeout: 10 * time.Second}
		go func() { errc <- dsrv.Serve(dln) }()
	}
	fmt.Printf("benchsut: %s serving %s (pid %d)\n", *role, base, os.Getpid())

	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if dsrv != nil {
		_ = dsrv.Shutdown(sctx)
	}
	srv.Close()
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-done:
	case <-sctx.Done():
	}
	return nil
}

// pgSchema creates (or drops) schema on the server at url and prints the
// store URL that uses it (search_path).
func pgSchema(url, schema string, drop bool) error {
	if url == "" || !regexp.MustCompile(`^bench_[a-z0-9_]{1,40}$`).MatchString(schema) {
		return errors.New("-pg-url and -schema bench_[a-z0-9_]+ are required with -role pg")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	q := "create schema if not exists " + pgx.Identifier{schema}.Sanitize()
	if drop {
		q = "drop schema if exists " + pgx.Identifier{schema}.Sanitize() + " cascade"
	}
	if _, err := conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	if !drop {
		sep := "?"
		if strings.Contains(url, "?") {
			sep = "&"
		}
		fmt.Println(url + sep + "search_path=" + schema)
	}
	return nil
}

// loopbackListen listens on addr, which must be a loopback address.
func loopbackListen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("listen address %q: only loopback addresses are allowed", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	return ln, nil
}

// stats is the /stats answer: cumulative counters the harness diffs.
type stats struct {
	Requests   int64  `json:"requests"`
	Mallocs    uint64 `json:"mallocs"`
	TotalAlloc uint64 `json:"total_alloc"`
	HeapInuse  uint64 `json:"heap_inuse"`
	Goroutines int    `json:"goroutines"`
	RSSKiB     int64  `json:"rss_kib"`
}

func debugMux(requests *atomic.Int64, prune func(context.Context) (int, error)) *http.ServeMux {
	mux := http.NewServeMux()
	// reset prunes every finished task now and collects garbage, so that
	// each closed-loop run starts from the same agent whatever ran before
	// it: a run right after the direct one (about 100k tasks still
	// retained) cost the agent 90-108 µs of CPU per expose call against
	// 63-80 after a quiet gap, with about twice wrk's p99, whichever bridge
	// was measured (the translate scenario's expose row follows direct, its
	// -base row does not).
	mux.HandleFunc("POST /debug/reset", func(w http.ResponseWriter, r *http.Request) {
		if prune != nil {
			if _, err := prune(r.Context()); err != nil {
				http.Error(w, "benchsut: reset: prune: "+err.Error(), http.StatusInternalServerError)
				return
			}
		}
		runtime.GC()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("gc") == "1" {
			runtime.GC()
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(stats{
			Requests: requests.Load(), Mallocs: ms.Mallocs, TotalAlloc: ms.TotalAlloc, HeapInuse: ms.HeapInuse,
			Goroutines: runtime.NumGoroutine(), RSSKiB: rssKiB(),
		})
	})
	// settle collects garbage and returns free memory to the OS, so that
	// an RSS read after it counts what is retained, not what is waiting
	// for the next collection.
	mux.HandleFunc("POST /debug/settle", func(w http.ResponseWriter, r *http.Request) {
		debug.FreeOSMemory() // runs a collection first
		w.WriteHeader(http.StatusNoContent)
	})
	// The Go collector's series bench/cmd/load -inuse and bench/run.sh
	// read, in the Prometheus text format bridge serve's /metrics has them in.
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "go_memstats_heap_inuse_bytes %d\ngo_memstats_stack_inuse_bytes %d\ngo_memstats_mallocs_total %d\n", ms.HeapInuse, ms.StackInuse, ms.Mallocs)
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	return mux
}

// rssKiB reads VmRSS from /proc/self/status (-1 when unavailable).
func rssKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
