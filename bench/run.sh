#!/usr/bin/env bash
# Front-A2A benchmark suite (issue 7; method: notes/perf.md §4).
#
# Runs, side by side on loopback in one run: direct to a fast A2A agent,
# nginx as a plain reverse proxy in front of it, and the bridge in front-A2A
# mode with JWT auth (warm token cache) + CEL policy + rate limit. Writes
# bench/out/report.md. Installs nginx-light, wrk and jq with apt when missing.
#
# Knobs (environment): DURATION=5 (s per closed-loop run), ROUNDS=3,
# CONNS=32, RATE_SECONDS=10, TTFE_N=300, IDLE_STEPS=1000,5000 (the 1k→5k slope of perf.md §2),
# BENCH_COUNT=3, SERVER_CPU=1, LOAD_CPU=0, BASE_PORT=18080, RETAIN_S=10
# (seconds the servers keep finished tasks).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${BENCHOUT:-$ROOT/bench/out}
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
export CONNS=${CONNS:-32}
RATE_SECONDS=${RATE_SECONDS:-10}
TTFE_N=${TTFE_N:-300}
IDLE_STEPS=${IDLE_STEPS:-1000,5000}
BENCH_COUNT=${BENCH_COUNT:-3}
BASE_PORT=${BASE_PORT:-18080}
RETAIN_S=${RETAIN_S:-10}
GO=${GO:-go}

UP_PORT=$((BASE_PORT + 1)) NGX_PORT=$((BASE_PORT + 2)) BR_PORT=$((BASE_PORT + 3))
UP_DBG=$((BASE_PORT + 11)) BR_DBG=$((BASE_PORT + 13))
UP_URL=http://127.0.0.1:$UP_PORT/ NGX_URL=http://127.0.0.1:$NGX_PORT/ BR_URL=http://127.0.0.1:$BR_PORT/

log() { printf '== %s\n' "$*" >&2; }

need() { # need <command> <debian package>
	command -v "$1" >/dev/null 2>&1 && return
	log "installing $2"
	if ! apt-get install -y "$2" >/dev/null 2>&1; then
		apt-get update >/dev/null 2>&1 && apt-get install -y "$2" >/dev/null
	fi
}
need wrk wrk
need jq jq
need taskset util-linux
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then need nginx nginx-light; fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

mkdir -p "$OUT/raw" "$OUT/bin"
rm -f "$OUT"/raw/*
echo "$RETAIN_S" >"$OUT/raw/retain_s"
TMP=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# CPU layout: servers on one core, the load generator on another.
NCPU=$(nproc)
if [ "$NCPU" -ge 2 ]; then
	SERVER_CPU=${SERVER_CPU:-1} LOAD_CPU=${LOAD_CPU:-0}
	ON_SERVER=(taskset -c "$SERVER_CPU") ON_LOAD=(taskset -c "$LOAD_CPU")
	LAYOUT="load generator on CPU $LOAD_CPU; upstream, nginx and bridge share CPU $SERVER_CPU (GOMAXPROCS=1, nginx 1 worker)"
else
	ON_SERVER=() ON_LOAD=()
	LAYOUT="single CPU: everything shares it (GOMAXPROCS=1, nginx 1 worker)"
fi

log "building"
$GO build -o "$OUT/bin/" ./bench/cmd/benchsut ./bench/cmd/load
SUT=$OUT/bin/benchsut LOAD=$OUT/bin/load

wait_http() { # wait_http <url>
	for _ in $(seq 100); do
		curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	return 1
}

log "starting upstream, bridge, nginx"
GOMAXPROCS=1 "${ON_SERVER[@]}" "$SUT" -role upstream -listen 127.0.0.1:$UP_PORT -debug 127.0.0.1:$UP_DBG -retain "${RETAIN_S}s" >"$OUT/raw/upstream.log" 2>&1 &
UP_PID=$!
PIDS+=("$UP_PID")
wait_http "${UP_URL}.well-known/agent-card.json"
GOMAXPROCS=1 "${ON_SERVER[@]}" "$SUT" -role bridge -listen 127.0.0.1:$BR_PORT -debug 127.0.0.1:$BR_DBG -retain "${RETAIN_S}s" \
	-upstream "$UP_URL" -token-file "$TMP/token" >"$OUT/raw/bridge.log" 2>&1 &
BR_PID=$!
PIDS+=("$BR_PID")
wait_http "${BR_URL}.well-known/agent-card.json"
TOKEN=$(cat "$TMP/token")

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
NGX_PID=$!
PIDS+=("$NGX_PID")
wait_http "${NGX_URL}.well-known/agent-card.json"

CONFIGS=(direct nginx bridge)
url_of() { case $1 in direct) echo "$UP_URL" ;; nginx) echo "$NGX_URL" ;; bridge) echo "$BR_URL" ;; esac; }
tok_of() { [ "$1" = bridge ] && echo "$TOKEN" || true; }
pid_of() { case $1 in direct) echo "$UP_PID" ;; nginx) echo "$NGX_PID" ;; bridge) echo "$BR_PID" ;; esac; }

for c in "${CONFIGS[@]}"; do "$LOAD" -mode check -url "$(url_of "$c")" -token "$(tok_of "$c")" >/dev/null; done
log "all three paths answer a completed task"

BODY='{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"wrk-1","role":"ROLE_USER","parts":[{"text":"hello from the benchmark"}]}}}'
for c in "${CONFIGS[@]}"; do
	auth=""
	[ "$c" = bridge ] && auth="wrk.headers[\"Authorization\"] = \"Bearer $TOKEN\""
	cat >"$TMP/$c.lua" <<EOF
wrk.method = "POST"
wrk.body = '$BODY'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["A2A-Version"] = "1.0"
$auth
EOF
done

stats() { curl -fsS "http://127.0.0.1:$BR_DBG/stats${1:-}"; }

log "closed loop: wrk -t1 -c$CONNS, ${DURATION}s per run, $ROUNDS interleaved rounds"
# Warm-up: the bridge for RETAIN_S seconds (which loads the upstream too),
# so that both memory stores reach the steady state retention keeps before
# round 1; then a second each for direct and nginx.
"${ON_LOAD[@]}" wrk -t1 -c"$CONNS" -d"${RETAIN_S}s" -s "$TMP/bridge.lua" "$BR_URL" >/dev/null
for c in "${CONFIGS[@]}"; do "${ON_LOAD[@]}" wrk -t1 -c"$CONNS" -d1s -s "$TMP/$c.lua" "$(url_of "$c")" >/dev/null; done
stats >"$OUT/raw/bridge-stats-before.json"
curl -fsS "http://127.0.0.1:$BR_DBG/debug/pprof/allocs" -o "$OUT/raw/bridge-allocs-before.pb.gz"
: >"$OUT/raw/closed.tsv"
for r in $(seq "$ROUNDS"); do
	for c in "${CONFIGS[@]}"; do
		"${ON_LOAD[@]}" wrk -t1 -c"$CONNS" -d"${DURATION}s" --latency -s "$TMP/$c.lua" "$(url_of "$c")" >"$OUT/raw/wrk-$c-$r.txt"
		rps=$(awk '/^Requests\/sec:/ {print $2}' "$OUT/raw/wrk-$c-$r.txt")
		non2xx=$(awk '/Non-2xx/ {print $5}' "$OUT/raw/wrk-$c-$r.txt")
		errs=$(awk '/Socket errors/ {gsub(",", ""); print $4+$6+$8+$10}' "$OUT/raw/wrk-$c-$r.txt")
		p50=$(awk '$1 == "50%" {print $2}' "$OUT/raw/wrk-$c-$r.txt")
		p99=$(awk '$1 == "99%" {print $2}' "$OUT/raw/wrk-$c-$r.txt")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$c" "$rps" "${non2xx:-0}" "${errs:-0}" "$p50" "$p99" >>"$OUT/raw/closed.tsv"
		log "round $r $c: $rps req/s (non-2xx ${non2xx:-0}, socket errors ${errs:-0})"
	done
done
stats >"$OUT/raw/bridge-stats-after.json"
curl -fsS "http://127.0.0.1:$BR_DBG/debug/pprof/allocs" -o "$OUT/raw/bridge-allocs-after.pb.gz"

# Fixed rate: a quarter of the bridge's median saturation (perf.md: ≤ 30 %
# of the slowest config's saturation, so queueing is not what is measured).
BR_MED=$(awk -F'\t' '$2 == "bridge" {print $3}' "$OUT/raw/closed.tsv" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
RATE=${RATE:-$(awk -v m="$BR_MED" 'BEGIN {r = int(m * 0.25 / 50) * 50; if (r < 50) r = 50; print r}')}
log "open loop at $RATE req/s, ${RATE_SECONDS}s each (+2s warm-up)"
for c in "${CONFIGS[@]}"; do
	"${ON_LOAD[@]}" "$LOAD" -mode rate -url "$(url_of "$c")" -token "$(tok_of "$c")" -rate "$RATE" -duration "${RATE_SECONDS}s" -warmup 2s >"$OUT/raw/rate-$c.json"
done

log "time to first SSE event ($TTFE_N sequential SendStreamingMessage each)"
for c in "${CONFIGS[@]}"; do
	"${ON_LOAD[@]}" "$LOAD" -mode ttfe -url "$(url_of "$c")" -token "$(tok_of "$c")" -n "$TTFE_N" >"$OUT/raw/ttfe-$c.json"
done

# The servers keep finished tasks for RETAIN_S (benchsut -retain, as bridge
# serve does). Wait until the load phases' tasks have left retention, so the
# idle-stream reads measure the streams, not those tasks being released
# (and the heap goal a larger heap set) in the middle of the steps.
log "waiting $((RETAIN_S + 2))s for the load phases' tasks to leave retention"
sleep $((RETAIN_S + 2))
log "idle SubscribeToTask streams (steps $IDLE_STEPS)"
for c in "${CONFIGS[@]}"; do
	settle=""
	case $c in direct) settle="http://127.0.0.1:$UP_DBG/debug/settle" ;; bridge) settle="http://127.0.0.1:$BR_DBG/debug/settle" ;; esac
	"${ON_LOAD[@]}" "$LOAD" -mode idle -url "$(url_of "$c")" -token "$(tok_of "$c")" -pid "$(pid_of "$c")" -steps "$IDLE_STEPS" -settle "$settle" >"$OUT/raw/idle-$c.json"
	sleep 1
done

log "Go benchmark (in-process full path), -count $BENCH_COUNT"
"${ON_SERVER[@]}" $GO test -run '^$' -bench 'SendMessage' -benchmem -benchtime 2000x -count "$BENCH_COUNT" -cpu 1 ./bench/ >"$OUT/raw/gobench.txt"
$GO test -run '^$' -bench 'SendMessage/bridge' -benchmem -benchtime 2000x -cpu 1 -memprofile "$OUT/raw/gobench-mem.pb.gz" -o "$OUT/bin/bench.test" ./bench/ >/dev/null
$GO tool pprof -top -nodecount 25 -sample_index=alloc_objects -base "$OUT/raw/bridge-allocs-before.pb.gz" "$SUT" "$OUT/raw/bridge-allocs-after.pb.gz" >"$OUT/raw/bridge-alloc-top.txt" 2>/dev/null || true
$GO tool pprof -top -cum -nodecount 40 -sample_index=alloc_objects -base "$OUT/raw/bridge-allocs-before.pb.gz" "$SUT" "$OUT/raw/bridge-allocs-after.pb.gz" >"$OUT/raw/bridge-alloc-cum.txt" 2>/dev/null || true

log "writing $OUT/report.md"
bench/report.sh "$OUT" "$LAYOUT" "$RATE" "$NGINX" >"$OUT/report.md"
cat "$OUT/report.md"
