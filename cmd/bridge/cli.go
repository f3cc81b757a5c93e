package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/a2a-mcp-bridge/bridge/a2a"
	"github.com/a2a-mcp-bridge/bridge/a2a/store"
	"github.com/a2a-mcp-bridge/bridge/a2a/taskmanager"
	"github.com/a2a-mcp-bridge/bridge/config"
	"github.com/a2a-mcp-bridge/bridge/examples"
	"github.com/a2a-mcp-bridge/bridge/gateway"
)

const usage = `bridge joins A2A agents and MCP servers and guards every hop between them.

Usage:
  bridge serve --config FILE [--store URL] [--debug-addr 127.0.0.1:PORT]
                                                 run the bridge described by FILE (every face, every hop);
                                                 --debug-addr serves Go runtime profiles on loopback
  bridge mcp --config FILE                       serve the exposed agents as MCP tools over stdio (Claude Desktop)
  bridge demo [--addr HOST:PORT] [--store URL]   run the demo: the embedded examples/demo.yaml (--print-config
                                                 prints it), served as bridge serve serves a file
  bridge check-config [--probe|--file-only] FILE validate a config file and what it needs here (keys, commands,
                                                 store, Redis; --probe: upstreams and issuers); print every problem
                                                 with its position
  bridge status [--admin URL] [--json]           print a running bridge's upstreams, routes, tasks and refusals
                                                 from its admin listener (default http://127.0.0.1:9090;
                                                 credentials from env BRIDGE_ADMIN_TOKEN or --token-file)
  bridge prune --store URL [--older-than 168h]   delete finished tasks (and their events) older than the age
  bridge keys generate [--alg ES256|EdDSA] FILE  write a new card-signing key (PEM, mode 0600)
  bridge keys jwks PEM...                        print the public keys of PEM files as a JWKS
  bridge card sign --key PEM CARD                print CARD signed (detached JWS over its JCS form)
  bridge card verify --jwks JWKS CARD            verify CARD's signature against trusted keys
  bridge version                                 print the version and the protocols spoken
  bridge help                                    print this help
`

// errUsage marks errors that should print the usage.
var errUsage = errors.New("usage")

type command struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"serve", runServe},
		{"mcp", runMCP},
		{"demo", runDemo},
		{"check-config", runCheckConfig},
		{"status", runStatus},
		{"keys", runKeys},
		{"prune", runPrune},
		{"card", runCard},
		{"version", runVersion},
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			if err := c.run(ctx, args[1:], stdout, stderr); err != nil {
				if errors.Is(err, flag.ErrHelp) {
					return 0
				}
				fmt.Fprintf(stderr, "bridge %s: %v\n", c.name, err)
				if errors.Is(err, errUsage) {
					fmt.Fprint(stderr, usage)
				}
				return 1
			}
			return 0
		}
	}
	fmt.Fprintf(stderr, "bridge: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func runVersion(_ context.Context, _ []string, stdout, _ io.Writer) error {
	fmt.Fprintf(stdout, "bridge %s\nA2A protocol: %s (JSON-RPC, HTTP+JSON, SSE, gRPC)\nMCP protocol: 2025-06-18, 2025-11-25, 2026-07-28 (stdio, streamable HTTP)\n", gateway.Version, a2a.ProtocolVersion)
	return nil
}

// runDemo is `bridge demo`: the embedded configuration (examples/demo.yaml,
// printed by --print-config) with the flags applied, served exactly as
// `bridge serve` serves a file.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (listen:); loopback only, as the demo's callers are anonymous")
	publicURL := fs.String("public-url", "", "URL clients reach the bridge at (public_url:; default http://ADDR)")
	storeURL := fs.String("store", "", "task store (store:): sqlite:PATH (default: sqlite: in the user cache directory, keeping tasks across restarts), postgres://… (replicas) or memory:")
	leaseTTL := fs.Duration("lease-ttl", 15*time.Second, "run lease of a task (tasks.lease_ttl:): how soon another replica notices that the one running it died")
	maintEvery := fs.Duration("maintenance-every", time.Minute, "how often finished tasks are pruned (retention.sweep_interval:; orphaned tasks are failed at start-up and every quarter of --lease-ttl, at most 4s apart)")
	grace := fs.Duration("shutdown-grace", 10*time.Second, "how long running requests, streams and tasks may finish after SIGTERM before the tasks still running end FAILED (server.shutdown_grace:)")
	unsafeLoopback := fs.Bool("unsafe-allow-loopback-push", false, "let push webhooks reach 127.0.0.0/8 over plain http (netguard.unsafe_allow: [127.0.0.0/8], netguard.unsafe_allow_http: true; conformance kit only; never in production)")
	printConfig := fs.Bool("print-config", false, "print the demo's configuration ("+examples.DemoFile+") and exit: a file to start `bridge serve --config` from")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *printConfig {
		_, err := stdout.Write(examples.DemoYAML())
		return err
	}
	st := *storeURL
	if st == "" {
		path, err := demoStorePath()
		if err != nil {
			return err
		}
		st = "sqlite:" + path
	}
	cfg, err := examples.Demo(func(c *config.Config) {
		c.Listen, c.PublicURL, c.Store = *addr, *publicURL, st
		c.Tasks.LeaseTTL = config.Duration(*leaseTTL)
		c.Retention.SweepInterval = config.Duration(*maintEvery)
		c.Server.ShutdownGrace = config.Duration(*grace)
		if *unsafeLoopback {
			c.Netguard.UnsafeAllow = append(c.Netguard.UnsafeAllow, "127.0.0.0/8")
			c.Netguard.UnsafeAllowHTTP = true
		}
	})
	var ps config.Problems
	if errors.As(err, &ps) {
		for _, p := range ps {
			fmt.Fprintln(stderr, p.Error())
		}
		return fmt.Errorf("the demo's configuration with these flags has %d problem(s) (bridge demo --print-config shows it)", len(ps))
	}
	if err != nil {
		return err
	}
	return serveConfig(ctx, cfg, serveOptions{banner: demoBanner}, stdout, stderr)
}

// demoBanner prints where the demo's agents are (the names of
// examples/demo.yaml).
func demoBanner(stdout io.Writer, pub string) {
	fmt.Fprintf(stdout, "demo agent at %s/a2a/echo (card: %s/.well-known/agent-card.json)\n"+
		"demo MCP tools published as an agent at %s/a2a/tools\n"+
		"demo agent exposed as MCP tools at %s/mcp\n"+
		"metrics at %s/metrics; configuration: %s (bridge demo --print-config)\n", pub, pub, pub, pub, pub, examples.DemoFile)
}

// demoStorePath is the demo's default SQLite file, in the user's cache
// directory (the system's temporary directory when there is none).
func demoStorePath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "a2a-mcp-bridge")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the demo's store directory: %w", err)
	}
	return filepath.Join(dir, "demo.db"), nil
}

// displayAddr turns a bound address into one a client can dial.
func displayAddr(a string) string {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return a
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

func openStore(ctx context.Context, url string) (taskmanager.Store, func(), error) {
	s, closeFn, err := store.Open(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	return s, func() { _ = closeFn() }, nil
}

func runPrune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("prune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	storeURL := fs.String("store", "", "task store: sqlite:PATH or postgres://…")
	age := fs.Duration("older-than", 7*24*time.Hour, "delete tasks that finished longer ago than this")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *storeURL == "" || *age <= 0 {
		return fmt.Errorf("%w: prune --store URL [--older-than DURATION]", errUsage)
	}
	st, closeStore, err := openStore(ctx, *storeURL)
	if err != nil {
		return err
	}
	defer closeStore()
	n, err := st.Prune(ctx, time.Now().Add(-*age))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pruned %d finished tasks older than %s\n", n, *age)
	return nil
}
