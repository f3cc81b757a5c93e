#!/usr/bin/env bash
# The benchmark suite (`make bench`; method: notes/perf.md §4, issue 16).
#
# Measures, side by side on loopback in one run, interleaved round by round:
#
#   front       A2A SendMessage to a fast agent: direct, through nginx (plain
#               reverse proxy), through `bridge serve` (the binary users run,
#               built from ./cmd/bridge, started from bench/bridge.yaml: JWT,
#               deny-by-default CEL policy, limits, metrics, access log) on
#               the memory, SQLite and PostgreSQL stores, and through the
#               bench-only composition bench/cmd/benchsut (a diagnostic: the
#               same parts without the gateway's middleware)
#   translate   MCP tools/call through expose to that agent vs SendMessage to
#               it directly; A2A SendMessage through publish to a fast MCP
#               server vs tools/call to it directly; streaming variants
#   grpc        the front over gRPC (server.grpc on the main listener, h2c)
#               beside the front over JSON-RPC, blocking and streaming, at
#               one fixed rate (open loop): what the binding adds
#
# and reports throughput ratios (closed loop, wrk), added p50/p99 at a fixed
# moderate rate (open loop, bench/cmd/load), time to the first SSE event, RSS
# and Go memory per idle SSE stream, allocations per request or call (the
# bridge's own runtime counters over the closed-loop runs) and the CPU
# profiles of `bridge serve` under load. Writes bench/out/report.md
# (bench/report.sh); bench/README.md says how to read it. Installs
# nginx-light, wrk and jq with apt when missing.
#
# Knobs (environment): DURATION=5 (s per closed-loop run), ROUNDS=3,
# CONNS=32, RATE_SECONDS=8, TTFE_N=300, IDLE_STEPS=1000,5000, BENCH_COUNT=3,
# SERVER_CPU=1, LOAD_CPU=0, BASE_PORT=18080, RETAIN_S=10 (seconds the stores
# keep finished tasks), PROFILE=1 (0: no CPU profiles), SCENARIOS="front
# translate grpc ttfe idle profile gobench" (a subset runs only those; front runs
# with translate in the same rounds when both are named),
# BENCH_POSTGRES_URL (else BRIDGE_TEST_POSTGRES_URL; neither: no PostgreSQL
# row), BASE_BRIDGE (a bridge binary built from another commit: it runs
# beside this one on the memory and SQLite stores, as the rows
# serve-memory-base and serve-sqlite-base, for a before/after in one run),
# BENCH_TAGS (build tags for this tree's bridge, e.g. bridge_noh1pool),
# BASE_TAGS (without BASE_BRIDGE: build the baseline from this tree with
# these tags, so that a trick runs on against off in one run; docs/
# performance.md lists the tags). The PostgreSQL row uses a schema of its
# own on that server, dropped at the end; the server itself is never
# touched otherwise.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
OUT=${BENCHOUT:-$ROOT/bench/out}
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
export CONNS=${CONNS:-32}
RATE_SECONDS=${RATE_SECONDS:-8}
TTFE_N=${TTFE_N:-300}
IDLE_STEPS=${IDLE_STEPS:-1000,5000}
BENCH_COUNT=${BENCH_COUNT:-3}
BASE_PORT=${BASE_PORT:-18080}
RETAIN_S=${RETAIN_S:-10}
PROFILE=${PROFILE:-1}
SCENARIOS=${SCENARIOS:-front translate grpc ttfe idle profile gobench}
PG_BASE=${BENCH_POSTGRES_URL:-${BRIDGE_TEST_POSTGRES_URL:-}}
GO=${GO:-go}
BENCH_TAGS=${BENCH_TAGS:-}
BASE_TAGS=${BASE_TAGS:-}

log() { printf '== %s\n' "$*" >&2; }
want() { [[ " $SCENARIOS " == *" $1 "* ]]; }

# ---------------------------------------------------------------- tools

need() { # need <command> <debian package>
	command -v "$1" >/dev/null 2>&1 && return
	log "installing $2"
	if ! apt-get install -y "$2" >/dev/null 2>&1; then
		apt-get update >/dev/null 2>&1 && apt-get install -y "$2" >/dev/null
	fi
}

install_tools() {
	need wrk wrk
	need jq jq
	need taskset util-linux
	need curl curl
	need bc bc
	if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then need nginx nginx-light; fi
	NGINX=$(command -v nginx || echo /usr/sbin/nginx)
}

# CPU layout: servers on one core, the load generator on another.
layout() {
	local ncpu
	ncpu=$(nproc)
	if [ "$ncpu" -ge 2 ]; then
		SERVER_CPU=${SERVER_CPU:-1} LOAD_CPU=${LOAD_CPU:-0}
		ON_SERVER=(taskset -c "$SERVER_CPU") ON_LOAD=(taskset -c "$LOAD_CPU")
		LAYOUT="load generator on CPU $LOAD_CPU; the peers (agent, MCP server), nginx and every bridge share CPU $SERVER_CPU (GOMAXPROCS=1, nginx 1 worker)"
	else
		ON_SERVER=() ON_LOAD=()
		LAYOUT="single CPU: everything shares it (GOMAXPROCS=1, nginx 1 worker)"
	fi
}

build() {
	log "building bridge (./cmd/bridge${BENCH_TAGS:+, tags $BENCH_TAGS}), benchsut, load"
	$GO build -o "$OUT/bin/" ./bench/cmd/benchsut ./bench/cmd/load
	$GO build -tags "$BENCH_TAGS" -o "$OUT/bin/bridge" ./cmd/bridge
	BRIDGE=$OUT/bin/bridge SUT=$OUT/bin/benchsut LOAD=$OUT/bin/load
	if [ -z "${BASE_BRIDGE:-}" ] && [ -n "$BASE_TAGS" ]; then
		log "building the baseline bridge from this tree with tags $BASE_TAGS"
		$GO build -tags "$BASE_TAGS" -o "$OUT/bin/bridge-base" ./cmd/bridge
		BASE_BRIDGE=$OUT/bin/bridge-base
	fi
}

# ---------------------------------------------------------------- processes

PIDS=()
PG_SCHEMA=""
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	if [ -n "$PG_SCHEMA" ]; then "$SUT" -role pg -pg-url "$PG_BASE" -schema "$PG_SCHEMA" -drop || true; fi
	rm -rf "$TMP"
}

wait_http() { # wait_http <url>
	for _ in $(seq 300); do
		curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# Every configuration measured has a name and, in these maps: the URL the
# load goes to, the bearer token (bridges), the process measured (RSS), the
# bridge's /metrics (allocations) and debug address (profiles).
declare -A URL TOKEN PID METRICS DEBUG

UP_PORT=$((BASE_PORT + 1)) NGX_PORT=$((BASE_PORT + 2)) SUT_PORT=$((BASE_PORT + 3)) MCP_PORT=$((BASE_PORT + 4))
UP_DBG=$((BASE_PORT + 11)) SUT_DBG=$((BASE_PORT + 13))

start_peers() {
	log "starting the agent and the MCP server"
	GOMAXPROCS=1 "${ON_SERVER[@]}" "$SUT" -role upstream -listen 127.0.0.1:$UP_PORT -debug 127.0.0.1:$UP_DBG -retain "${RETAIN_S}s" >"$OUT/raw/upstream.log" 2>&1 &
	PID[direct]=$! && PIDS+=("$!")
	GOMAXPROCS=1 "${ON_SERVER[@]}" "$SUT" -role mcp -listen 127.0.0.1:$MCP_PORT >"$OUT/raw/mcp.log" 2>&1 &
	PID[mcp-direct]=$! && PIDS+=("$!")
	URL[direct]=http://127.0.0.1:$UP_PORT/ URL[mcp-direct]=http://127.0.0.1:$MCP_PORT/mcp
	METRICS[direct]=http://127.0.0.1:$UP_DBG/metrics
	wait_http "${URL[direct]}.well-known/agent-card.json"
	for _ in $(seq 100); do "$LOAD" -mode check -call mcp -url "${URL[mcp-direct]}" >/dev/null 2>&1 && break; sleep 0.1; done
}

start_nginx() {
	mkdir -p "$TMP/nginx"
	cat >"$TMP/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid $TMP/nginx/nginx.pid;
error_log $TMP/nginx/error.log warn;
events { worker_connections 16000; }
http {
  access_log off;
  client_body_temp_path $TMP/nginx/body;
  proxy_temp_path $TMP/nginx/proxy;
  fastcgi_temp_path $TMP/nginx/fastcgi;
  uwsgi_temp_path $TMP/nginx/uwsgi;
  scgi_temp_path $TMP/nginx/scgi;
  upstream agent { server 127.0.0.1:$UP_PORT; keepalive 1024; }
  server {
    listen 127.0.0.1:$NGX_PORT;
    location / {
      proxy_pass http://agent;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_read_timeout 300s;
    }
  }
}
EOF
	"${ON_SERVER[@]}" "$NGINX" -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" >"$OUT/raw/nginx.log" 2>&1 &
	PID[nginx]=$! && PIDS+=("$!")
	URL[nginx]=http://127.0.0.1:$NGX_PORT/
	wait_http "${URL[nginx]}.well-known/agent-card.json"
}

# start_serve <store name> <store URL> <port offset>: `bridge serve` from
# bench/bridge.yaml; its three faces are the configs serve-<store>
# (front), expose-<store> and publish-<store>.
start_serve() {
	local name=$1 store=$2 port=$((BASE_PORT + $3)) dbg=$((BASE_PORT + $3 + 10)) bin=${4:-$BRIDGE}
	local keys=$TMP/keys-$name base=http://127.0.0.1:$port
	local debug=(--debug-addr 127.0.0.1:$dbg) help
	help=$("$bin" serve -h 2>&1 || true)
	[[ $help == *-debug-addr* ]] || debug=() # a baseline from before --debug-addr
	mkdir -p "$keys"
	"$SUT" -role keys -dir "$keys" -public-url "$base"
	BENCH_LISTEN=127.0.0.1:$port BENCH_KEYS=$keys BENCH_UPSTREAM=http://127.0.0.1:$UP_PORT BENCH_MCP=${URL[mcp-direct]} \
		BENCH_PORTS_UP=$UP_PORT BENCH_PORTS_MCP=$MCP_PORT BENCH_RETAIN=${RETAIN_S}s \
		GOMAXPROCS=1 "${ON_SERVER[@]}" "$bin" serve --config bench/bridge.yaml --store "$store" "${debug[@]}" \
		>"$OUT/raw/serve-$name.out" 2>"$OUT/raw/serve-$name.log" &
	local pid=$!
	PIDS+=("$pid")
	wait_http "$base/healthz"
	wait_http "$base/readyz"
	local c
	for c in serve expose publish grpc; do
		PID[$c-$name]=$pid TOKEN[$c-$name]=$(cat "$keys/token") METRICS[$c-$name]=$base/metrics
		[ ${#debug[@]} -eq 0 ] || DEBUG[$c-$name]=127.0.0.1:$dbg
	done
	URL[serve-$name]=$base/a2a/bench URL[expose-$name]=$base/mcp URL[publish-$name]=$base/a2a/tools
	URL[grpc-$name]=$base # the front's agent over gRPC: tenant bench on the same port
}

start_benchsut() {
	GOMAXPROCS=1 "${ON_SERVER[@]}" "$SUT" -role bridge -listen 127.0.0.1:$SUT_PORT -debug 127.0.0.1:$SUT_DBG -retain "${RETAIN_S}s" \
		-upstream "${URL[direct]}" -token-file "$TMP/benchsut-token" >"$OUT/raw/benchsut.log" 2>&1 &
	PID[benchsut]=$! && PIDS+=("$!")
	URL[benchsut]=http://127.0.0.1:$SUT_PORT/
	wait_http "${URL[benchsut]}.well-known/agent-card.json"
	TOKEN[benchsut]=$(cat "$TMP/benchsut-token")
	METRICS[benchsut]=http://127.0.0.1:$SUT_DBG/metrics
}

start_bridges() {
	log "starting bridge serve on the memory and SQLite stores${PG_BASE:+ and PostgreSQL}, and the benchsut diagnostic"
	start_serve memory "memory:" 5
	start_serve sqlite "sqlite:$TMP/bench.db" 6
	STORES=(memory sqlite)
	if [ -n "$PG_BASE" ]; then
		PG_SCHEMA=bench_$$
		local u
		u=$("$SUT" -role pg -pg-url "$PG_BASE" -schema "$PG_SCHEMA")
		start_serve postgres "$u" 7
		STORES+=(postgres)
	else
		log "no BENCH_POSTGRES_URL or BRIDGE_TEST_POSTGRES_URL: no PostgreSQL row"
	fi
	if [ -n "${BASE_BRIDGE:-}" ]; then
		log "starting the baseline $BASE_BRIDGE on the memory and SQLite stores"
		start_serve memory-base "memory:" 8 "$BASE_BRIDGE"
		start_serve sqlite-base "sqlite:$TMP/bench-base.db" 9 "$BASE_BRIDGE"
		STORES+=(memory-base sqlite-base)
	fi
	start_benchsut
}

# ---------------------------------------------------------------- calls

# What each config sends: the load generator's -call and arguments, and the
# same request as a wrk script.
SEND='{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"wrk-1","role":"ROLE_USER","parts":[{"text":"hello from the benchmark"}]}}}'
PUBLISH='{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"wrk-1","role":"ROLE_USER","parts":[{"data":{"tool":"echo","arguments":{"text":"hello from the benchmark"}}}]}}}'
TOOLS_AGENT='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agent","arguments":{"message":"hello from the benchmark"}}}'
TOOLS_ECHO='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello from the benchmark"}}}'
PUBLISH_DATA='{"tool":"echo","arguments":{"text":"hello from the benchmark"}}'

# load_args <config> [stream]: the load generator's flags for a config.
load_args() {
	local c=$1 stream=${2:-}
	local tok=()
	[ -n "${TOKEN[$c]:-}" ] && tok=(-token "${TOKEN[$c]}")
	case $c in
	expose-*) printf '%s\n' -url "${URL[$c]}" "${tok[@]}" -call "mcp${stream:+-stream}" -tool agent -args "{\"message\":\"${stream:+progress }hello from the benchmark\"}" ;;
	mcp-direct) printf '%s\n' -url "${URL[$c]}" -call "mcp${stream:+-stream}" -tool echo -args '{"text":"hello from the benchmark"}' ;;
	publish-*) printf '%s\n' -url "${URL[$c]}" "${tok[@]}" -call "a2a${stream:+-stream}" -data "$PUBLISH_DATA" ;;
	grpc-*) printf '%s\n' -url "${URL[$c]}" "${tok[@]}" -call "grpc${stream:+-stream}" -tenant bench -text "${stream:+progress }hello from the benchmark" ;;
	*) printf '%s\n' -url "${URL[$c]}" "${tok[@]}" -call "a2a${stream:+-stream}" -text "${stream:+progress }hello from the benchmark" ;;
	esac
}

# load_run <config> [stream] <load flags…>
load_run() {
	local c=$1 stream=$2
	shift 2
	local args
	mapfile -t args < <(load_args "$c" "$stream")
	"${ON_LOAD[@]}" "$LOAD" "${args[@]}" "$@"
}

write_lua() { # write_lua <config>
	local c=$1 body=$SEND
	local extra=""
	case $c in
	expose-*) body=$TOOLS_AGENT extra='wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"' ;;
	mcp-direct) body=$TOOLS_ECHO extra='wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"' ;;
	publish-*) body=$PUBLISH extra='wrk.headers["A2A-Version"] = "1.0"' ;;
	*) extra='wrk.headers["A2A-Version"] = "1.0"' ;;
	esac
	[ -n "${TOKEN[$c]:-}" ] && extra+=$'\n'"wrk.headers[\"Authorization\"] = \"Bearer ${TOKEN[$c]}\""
	cat >"$TMP/$c.lua" <<EOF
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
$extra
EOF
}

# cputicks <config>: the CPU time (user + system, in clock ticks) the
# config's own process has used so far: the bridge's, nginx's, the agent's
# for direct; its difference over a run divided by the requests is the
# "CPU µs/req" column, which is less noisy than req/s on a shared machine.
CLK_TCK=$(getconf CLK_TCK)
cputicks() {
	[ -n "${PID[$1]:-}" ] && [ -r "/proc/${PID[$1]}/stat" ] || return 0
	awk '{sub(/^.*\) /, ""); print $12 + $13}' "/proc/${PID[$1]}/stat"
}

# mallocs <config>: the process's cumulative allocation count.
mallocs() {
	curl -fsS "${METRICS[$1]}" 2>/dev/null | awk '$1 == "go_memstats_mallocs_total" {printf "%.0f\n", $2}' | grep . || echo 0
}

# ---------------------------------------------------------------- closed loop

# reset_agent: the agent drops every finished task and collects garbage
# (benchsut's /debug/reset), so that every closed-loop run finds it in the
# same state whatever ran before: the tasks a direct run leaves in retention
# (about 100k) made the run after it pay about 40% more agent CPU per call
# and twice wrk's p99, which read as a cost of whichever bridge came next.
reset_agent() {
	curl -fsS -X POST -o /dev/null "http://127.0.0.1:$UP_DBG/debug/reset" || log "could not reset the agent"
}

# closed_loop <config…>: ROUNDS interleaved rounds of wrk -c$CONNS, each
# config once per round (round 1 in the order given, later rounds
# shuffled); per run: req/s, errors,
# latency, and for bridges the allocations it made per request.
closed_loop() {
	local configs=("$@") c r
	log "closed loop: wrk -t1 -c$CONNS, ${DURATION}s per run, $ROUNDS interleaved rounds: ${configs[*]}"
	for c in "${configs[@]}"; do
		write_lua "$c"
		load_run "$c" "" -mode check >/dev/null
	done
	# Warm-up: RETAIN_S seconds through the bridges that keep tasks, so
	# their stores reach the steady state retention keeps before round 1
	# (and SQLite's file its working size); a second for the others.
	for c in "${configs[@]}"; do
		case $c in serve-* | publish-* | benchsut) "${ON_LOAD[@]}" wrk -t1 -c"$CONNS" -d"${RETAIN_S}s" -s "$TMP/$c.lua" "${URL[$c]}" >/dev/null ;; esac
	done
	for c in "${configs[@]}"; do "${ON_LOAD[@]}" wrk -t1 -c"$CONNS" -d1s -s "$TMP/$c.lua" "${URL[$c]}" >/dev/null; done
	: >"$OUT/raw/closed.tsv"
	local order=()
	for r in $(seq "$ROUNDS"); do
		# Round 1 runs the configs in the order given; each later round in
		# an order shuffled by the round's number (the same in every
		# bench run), so that no config follows the same neighbour in
		# every round: what a run leaves behind (a loaded core, garbage in
		# the agent) falls on different configs, and the median of the
		# within-round ratios does not carry it.
		if [ "$r" = 1 ]; then
			order=("${configs[@]}")
		else
			mapfile -t order < <(printf '%s\n' "${configs[@]}" | awk -v seed="$r" 'BEGIN {srand(seed)} {print rand() "\t" $0}' | sort -g | cut -f2)
		fi
		log "round $r order: ${order[*]}"
		for c in "${order[@]}"; do
			local f=$OUT/raw/wrk-$c-$r.txt m0="" m1="" t0 t1
			reset_agent
			[ -n "${METRICS[$c]:-}" ] && m0=$(mallocs "$c")
			t0=$(cputicks "$c")
			"${ON_LOAD[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -s "$TMP/$c.lua" "${URL[$c]}" >"$f"
			t1=$(cputicks "$c")
			[ -n "${METRICS[$c]:-}" ] && m1=$(mallocs "$c")
			local rps non2xx errs p50 p99 n
			rps=$(awk '/^Requests\/sec:/ {print $2}' "$f")
			n=$(awk '/requests in/ {print $1}' "$f")
			non2xx=$(awk '/Non-2xx/ {print $5}' "$f")
			errs=$(awk '/Socket errors/ {gsub(",", ""); print $4+$6+$8+$10}' "$f")
			p50=$(awk '$1 == "50%" {print $2}' "$f")
			p99=$(awk '$1 == "99%" {print $2}' "$f")
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$c" "$rps" "${non2xx:-0}" "${errs:-0}" "$p50" "$p99" "$n" \
				"$([ -n "$m1" ] && awk -v a="$m1" -v b="$m0" 'BEGIN {print a-b}')" \
				"$(awk -v a="$t1" -v b="$t0" -v n="$n" -v hz="$CLK_TCK" 'BEGIN {if (a != "" && b != "" && n > 0) printf "%.1f", (a-b)*1e6/hz/n}')" >>"$OUT/raw/closed.tsv"
			log "round $r $c: $rps req/s (non-2xx ${non2xx:-0}, socket errors ${errs:-0})"
		done
	done
	# What one /metrics scrape allocates, subtracted from the counts above.
	for c in "${configs[@]}"; do
		[ -n "${METRICS[$c]:-}" ] || continue
		local a b d
		a=$(mallocs "$c") b=$(mallocs "$c") d=$(mallocs "$c")
		printf '%s\t%s\n' "$c" "$(((d - a) / 2))" >>"$OUT/raw/scrape-allocs.tsv"
	done
}

median_rps() { # median_rps <config>
	awk -F'\t' -v c="$1" '$2 == c {print $3}' "$OUT/raw/closed.tsv" | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print 0}'
}

# quarter_of <config…>: a quarter of the slowest config's median saturation
# (perf.md: ≤ 30 % of the slowest, so queueing is not what is measured).
quarter_of() {
	local lo="" c m
	for c in "$@"; do
		m=$(median_rps "$c")
		if [ -z "$lo" ] || awk -v a="$m" -v b="$lo" 'BEGIN {exit !(a < b)}'; then lo=$m; fi
	done
	awk -v m="$lo" 'BEGIN {r = int(m * 0.25 / 50) * 50; if (r < 50) r = 50; print r}'
}

# rate <name> <config> <stream> <rate>: the open loop at a fixed rate.
rate_run() {
	local name=$1 c=$2 stream=$3 rate=$4
	load_run "$c" "$stream" -mode rate -rate "$rate" -duration "${RATE_SECONDS}s" -warmup 2s >"$OUT/raw/rate-$name.json"
	log "rate $rate/s $name: p50 $(jq -r .p50_us "$OUT/raw/rate-$name.json") µs, errors $(jq -r .errors "$OUT/raw/rate-$name.json")"
}

# ---------------------------------------------------------------- scenarios

FRONT=() TRANSLATE=()

scenario_closed() {
	FRONT=(direct nginx)
	for s in "${STORES[@]}"; do FRONT+=("serve-$s"); done
	FRONT+=(benchsut)
	TRANSLATE=(expose-memory mcp-direct publish-memory publish-sqlite)
	[ -n "${BASE_BRIDGE:-}" ] && TRANSLATE+=(expose-memory-base publish-memory-base publish-sqlite-base)
	local all=()
	want front && all+=("${FRONT[@]}")
	if want translate; then
		want front || all+=(direct)
		all+=("${TRANSLATE[@]}")
	fi
	if [ ${#all[@]} -gt 0 ]; then closed_loop "${all[@]}"; fi
}

scenario_front_rate() {
	FRONT_RATE=${RATE:-$(quarter_of serve-memory serve-sqlite)}
	echo "$FRONT_RATE" >"$OUT/raw/front_rate"
	log "front: open loop at $FRONT_RATE req/s, ${RATE_SECONDS}s each (+2s warm-up)"
	for c in "${FRONT[@]}"; do rate_run "$c" "$c" "" "$FRONT_RATE"; done
}

scenario_translate_rate() {
	TR_RATE=${TRANSLATE_RATE:-$(quarter_of expose-memory publish-memory publish-sqlite)}
	echo "$TR_RATE" >"$OUT/raw/translate_rate"
	log "translate: open loop at $TR_RATE calls/s, ${RATE_SECONDS}s each (+2s warm-up), blocking and streaming"
	local paths=(direct expose-memory mcp-direct publish-memory publish-sqlite)
	[ -n "${BASE_BRIDGE:-}" ] && paths+=(expose-memory-base publish-memory-base publish-sqlite-base)
	for c in "${paths[@]}"; do rate_run "tr-$c" "$c" "" "$TR_RATE"; done
	for c in "${paths[@]}"; do rate_run "tr-$c-stream" "$c" stream "$TR_RATE"; done
}

scenario_grpc() {
	local rate=${GRPC_RATE:-${FRONT_RATE:-200}} s
	echo "$rate" >"$OUT/raw/grpc_rate"
	log "grpc: the front over gRPC beside JSON-RPC, open loop at $rate req/s, ${RATE_SECONDS}s each (+2s warm-up)"
	# With a baseline, its JSON-RPC front runs beside this tree's, blocking
	# and streaming (the -base rows).
	local base=
	[ -n "${BASE_BRIDGE:-}" ] && base=1
	for s in memory sqlite; do
		load_run "grpc-$s" "" -mode check >/dev/null
		rate_run "g-serve-$s" "serve-$s" "" "$rate"
		[ -z "$base" ] || rate_run "g-serve-$s-base" "serve-$s-base" "" "$rate"
		rate_run "g-grpc-$s" "grpc-$s" "" "$rate"
		rate_run "g-serve-$s-stream" "serve-$s" stream "$rate"
		[ -z "$base" ] || rate_run "g-serve-$s-base-stream" "serve-$s-base" stream "$rate"
		rate_run "g-grpc-$s-stream" "grpc-$s" stream "$rate"
	done
}

scenario_ttfe() {
	log "time to first SSE event ($TTFE_N sequential SendStreamingMessage each)"
	for c in "${FRONT[@]}"; do
		load_run "$c" "" -mode ttfe -n "$TTFE_N" >"$OUT/raw/ttfe-$c.json"
	done
}

scenario_idle() {
	# The stores keep finished tasks for RETAIN_S: wait until the load
	# phases' tasks have left retention, so that the idle-stream reads
	# measure the streams, not those tasks being released.
	log "waiting $((RETAIN_S + 2))s for the load phases' tasks to leave retention"
	sleep $((RETAIN_S + 2))
	local idle=(direct nginx serve-memory serve-sqlite benchsut)
	[ -z "${BASE_BRIDGE:-}" ] || idle+=(serve-memory-base serve-sqlite-base)
	log "idle SubscribeToTask streams (steps $IDLE_STEPS): ${idle[*]}"
	local c
	for c in "${idle[@]}"; do
		local extra=()
		case $c in
		direct) extra=(-settle "http://127.0.0.1:$UP_DBG/debug/settle" -inuse "${METRICS[$c]}") ;;
		benchsut) extra=(-settle "http://127.0.0.1:$SUT_DBG/debug/settle" -inuse "${METRICS[$c]}") ;;
		serve-*) extra=(-settle "http://${DEBUG[$c]}/debug/pprof/heap?gc=1" -inuse "${METRICS[$c]}") ;;
		esac
		load_run "$c" "" -mode idle -pid "${PID[$c]}" -steps "$IDLE_STEPS" "${extra[@]}" >"$OUT/raw/idle-$c.json"
		sleep 1
	done
}

scenario_profile() {
	[ "$PROFILE" = 1 ] || return 0
	log "CPU and allocation profiles of bridge serve under the closed-loop load (10 s each)"
	local c
	for c in serve-memory serve-sqlite publish-sqlite expose-memory; do
		[ -n "${URL[$c]:-}" ] || continue
		[ -f "$TMP/$c.lua" ] || write_lua "$c"
		"${ON_LOAD[@]}" wrk -t1 -c"$CONNS" -d12s -s "$TMP/$c.lua" "${URL[$c]}" >/dev/null &
		local w=$!
		sleep 1
		curl -fsS "http://${DEBUG[$c]}/debug/pprof/profile?seconds=10" -o "$OUT/raw/cpu-$c.pb.gz"
		wait "$w"
		$GO tool pprof -top -nodecount 30 "$BRIDGE" "$OUT/raw/cpu-$c.pb.gz" >"$OUT/raw/cpu-$c-top.txt" 2>/dev/null || true
		$GO tool pprof -top -cum -nodecount 60 "$BRIDGE" "$OUT/raw/cpu-$c.pb.gz" >"$OUT/raw/cpu-$c-cum.txt" 2>/dev/null || true
	done
}

scenario_gobench() {
	log "Go benchmark (in-process: client + benchsut bridge + agent), -count $BENCH_COUNT"
	"${ON_SERVER[@]}" $GO test -run '^$' -bench 'SendMessage' -benchmem -benchtime 2000x -count "$BENCH_COUNT" -cpu 1 ./bench/ >"$OUT/raw/gobench.txt"
	log "store benchmark (in-process: 32 concurrent calls' writes), -count $BENCH_COUNT"
	"${ON_SERVER[@]}" env BRIDGE_TEST_POSTGRES_URL="$PG_BASE" $GO test -run '^$' -bench 'ConcurrentCalls' -benchmem -benchtime 2000x \
		-count "$BENCH_COUNT" -cpu 1 ./a2a/store/ >"$OUT/raw/storebench.txt"
}

# ---------------------------------------------------------------- main

main() {
	mkdir -p "$OUT/raw" "$OUT/bin"
	rm -f "$OUT"/raw/*
	TMP=$(mktemp -d)
	trap cleanup EXIT
	install_tools
	layout
	build
	{
		echo "retain_s=$RETAIN_S"
		echo "rounds=$ROUNDS"
		echo "duration=$DURATION"
		echo "conns=$CONNS"
		echo "scenarios=$SCENARIOS"
		echo "bench_tags=$BENCH_TAGS"
		echo "base=${BASE_BRIDGE:-}${BASE_TAGS:+ (this tree, tags $BASE_TAGS)}"
		echo "started=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo +dirty)"
	} >"$OUT/raw/meta"
	start_peers
	start_nginx
	start_bridges
	scenario_closed
	if want front; then scenario_front_rate; fi
	if want translate; then scenario_translate_rate; fi
	if want grpc; then scenario_grpc; fi
	if want ttfe; then
		[ ${#FRONT[@]} -gt 0 ] || FRONT=(direct nginx serve-memory serve-sqlite benchsut)
		scenario_ttfe
	fi
	if want idle; then scenario_idle; fi
	if want profile; then scenario_profile; fi
	if want gobench; then scenario_gobench; fi
	echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/raw/meta"
	echo "finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/raw/meta"
	log "writing $OUT/report.md"
	bench/report.sh "$OUT" "$LAYOUT" "$NGINX" "$BRIDGE" >"$OUT/report.md"
	cat "$OUT/report.md"
}

# Run when executed; when sourced (bash -c '. bench/run.sh; …'), only the
# functions are defined, for running one scenario by hand.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main "$@"; fi
