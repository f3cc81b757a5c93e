#!/usr/bin/env bash
# Writes the markdown report of bench/run.sh from the raw results in $1/raw.
# Usage: bench/report.sh <outdir> <layout> <nginx binary> <bridge binary>
set -euo pipefail
OUT=$1 LAYOUT=$2 NGINX=$3 BRIDGE=$4
RAW=$OUT/raw
# A run of some SCENARIOS only has no closed-loop results: an empty table.
[ -e "$RAW/closed.tsv" ] || : >"$RAW/closed.tsv"
meta() { awk -F= -v k="$1" '$1 == k {sub(/^[^=]*=/, ""); print}' "$RAW/meta"; }
RETAIN_S=$(meta retain_s)

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }
minmax() { sort -g | awk -v f="${1:-%s}" 'NR==1 {lo=$1} {hi=$1} END {if (NR) printf f "–" f, lo, hi; else printf "n/a"}'; }
have() { awk -F'\t' -v c="$1" '$2 == c {found=1} END {exit !found}' "$RAW/closed.tsv" 2>/dev/null; }
col() { awk -F'\t' -v c="$1" -v k="$2" '$2 == c {print $k}' "$RAW/closed.tsv"; }
# ratios <num> <den>: one within-round ratio per round.
ratios() {
	awk -F'\t' -v a="$1" -v b="$2" '$2 == a {x[$1]=$3} $2 == b {y[$1]=$3} END {for (r in x) if (y[r] > 0) printf "%.3f\n", x[r]/y[r]}' "$RAW/closed.tsv"
}
ratio() { ratios "$1" "$2" | median; }
fmt2() { awk -v x="$1" 'BEGIN {if (x == "nan" || x == "") print "n/a"; else printf "%.2f", x}'; }
j() { jq -r "$1" "$2" 2>/dev/null || echo nan; }
verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN {if (v == "nan" || v == "") {print "not measured"; exit} ok = (dir == "ge") ? (v >= t) : (v <= t); print ok ? "**met**" : "**not met**"}'; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || a == "null" || b == "null") print "nan"; else print a-b}'; }

# allocs_req <config>: allocations per request over the closed-loop runs
# (the bridge's mallocs delta per wrk run, minus two /metrics scrapes, over
# wrk's completed requests), median of the runs.
allocs_req() {
	local scrape
	scrape=$(awk -F'\t' -v c="$1" '$1 == c {print $2}' "$RAW/scrape-allocs.tsv" 2>/dev/null | head -1)
	awk -F'\t' -v c="$1" -v s="${scrape:-0}" '$2 == c && $8 > 0 && $9 != "" {printf "%.0f\n", ($9 - 2*s) / $8}' "$RAW/closed.tsv" | median
}

describe() {
	case $1 in
	direct) echo "direct to the agent" ;;
	nginx) echo "nginx, plain reverse proxy" ;;
	serve-memory) echo "\`bridge serve\`, memory store" ;;
	serve-sqlite) echo "\`bridge serve\`, SQLite store (the default)" ;;
	serve-postgres) echo "\`bridge serve\`, PostgreSQL store" ;;
	serve-memory-base) echo "baseline \`bridge serve\` (BASE_BRIDGE), memory store" ;;
	serve-sqlite-base) echo "baseline \`bridge serve\` (BASE_BRIDGE), SQLite store" ;;
	benchsut) echo "benchsut (diagnostic: bench-only composition, no gateway middleware, memory store)" ;;
	expose-memory) echo "MCP tools/call → \`bridge serve\` expose → agent" ;;
	mcp-direct) echo "MCP tools/call direct to the MCP server" ;;
	publish-memory) echo "A2A SendMessage → \`bridge serve\` publish (memory store) → MCP server" ;;
	publish-sqlite) echo "A2A SendMessage → \`bridge serve\` publish (SQLite store) → MCP server" ;;
	expose-memory-base) echo "baseline (BASE_BRIDGE): MCP tools/call → expose → agent" ;;
	publish-memory-base) echo "baseline (BASE_BRIDGE): A2A SendMessage → publish (memory store) → MCP server" ;;
	publish-sqlite-base) echo "baseline (BASE_BRIDGE): A2A SendMessage → publish (SQLite store) → MCP server" ;;
	*) echo "$1" ;;
	esac
}

closed_table() { # closed_table <config…>
	echo "| config | req/s median | range | wrk p50 | wrk p99 | non-2xx | socket errors | allocs/req | CPU µs/req |"
	echo "|---|---|---|---|---|---|---|---|---|"
	local c
	for c in "$@"; do
		have "$c" || continue
		local a u
		a=$(allocs_req "$c")
		u=$(col "$c" 10 | grep . | median)
		printf '| %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n' "$(describe "$c")" "$(col "$c" 3 | median)" "$(col "$c" 3 | minmax %.0f)" \
			"$(col "$c" 6 | tail -1)" "$(col "$c" 7 | tail -1)" "$(col "$c" 4 | paste -sd+ | bc)" "$(col "$c" 5 | paste -sd+ | bc)" "${a/nan/–}" "${u/nan/–}"
	done
}

ratio_row() { # ratio_row <num> <den>
	have "$1" && have "$2" || return 0
	printf '| %s / %s | %s | %s |\n' "$1" "$2" "$(fmt2 "$(ratio "$1" "$2")")" "$(ratios "$1" "$2" | minmax)"
}

rate_table() { # rate_table <baseline name> <name…> (rate-<name>.json)
	local base=$1
	shift
	echo "| config | p50 µs | p90 µs | p99 µs | added p50 µs | added p99 µs | first event p50 µs | errors |"
	echo "|---|---|---|---|---|---|---|---|"
	local b50 b99 n f
	b50=$(j .p50_us "$RAW/rate-$base.json") b99=$(j .p99_us "$RAW/rate-$base.json")
	for n in "$base" "$@"; do
		f=$RAW/rate-$n.json
		[ -f "$f" ] || continue
		local ttfe
		ttfe=$(j '.ttfe_p50_us // "–"' "$f")
		printf '| %s | %.0f | %.0f | %.0f | %+.0f | %+.0f | %s | %s |\n' "$n" "$(j .p50_us "$f")" "$(j .p90_us "$f")" "$(j .p99_us "$f")" \
			"$(sub "$(j .p50_us "$f")" "$b50")" "$(sub "$(j .p99_us "$f")" "$b99")" "$ttfe" "$(j .errors "$f")"
	done
}

R_MN=$(ratio serve-memory nginx) R_SN=$(ratio serve-sqlite nginx)
FRONT_RATE=$(cat "$RAW/front_rate" 2>/dev/null || echo "?") TR_RATE=$(cat "$RAW/translate_rate" 2>/dev/null || echo "?")
ADD_EXPOSE=$(sub "$(j .p50_us "$RAW/rate-tr-expose-memory.json")" "$(j .p50_us "$RAW/rate-tr-direct.json")")
ADD_PUBLISH=$(sub "$(j .p50_us "$RAW/rate-tr-publish-sqlite.json")" "$(j .p50_us "$RAW/rate-tr-mcp-direct.json")")
ADD_PUBLISH_M=$(sub "$(j .p50_us "$RAW/rate-tr-publish-memory.json")" "$(j .p50_us "$RAW/rate-tr-mcp-direct.json")")
KIB_M=$(j .kib_per_stream "$RAW/idle-serve-memory.json") KIBI_M=$(j .kib_per_stream_inuse "$RAW/idle-serve-memory.json")
KIB_NGX=$(j .kib_per_stream "$RAW/idle-nginx.json")
A_M=$(allocs_req serve-memory) A_S=$(allocs_req serve-sqlite)

cat <<EOF
# Benchmark report: \`bridge serve\`, its stores and its translation paths

Generated $(date -u +%Y-%m-%dT%H:%M:%SZ) by \`bench/run.sh\` (\`make bench\`) at commit $(meta commit), started $(meta started),
finished $(meta finished); load average (1, 5, 15 min) $(meta load_before) before, $(meta load_after) after.
$(meta rounds) interleaved rounds of $(meta duration) s per config; how to read it: \`bench/README.md\`.
Build tags of \`bridge serve\`: $(t=$(meta bench_tags); echo "${t:-none}"); baseline (\`-base\` rows): $(t=$(meta base); echo "${t:-none}").

* Layout: $LAYOUT.
* CPU: $(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}') × $(nproc); kernel $(uname -r); $(go version | awk '{print $3}'); $("$NGINX" -v 2>&1 | sed 's/.*: //'); $(wrk -v 2>&1 | head -1 | awk '{print "wrk " $2}').
* Peers: a fast A2A agent (\`bench.Agent\` behind \`server.New\` (a2a/server), memory store) answering a blocking \`SendMessage\` with
  a completed task and one text artifact; a fast MCP server (\`bench.NewMCPServer\`: mcp-go, streamable HTTP, stateless)
  with one tool \`echo\`.
* \`bridge serve\`: the binary of \`./cmd/bridge\`, started with \`--config bench/bridge.yaml --store …\`: bearer JWT (ES256,
  local JWKS, token cache), CEL policy deny by default (one allow, one deny rule), two rate-limit rules counted per hop,
  signed cards, metrics and the JSON access and audit log on (to a file); retention ${RETAIN_S} s swept every second.
  One process per store; each serves \`/a2a/bench\` (front), \`/a2a/tools\` (publish) and \`/mcp\` (expose).
* nginx: plain reverse proxy, 1 worker, \`master_process off\`, upstream keepalive 1024, \`proxy_buffering off\`.
* All numbers come from one shared, noisy VM: **read the within-round ratios**, not the absolute figures.

## Front: A2A SendMessage (closed loop, wrk -t1 -c$(meta conns))

$(closed_table direct nginx serve-memory serve-sqlite serve-postgres serve-memory-base serve-sqlite-base benchsut)

Within-round ratios (median, range over rounds):

| ratio | median | range |
|---|---|---|
$(ratio_row serve-memory nginx)
$(ratio_row serve-sqlite nginx)
$(ratio_row serve-postgres nginx)
$(ratio_row serve-memory-base nginx)
$(ratio_row serve-sqlite-base nginx)
$(ratio_row benchsut nginx)
$(ratio_row serve-memory direct)
$(ratio_row serve-sqlite direct)
$(ratio_row serve-postgres direct)
$(ratio_row nginx direct)

allocs/req: the bridge process's \`go_memstats_mallocs_total\` over each run (less what the two \`/metrics\` scrapes around
it allocate) divided by wrk's completed requests, median of the runs; it includes the bridge's call to the agent, its
store writes and everything running in the background meanwhile (retention, recovery). CPU µs/req: the CPU time (user +
system, from \`/proc/PID/stat\`) of the config's own process over each run divided by its completed requests, median of
the runs: the bridge's alone for the bridge rows (not the agent's it calls), nginx's for nginx, the agent's for direct.
It moves less with the machine's load than req/s does.

### At a fixed rate ($FRONT_RATE req/s, open loop, latency from the scheduled send time)

$(rate_table direct nginx serve-memory serve-sqlite serve-postgres serve-memory-base serve-sqlite-base benchsut)

## Translation paths

Closed loop, in the same interleaved rounds as the front (wrk -t1 -c$(meta conns)):

$(closed_table direct expose-memory mcp-direct publish-memory publish-sqlite expose-memory-base publish-memory-base publish-sqlite-base)

| ratio | median | range |
|---|---|---|
$(ratio_row expose-memory direct)
$(ratio_row publish-memory mcp-direct)
$(ratio_row publish-sqlite mcp-direct)
$(ratio_row expose-memory-base direct)
$(ratio_row publish-memory-base mcp-direct)
$(ratio_row publish-sqlite-base mcp-direct)

At a fixed rate ($TR_RATE calls/s, open loop), blocking calls: expose against \`SendMessage\` to the agent directly,
publish against \`tools/call\` to the MCP server directly:

$(rate_table tr-direct tr-expose-memory tr-expose-memory-base)

$(rate_table tr-mcp-direct tr-publish-memory tr-publish-sqlite tr-publish-memory-base tr-publish-sqlite-base)

Streaming variants (latency to the event that ends the call; "first event" is the first SSE event): the agent reports
WORKING before its artifact, which expose relays as an MCP progress notification (tools/call with a progress token,
answered as an event stream) against \`SendStreamingMessage\` to the agent; publish streams \`SendStreamingMessage\`
(task, WORKING, the tool's progress, artifact, COMPLETED) against \`tools/call\` with a progress token to the MCP server:

$(rate_table tr-direct-stream tr-expose-memory-stream tr-expose-memory-base-stream)

$(rate_table tr-mcp-direct-stream tr-publish-memory-stream tr-publish-sqlite-stream tr-publish-memory-base-stream tr-publish-sqlite-base-stream)

## The front over gRPC

\`bridge serve\`'s front agent over the gRPC binding (\`server.grpc\` on the main listener, h2c, tenant \`bench\`,
one client connection multiplexing the calls) beside the same front over JSON-RPC, at one fixed rate
($(cat "$RAW/grpc_rate" 2>/dev/null || echo "?") req/s, open loop); "added" is gRPC minus JSON-RPC, and for a \`-base\` row (a baseline
ran beside) the baseline's JSON-RPC front minus this one's. The bridge calls the agent over JSON-RPC either way. Blocking \`SendMessage\`:

$(rate_table g-serve-memory g-serve-memory-base g-grpc-memory)

$(rate_table g-serve-sqlite g-serve-sqlite-base g-grpc-sqlite)

\`SendStreamingMessage\` (latency to the event that completes the task; "first event" is the first SSE event or gRPC
message):

$(rate_table g-serve-memory-stream g-serve-memory-base-stream g-grpc-memory-stream)

$(rate_table g-serve-sqlite-stream g-serve-sqlite-base-stream g-grpc-sqlite-stream)

## Time to first SSE event (SendStreamingMessage, sequential, kept-alive connection)

| config | p50 µs | p99 µs | added p50 µs | added p99 µs |
|---|---|---|---|---|
EOF
T50=$(j .p50_us "$RAW/ttfe-direct.json") T99=$(j .p99_us "$RAW/ttfe-direct.json")
for c in direct nginx serve-memory serve-sqlite serve-postgres serve-memory-base serve-sqlite-base benchsut; do
	f=$RAW/ttfe-$c.json
	[ -f "$f" ] || continue
	printf '| %s | %.0f | %.0f | %+.0f | %+.0f |\n' "$c" "$(j .p50_us "$f")" "$(j .p99_us "$f")" "$(sub "$(j .p50_us "$f")" "$T50")" "$(sub "$(j .p99_us "$f")" "$T99")"
done
cat <<EOF

## Memory per idle SSE stream (SubscribeToTask to one long task; slope between the steps)

| config (process measured) | RSS points (streams: KiB) | RSS KiB per stream | Go heap + stacks after a GC (streams: KiB) | KiB per stream |
|---|---|---|---|---|
EOF
for c in direct nginx serve-memory serve-sqlite serve-memory-base serve-sqlite-base benchsut; do
	f=$RAW/idle-$c.json
	[ -f "$f" ] || continue
	inuse="(not Go)" inuse_k=""
	if [ "$(j '.kib_per_stream_inuse // empty' "$f")" != "" ]; then
		inuse=$(jq -r '[.points[] | "\(.streams): \(.inuse_kib)"] | join(", ")' "$f")
		inuse_k=$(fmt2 "$(j .kib_per_stream_inuse "$f")")
	fi
	printf '| %s | %s | %s | %s | %s |\n' "$c" "$(jq -r '[.points[] | "\(.streams): \(.rss_kib)"] | join(", ")' "$f")" "$(fmt2 "$(j .kib_per_stream "$f")")" "$inuse" "$inuse_k"
done
cat <<EOF

RSS is read 1 s after the streams opened, as found: it includes whatever garbage opening them left for the next
collection. The Go heap and stacks in use are read after a forced collection (\`/debug/pprof/heap?gc=1\` on the
bridge's \`--debug-addr\`, \`debug.FreeOSMemory\` on the benchsut processes): what the open streams retain. Through nginx
each stream is also held by the agent; through the bridge, subscribers are served from the bridge's own event log.

## In-process Go benchmarks

\`go test -bench SendMessage -benchmem -cpu 1 ./bench/\` (client + benchsut bridge + agent in one process, loopback HTTP) and
\`go test -bench ConcurrentCalls -benchmem -cpu 1 ./a2a/store/\` (the store writes of whole calls, 32 callers at once; one
op is one call: "settled" a blocking call answered in one upstream reply, "events" a task through SUBMITTED, WORKING,
an artifact and COMPLETED):

\`\`\`
$(grep -h '^Benchmark' "$RAW/gobench.txt" "$RAW/storebench.txt" 2>/dev/null || echo "(not run)")
\`\`\`

## Targets (issue 16)

| target | measured | verdict |
|---|---|---|
| \`bridge serve\`, memory store, full guards ≥ 0.75× nginx (c=$(meta conns)) | $(fmt2 "$R_MN")× | $(verdict "$R_MN" 0.75 ge) |
| \`bridge serve\`, SQLite ≥ 0.5× nginx | $(fmt2 "$R_SN")× | $(verdict "$R_SN" 0.5 ge) |
| \`bridge serve\`, PostgreSQL: reported | $(fmt2 "$(ratio serve-postgres nginx 2>/dev/null || echo nan)")× | reported |
| expose: added p50 ≤ 250 µs over \`SendMessage\` direct at $TR_RATE/s | $(fmt2 "$ADD_EXPOSE") µs | $(verdict "$ADD_EXPOSE" 250 le) |
| publish (SQLite): added p50 ≤ 250 µs over \`tools/call\` direct at $TR_RATE/s | $(fmt2 "$ADD_PUBLISH") µs (memory store: $(fmt2 "$ADD_PUBLISH_M")) | $(verdict "$ADD_PUBLISH" 250 le) |
| ≤ 20 KiB per idle SSE stream (memory store) | $(fmt2 "$KIBI_M") KiB Go heap + stacks retained; $(fmt2 "$KIB_M") KiB RSS as found (nginx $(fmt2 "$KIB_NGX") RSS) | $(verdict "$KIBI_M" 20 le) retained; $(verdict "$KIB_M" 20 le) as found |
| ≤ 250 allocs per request, front | $A_M memory, $A_S SQLite | $(verdict "$A_M" 250 le) |

## Where \`bridge serve\` spends its CPU under load (pprof, 10 s of the closed loop)

EOF
for c in serve-sqlite serve-memory publish-sqlite expose-memory; do
	f=$RAW/cpu-$c-cum.txt
	[ -s "$f" ] || continue
	echo "$(describe "$c"), cumulative, the bridge's own frames and the store's:"
	echo
	echo '```'
	grep -E '^ *(Duration|Showing nodes)|a2a-mcp-bridge|modernc.org/sqlite\.|jackc/pgx|log/slog\.\(\*Logger\)|runtime\.gcBgMarkWorker$|net/http\.\(\*conn\)\.serve$' "$f" | head -40
	echo '```'
	echo
done
echo "Flat profiles: \`$RAW/cpu-*-top.txt\`; profiles: \`$RAW/cpu-*.pb.gz\` (\`go tool pprof $BRIDGE FILE\`); raw results: \`$RAW/\`."
