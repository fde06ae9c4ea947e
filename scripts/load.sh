#!/usr/bin/env bash
# Load test of `metasift serve` on this machine, loopback only.
#
# Starts six loopback member engines answering real saved result pages
# (tools/src/bin/loopback_engines.rs, ~1.9 MB of HTML per search), `metasift
# serve` on them (memory cache of 16 MB, rate limit off, max_in_flight 8), then with
# wrk measures:
#   1. cached searches (one query, repeated): requests/s, p50/p99;
#   2. uncached searches (every request a new query, so every one parses all
#      six pages): requests/s, p50/p99, the server's memory every 5 s, and the
#      CPU time the server (and the engines) spent per search — the figure
#      that stays comparable when other work shares the machine;
#   3. overload: ten times the uncached connections; every answer must be
#      200/429/503 (no socket errors), and memory must stay bounded.
# Prints a summary at the end. Bounded: every step has a fixed duration.
#
# Run with:  scripts/load.sh   (env: DURATION=60 CONNS=8 CACHED_CONNS=64 MAX_IN_FLIGHT=8
#             TTL_S=600 MEMORY_MB=16)
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-60}
CONNS=${CONNS:-8}
CACHED_CONNS=${CACHED_CONNS:-64}
THREADS=${THREADS:-2}
MAX_IN_FLIGHT=${MAX_IN_FLIGHT:-8}
TTL_S=${TTL_S:-600}
# Small enough that the uncached run fills it: memory must then stay flat.
MEMORY_MB=${MEMORY_MB:-16}
TARGET=${CARGO_TARGET_DIR:-target}

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
# Other work on the machine skews every figure: printed with the summary.
load_start=$(cut -d' ' -f1 /proc/loadavg)

echo "== building (release)"
cargo build --release --quiet --bin metasift
cargo build --release --quiet -p metasift-tools --bin loopback_engines

work=$(mktemp -d /tmp/metasift-load.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== starting 6 loopback engines"
"$TARGET/release/loopback_engines" \
  --out "$work/engines.toml" --seconds $((DURATION * 3 + 120)) \
  --extra '[server]\ndeadline_ms = 3000\n[cache]\nbackend = "memory"\nttl_s = '"$TTL_S"'\nmemory_mb = '"$MEMORY_MB"'\n[limits]\nper_minute = 0\nmax_in_flight = '"$MAX_IN_FLIGHT"'\n' \
  >"$work/engines.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do grep -q ready "$work/engines.out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$work/engines.out" || { cat "$work/engines.out"; exit 1; }

echo "== starting metasift serve"
RUST_LOG=warn "$TARGET/release/metasift" serve --config "$work/engines.toml" --bind 127.0.0.1:0 \
  >"$work/serve.out" 2>"$work/serve.err" &
server=$!
pids+=($server)
for _ in $(seq 1 100); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^listening on \(http:[^ ]*\)\/$/\1/p' "$work/serve.out")
[ -n "$base" ] || { cat "$work/serve.out" "$work/serve.err"; exit 1; }
echo "   $base (pid $server)"

cat >"$work/distinct.lua" <<'LUA'
-- Every request a new query: one counter per thread, threads apart.
local threads = {}
function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end
local counter = 0
statuses = {}
local prefix = os.getenv("LOAD_PREFIX") or "q"
request = function()
  counter = counter + 1
  return wrk.format("GET", "/search?format=json&q=" .. prefix .. "+" .. id .. "+" .. counter)
end
response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  local totals = {}
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("statuses")) do totals[k] = (totals[k] or 0) + v end
  end
  for k, v in pairs(totals) do io.write(string.format("status %d: %d\n", k, v)) end
end
LUA

mem() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$server/status"; }
# CPU time (utime + stime, in clock ticks) of a process so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks_per_s=$(getconf CLK_TCK)
engines_pid=${pids[0]}
summary() { # file label
  local rps p50 p99 errs
  rps=$(awk '/^Requests\/sec/ {print $2}' "$1")
  p50=$(awk '$1 == "50%" {print $2}' "$1")
  p99=$(awk '$1 == "99%" {print $2}' "$1")
  errs=$(grep -E "Socket errors|Non-2xx" "$1" | tr '\n' ' ' || true)
  printf '%-10s %10s req/s   p50 %-9s p99 %-9s %s\n' "$2" "$rps" "$p50" "$p99" "$errs"
}

curl -fsS "$base/search?q=javascript+tutorial&format=json" -o "$work/first.json"
results=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["results"]), "results,", len(d["unresponsive_engines"]), "unresponsive")' "$work/first.json")
echo "   warm-up search: $results"
echo "   memory after warm-up: VmRSS $(mem VmRSS) kB"

echo "== 1. cached: same query, $CACHED_CONNS connections, ${DURATION}s"
wrk -t"$THREADS" -c"$CACHED_CONNS" -d"${DURATION}s" --latency \
  "$base/search?q=javascript+tutorial&format=json" | tee "$work/cached.txt"

echo "== 2. uncached: a new query per request, $CONNS connections, ${DURATION}s"
(
  for _ in $(seq 1 $((DURATION / 5))); do
    sleep 5
    printf '%s ' "$(mem VmRSS)"
  done
) >"$work/rss.txt" &
sampler=$!
server_cpu0=$(cpu_ticks "$server")
engines_cpu0=$(cpu_ticks "$engines_pid")
LOAD_PREFIX=u wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency -s "$work/distinct.lua" "$base" \
  | tee "$work/uncached.txt"
server_cpu1=$(cpu_ticks "$server")
engines_cpu1=$(cpu_ticks "$engines_pid")
load_uncached=$(cut -d' ' -f1 /proc/loadavg)
wait "$sampler" || true
# CPU per uncached search: steadier than requests/s on a shared machine.
uncached_n=$(awk '/requests in/ {print $1}' "$work/uncached.txt")
cpu_per_search() { # ticks0 ticks1
  awk -v a="$1" -v b="$2" -v n="$uncached_n" -v hz="$ticks_per_s" \
    'BEGIN { if (n > 0) printf "%.2f", (b - a) * 1000 / hz / n; else print "?" }'
}

echo "== 3. overload: $((CONNS * 10)) connections of new queries, ${DURATION}s"
LOAD_PREFIX=o wrk -t"$THREADS" -c$((CONNS * 10)) -d"${DURATION}s" --latency -s "$work/distinct.lua" "$base" \
  | tee "$work/overload.txt"

curl -fsS "$base/metrics" | grep -E '^metasift_(searches|cache_hits|cache_misses|coalesced|overloaded|rate_limited)_total' \
  >"$work/metrics.txt" || true

echo
echo "== summary ($(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ); load average at start $load_start, after the uncached phase $load_uncached, now $(cut -d' ' -f1-3 /proc/loadavg))"
summary "$work/cached.txt" cached
summary "$work/uncached.txt" uncached
summary "$work/overload.txt" overload
echo "uncached CPU per search: server $(cpu_per_search "$server_cpu0" "$server_cpu1") ms, loopback engines $(cpu_per_search "$engines_cpu0" "$engines_cpu1") ms ($uncached_n searches)"
echo "overload statuses: $(grep '^status' "$work/overload.txt" | tr '\n' ' ')"
echo "server VmRSS every 5 s during uncached (kB): $(cat "$work/rss.txt")"
echo "server VmRSS after overload: $(mem VmRSS) kB; peak VmHWM: $(mem VmHWM) kB"
sed 's/^/metrics: /' "$work/metrics.txt"
