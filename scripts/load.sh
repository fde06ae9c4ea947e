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
#      200/429/503 (no socket errors), and memory must stay bounded;
#   4. cached through Redis (when redis-server is installed; REDIS=0 skips
#      it): a real redis-server on loopback started here, a second server
#      with `[cache] backend = "redis"` and the in-memory front of
#      FRONT_MB (16, the default), then a third with `front_mb = 0`, where
#      every request reads Redis.
# The cached phases also give the server's CPU time per request (from
# /proc), like the uncached one. Prints a summary at the end. Bounded:
# every step has a fixed duration.
#
# Run with:  scripts/load.sh   (env: DURATION=60 CONNS=8 CACHED_CONNS=64 MAX_IN_FLIGHT=8
#             TTL_S=600 MEMORY_MB=16 REDIS=1 FRONT_MB=16; BUILD=0 runs the binaries
#             already built; PROFILE=dist runs the server built with that cargo
#             profile, the one `cargo install` and the container image use —
#             the loopback engines stay `release`, they are not what is measured)
# Instructions per request (callgrind), the figure that does not move with
# the machine's load: scripts/callgrind_server.sh.
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
REDIS=${REDIS:-1}
FRONT_MB=${FRONT_MB:-16}
TARGET=${CARGO_TARGET_DIR:-target}
PROFILE=${PROFILE:-release}
# cargo's folder for a profile: `dev` builds into debug/, every other into its name.
profile_dir=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
SERVER="$TARGET/$profile_dir/metasift"
if [ "$REDIS" != 0 ] && ! command -v redis-server >/dev/null; then
  echo "redis-server is missing: the Redis phase is skipped (apt-get install redis-server)" >&2
  REDIS=0
fi

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
# Other work on the machine skews every figure: printed with the summary.
load_start=$(cut -d' ' -f1 /proc/loadavg)

if [ "${BUILD:-1}" != 0 ]; then
  echo "== building (server: $PROFILE, engines: release)"
  cargo build --profile "$PROFILE" --quiet --bin metasift
  cargo build --release --quiet -p metasift-tools --bin loopback_engines
fi

source scripts/lib.sh
make_work load

echo "== starting 6 loopback engines"
start_engines --seconds $((DURATION * 5 + 180)) \
  --extra '[server]\ndeadline_ms = 3000\n[cache]\nbackend = "memory"\nttl_s = '"$TTL_S"'\nmemory_mb = '"$MEMORY_MB"'\n[limits]\nper_minute = 0\nmax_in_flight = '"$MAX_IN_FLIGHT"'\n'

echo "== starting metasift serve ($SERVER)"
RUST_LOG=warn "$SERVER" serve --config "$work/engines.toml" --bind 127.0.0.1:0 \
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

# CPU (ms) a process spent per request of a wrk run: ticks0 ticks1 file.
cpu_per_request() {
  local n
  n=$(awk '/requests in/ {print $1}' "$3")
  awk -v a="$1" -v b="$2" -v n="$n" -v hz="$ticks_per_s" \
    'BEGIN { if (n > 0) printf "%.3f", (b - a) * 1000 / hz / n; else print "?" }'
}

echo "== 1. cached: same query, $CACHED_CONNS connections, ${DURATION}s"
cached_cpu0=$(cpu_ticks "$server")
wrk -t"$THREADS" -c"$CACHED_CONNS" -d"${DURATION}s" --latency \
  "$base/search?q=javascript+tutorial&format=json" | tee "$work/cached.txt"
cached_cpu=$(cpu_per_request "$cached_cpu0" "$(cpu_ticks "$server")" "$work/cached.txt")

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
server_rss=$(mem VmRSS)
server_hwm=$(mem VmHWM)

# 4. The same cached search through Redis: a server of its own per cache
# layout, the memory one stopped first so the machine runs one at a time.
redis_phase() { # label front_mb
  local label=$1 front=$2 config="$work/engines-$1.toml" pid url cpu0
  sed -e "s|^backend = \"memory\"|backend = \"redis\"\nurl = \"redis://127.0.0.1:$redis_port/\"\nfront_mb = $front|" \
    "$work/engines.toml" >"$config"
  grep -q '^backend = "redis"' "$config" || { echo "no [cache] backend in $work/engines.toml" >&2; exit 1; }
  RUST_LOG=warn "$SERVER" serve --config "$config" --bind 127.0.0.1:0 \
    >"$work/serve-$label.out" 2>"$work/serve-$label.err" &
  pid=$!
  pids+=($pid)
  for _ in $(seq 1 100); do grep -q "listening on" "$work/serve-$label.out" 2>/dev/null && break; sleep 0.1; done
  url=$(sed -n 's/^listening on \(http:[^ ]*\)\/$/\1/p' "$work/serve-$label.out")
  [ -n "$url" ] || { cat "$work/serve-$label.out" "$work/serve-$label.err"; exit 1; }
  # The first search fills Redis (and the front); the rest are hits.
  curl -fsS "$url/search?q=javascript+tutorial&format=json" -o /dev/null
  echo "== 4. cached through Redis ($label: front_mb = $front), $CACHED_CONNS connections, ${DURATION}s"
  cpu0=$(cpu_ticks "$pid")
  wrk -t"$THREADS" -c"$CACHED_CONNS" -d"${DURATION}s" --latency \
    "$url/search?q=javascript+tutorial&format=json" | tee "$work/cached-$label.txt"
  echo "$(cpu_per_request "$cpu0" "$(cpu_ticks "$pid")" "$work/cached-$label.txt")" >"$work/cpu-$label.txt"
  curl -fsS "$url/metrics" | grep -E '^metasift_(cache_hits|cache_misses|cache_errors)_total' \
    | sed "s/^/$label: /" >>"$work/metrics-redis.txt" || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
if [ "$REDIS" != 0 ]; then
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  redis_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    >"$work/redis.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis_phase front "$FRONT_MB"
  redis_phase direct 0
fi

echo
echo "== summary (server: profile $PROFILE, $(stat -c %s "$SERVER") bytes; $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ); load average at start $load_start, after the uncached phase $load_uncached, now $(cut -d' ' -f1-3 /proc/loadavg))"
summary "$work/cached.txt" cached
summary "$work/uncached.txt" uncached
summary "$work/overload.txt" overload
if [ "$REDIS" != 0 ]; then
  summary "$work/cached-front.txt" "redis+front"
  summary "$work/cached-direct.txt" "redis only"
  echo "cached through Redis: a redis-server started on loopback by this script; redis+front = [cache] backend \"redis\" with front_mb = $FRONT_MB (the in-memory layer in front), redis only = front_mb = 0"
fi
echo "server CPU per cached request: memory $cached_cpu ms$([ "$REDIS" != 0 ] && echo ", redis+front $(cat "$work/cpu-front.txt") ms, redis only $(cat "$work/cpu-direct.txt") ms")"
echo "uncached CPU per search: server $(cpu_per_search "$server_cpu0" "$server_cpu1") ms, loopback engines $(cpu_per_search "$engines_cpu0" "$engines_cpu1") ms ($uncached_n searches)"
echo "overload statuses: $(grep '^status' "$work/overload.txt" | tr '\n' ' ')"
echo "server VmRSS every 5 s during uncached (kB): $(cat "$work/rss.txt")"
echo "server VmRSS after overload: $server_rss kB; peak VmHWM: $server_hwm kB"
sed 's/^/metrics: /' "$work/metrics.txt"
[ -f "$work/metrics-redis.txt" ] && sed 's/^/metrics: /' "$work/metrics-redis.txt"
true
