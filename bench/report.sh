#!/usr/bin/env bash
# Writes the markdown report of bench/run.sh from the raw results in $1/raw.
# Usage: bench/report.sh <outdir> <layout> <rate> <nginx binary>
set -euo pipefail
OUT=$1 LAYOUT=$2 RATE=$3 NGINX=$4
RAW=$OUT/raw
# The retention the run used (run.sh writes it beside the results).
RETAIN_S=$(cat "$RAW/retain_s" 2>/dev/null || echo 10)

median() { sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }
minmax() { sort -g | awk -v f="${1:-%s}" 'NR==1 {lo=$1} {hi=$1} END {printf f "–" f, lo, hi}'; }
col() { awk -F'\t' -v c="$1" -v k="$2" '$2 == c {print $k}' "$RAW/closed.tsv"; }
# ratios <num> <den>: one within-round ratio per round.
ratios() {
	awk -F'\t' -v a="$1" -v b="$2" '$2 == a {x[$1]=$3} $2 == b {y[$1]=$3} END {for (r in x) if (y[r] > 0) printf "%.3f\n", x[r]/y[r]}' "$RAW/closed.tsv"
}
fmt2() { awk -v x="$1" 'BEGIN {printf "%.2f", x}'; }
j() { jq -r "$1" "$2"; }
verdict() { awk -v v="$1" -v t="$2" -v dir="$3" 'BEGIN {ok = (dir == "ge") ? (v >= t) : (v <= t); print ok ? "**met**" : "**not met**"}'; }

R_BN=$(ratios bridge nginx | median) R_BD=$(ratios bridge direct | median) R_ND=$(ratios nginx direct | median)

ms() { # "1.23ms" / "456.78us" / "1.2s" → µs
	awk -v s="$1" 'BEGIN {
		if (s ~ /us$/) {sub(/us$/, "", s); print s+0}
		else if (s ~ /ms$/) {sub(/ms$/, "", s); print s*1000}
		else if (s ~ /s$/) {sub(/s$/, "", s); print s*1000000}
		else print "nan" }'
}

B0=$RAW/bridge-stats-before.json B1=$RAW/bridge-stats-after.json
REQS=$(( $(j .requests "$B1") - $(j .requests "$B0") ))
ALLOCS_REQ=$(awk -v a="$(j .mallocs "$B1")" -v b="$(j .mallocs "$B0")" -v n="$REQS" 'BEGIN {printf "%.0f", (a-b)/n}')
BYTES_REQ=$(awk -v a="$(j .total_alloc "$B1")" -v b="$(j .total_alloc "$B0")" -v n="$REQS" 'BEGIN {printf "%.0f", (a-b)/n}')

gb() { # gb <sub> <field index from the end: allocs=2, bytes=4, ns=6>
	awk -v s="BenchmarkSendMessage/$1" -v k="$2" '$1 == s || $1 ~ "^"s"-" {print $(NF-k+1)}' "$RAW/gobench.txt" | median
}
GB_D_NS=$(gb direct 6) GB_D_B=$(gb direct 4) GB_D_A=$(gb direct 2)
GB_B_NS=$(gb bridge 6) GB_B_B=$(gb bridge 4) GB_B_A=$(gb bridge 2)
GB_ADD_A=$(awk -v a="$GB_B_A" -v b="$GB_D_A" 'BEGIN {print a-b}')
GB_ADD_B=$(awk -v a="$GB_B_B" -v b="$GB_D_B" 'BEGIN {print a-b}')

KIB_BR=$(j .kib_per_stream "$RAW/idle-bridge.json") KIB_NGX=$(j .kib_per_stream "$RAW/idle-nginx.json") KIB_UP=$(j .kib_per_stream "$RAW/idle-direct.json")
KIBS_BR=$(j .kib_per_stream_settled "$RAW/idle-bridge.json") KIBS_UP=$(j .kib_per_stream_settled "$RAW/idle-direct.json")

cat <<EOF
# Front-A2A benchmark report

Generated $(date -u +%Y-%m-%dT%H:%M:%SZ) by \`bench/run.sh\` (\`make bench\`).

* Layout: $LAYOUT.
* CPU: $(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}') × $(nproc); kernel $(uname -r); $(go version | awk '{print $3}'); $("$NGINX" -v 2>&1 | sed 's/.*: //'); $(wrk -v 2>&1 | head -1 | awk '{print "wrk " $2}').
* Upstream: a fast A2A agent (\`bench.Agent\` behind \`a2a.NewServer\`, memory store) answering a blocking JSON-RPC
  \`SendMessage\` with a completed task and one text artifact.
* nginx: plain reverse proxy, 1 worker, \`master_process off\`, upstream keepalive 1024, \`proxy_buffering off\`.
* Bridge: \`a2a/proxy\` front executor behind \`a2a.NewServer\` (memory store, bridge-owned task ids, sealed upstream
  mapping), \`gateway.Hops{Authn, Authz, Limits}\` via \`ProtectA2A\` + \`A2AGuard\`: bearer JWT ES256 through
  \`auth.NewChain\` with a \`TokenCache\` (warm: one token for the whole run), \`policy.Compile\` (default deny, an allow
  rule on scope/agent/method and a deny rule), \`ratelimit.New\` in memory (per principal and per principal+method,
  limits far above the load: counted, never hit). The upstream card declares streaming; a blocking call is relayed
  with one blocking upstream \`SendMessage\` (its caller sees only the outcome), a streaming call over an upstream
  \`SendStreamingMessage\`. Its client is the one \`bridge serve\` gives a fronted agent (netguard's trusted client). The
  gateway's access log, metrics and tracing middlewares are not in this path.
* Upstream and bridge prune finished tasks older than ${RETAIN_S} s every second (\`Manager.RunMaintenance\`, the
  retention \`bridge serve\` applies), so their memory stores hold a steady state instead of every task of the run.
  The closed loop starts after ${RETAIN_S} s of load through the bridge (the stores at that steady state) and 1 s
  per config; the idle-stream reads start once the load phases' tasks have left retention.
* All numbers from one shared, noisy VM: **read the ratios** (perf.md §3).

## Throughput (closed loop, wrk -t1 -c${CONNS:-32}, $(awk -F'\t' '{print $1}' "$RAW/closed.tsv" | sort -u | wc -l) interleaved rounds)

| config | req/s median | range | wrk p50 | wrk p99 | non-2xx | socket errors |
|---|---|---|---|---|---|---|
EOF
for c in direct nginx bridge; do
	printf '| %s | %.0f | %s | %s | %s | %s | %s |\n' "$c" "$(col $c 3 | median)" "$(col $c 3 | minmax %.0f)" \
		"$(col $c 6 | tail -1)" "$(col $c 7 | tail -1)" "$(col $c 4 | paste -sd+ | bc)" "$(col $c 5 | paste -sd+ | bc)"
done
cat <<EOF

Within-round ratios (median, range over rounds):

| ratio | median | range |
|---|---|---|
| bridge / nginx | $(fmt2 "$R_BN") | $(ratios bridge nginx | minmax) |
| bridge / direct | $(fmt2 "$R_BD") | $(ratios bridge direct | minmax) |
| nginx / direct | $(fmt2 "$R_ND") | $(ratios nginx direct | minmax) |

## Latency at a fixed rate ($RATE req/s, open loop, from the scheduled send time)

| config | p50 µs | p90 µs | p99 µs | added p50 µs | added p99 µs | errors |
|---|---|---|---|---|---|---|
EOF
D50=$(j .p50_us "$RAW/rate-direct.json") D99=$(j .p99_us "$RAW/rate-direct.json")
for c in direct nginx bridge; do
	f=$RAW/rate-$c.json
	printf '| %s | %.0f | %.0f | %.0f | %+.0f | %+.0f | %s |\n' "$c" "$(j .p50_us "$f")" "$(j .p90_us "$f")" "$(j .p99_us "$f")" \
		"$(awk -v a="$(j .p50_us "$f")" -v b="$D50" 'BEGIN {print a-b}')" "$(awk -v a="$(j .p99_us "$f")" -v b="$D99" 'BEGIN {print a-b}')" "$(j .errors "$f")"
done
cat <<EOF

## Time to first SSE event (SendStreamingMessage, sequential, kept-alive connection)

| config | p50 µs | p99 µs | added p50 µs | added p99 µs |
|---|---|---|---|---|
EOF
T50=$(j .p50_us "$RAW/ttfe-direct.json") T99=$(j .p99_us "$RAW/ttfe-direct.json")
for c in direct nginx bridge; do
	f=$RAW/ttfe-$c.json
	printf '| %s | %.0f | %.0f | %+.0f | %+.0f |\n' "$c" "$(j .p50_us "$f")" "$(j .p99_us "$f")" \
		"$(awk -v a="$(j .p50_us "$f")" -v b="$T50" 'BEGIN {print a-b}')" "$(awk -v a="$(j .p99_us "$f")" -v b="$T99" 'BEGIN {print a-b}')"
done
cat <<EOF

## RSS per idle SSE stream (SubscribeToTask to one long task; slope between the steps)

| config (process measured) | RSS points (streams: KiB) | KiB per stream | after a forced GC: points | KiB per stream |
|---|---|---|---|---|
| direct (upstream) | $(jq -r '[.points[] | "\(.streams): \(.rss_kib)"] | join(", ")' "$RAW/idle-direct.json") | $(fmt2 "$KIB_UP") | $(jq -r '[.points[] | "\(.streams): \(.settled_rss_kib)"] | join(", ")' "$RAW/idle-direct.json") | $(fmt2 "$KIBS_UP") |
| nginx (nginx worker) | $(jq -r '[.points[] | "\(.streams): \(.rss_kib)"] | join(", ")' "$RAW/idle-nginx.json") | $(fmt2 "$KIB_NGX") | (no GC) | |
| bridge (bridge process) | $(jq -r '[.points[] | "\(.streams): \(.rss_kib)"] | join(", ")' "$RAW/idle-bridge.json") | $(fmt2 "$KIB_BR") | $(jq -r '[.points[] | "\(.streams): \(.settled_rss_kib)"] | join(", ")' "$RAW/idle-bridge.json") | $(fmt2 "$KIBS_BR") |

The first slope is RSS as found, 1 s after the streams opened: it includes whatever garbage opening them left
for the next collection (so it moves from run to run). The second is read after the process collected its garbage
and returned free memory to the OS (\`debug.FreeOSMemory\` through the benchmark's debug port): what the open
streams retain.

Through nginx each stream is also held by the upstream; through the bridge, subscribers are served from the bridge's
own event log (the upstream holds one stream per task, not per subscriber). The bridge and the upstream (both
\`a2a.Server\`) release an HTTP/1.1 stream idle for 250 ms from net/http: the stream keeps its connection and one
small goroutine reading it, not net/http's connection goroutine and buffers (\`a2a/sse_release.go\`).

## Allocations per request on the full bridge path

* Under load (bridge process alone, \`runtime.MemStats\` deltas over the closed-loop rounds, $REQS requests):
  **$ALLOCS_REQ allocs/req, $BYTES_REQ B/req** (includes the bridge's outbound call to the upstream).
* In-process Go benchmark (\`go test -bench SendMessage -benchmem ./bench/\`, client + bridge + upstream in one
  process, loopback HTTP; median of runs):

| benchmark | ns/op | B/op | allocs/op |
|---|---|---|---|
| SendMessage/direct | $GB_D_NS | $GB_D_B | $GB_D_A |
| SendMessage/bridge | $GB_B_NS | $GB_B_B | $GB_B_A |
| bridge − direct | | $GB_ADD_B | $GB_ADD_A |

## Targets (issue 7, perf.md §5)

| target | measured | verdict |
|---|---|---|
| throughput ≥ 0.5× nginx | $(fmt2 "$R_BN")× nginx (median within-round) | $(verdict "$R_BN" 0.5 ge) |
| ≤ 20 KiB RSS per idle SSE stream | $(fmt2 "$KIBS_BR") KiB retained (after a forced GC); $(fmt2 "$KIB_BR") KiB as found (nginx $(fmt2 "$KIB_NGX")) | $(verdict "$KIBS_BR" 20 le) retained; $(verdict "$KIB_BR" 20 le) as found |
| ≤ 250 allocs per request, full path | $ALLOCS_REQ under load (bridge process); $GB_ADD_A in the Go benchmark (bridge − direct) | $(verdict "$ALLOCS_REQ" 250 le) |

## Top allocation sites of the bridge under load (alloc_objects, flat)

\`\`\`
$(sed -n '1,40p' "$RAW/bridge-alloc-top.txt" 2>/dev/null | grep -v '^Type:\|^Time:' || echo "(pprof unavailable)")
\`\`\`

Cumulative view: \`$RAW/bridge-alloc-cum.txt\`; raw results: \`$RAW/\`.
EOF
