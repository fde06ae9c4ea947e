#!/usr/bin/env bash
# The server's memory before and after N uncached searches: VmRSS (and its
# anonymous and file-backed parts) at idle after start, after a warm-up,
# every 3 s while 8 connections send N searches of new queries to the six
# loopback engines of scripts/load.sh (cache of 16 MB), and at the end
# with the peak (VmHWM). For comparing allocator settings, not speeds.
#
#   scripts/memory.sh 600                       # as `metasift serve` runs
#   scripts/memory.sh 600 GLIBC_TUNABLES=glibc.malloc.arena_max=2
#   scripts/memory.sh 600 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
#
# env: SERVER=path (another build of the server; nothing is built then).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:?number of uncached searches}
shift
TARGET=${CARGO_TARGET_DIR:-target}
SERVER=${SERVER:-}
if [ -z "$SERVER" ]; then
  cargo build --release --quiet --bin metasift
  cargo build --release --quiet -p metasift-tools --bin loopback_engines
  SERVER="$TARGET/release/metasift"
fi

source scripts/lib.sh
make_work memory

start_engines --seconds 900 \
  --extra '[server]\ndeadline_ms = 3000\n[cache]\nbackend = "memory"\nttl_s = 600\nmemory_mb = 16\n[limits]\nper_minute = 0\nmax_in_flight = 8\n'
env "$@" RUST_LOG=warn "$SERVER" serve --config "$work/engines.toml" --bind 127.0.0.1:0 \
  >"$work/serve.out" 2>"$work/serve.err" &
server=$!
pids+=($server)
for _ in $(seq 1 100); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^listening on \(http:[^ ]*\)\/$/\1/p' "$work/serve.out")
[ -n "$base" ] || { cat "$work/serve.out" "$work/serve.err"; exit 1; }
status() { awk '/^(VmRSS|VmHWM|RssAnon|RssFile):/ {printf "%s %s kB  ", $1, $2}' "/proc/$server/status"; }

echo "== $N uncached searches, 8 connections; $(date -u +%Y-%m-%dT%H:%MZ); load $(cut -d' ' -f1-3 /proc/loadavg); env: ${*:-none}"
echo "idle:   $(status)"
python3 scripts/requests.py "$base" 3 cached 1
echo "warm:   $(status)"
(while kill -0 "$server" 2>/dev/null; do sleep 3; awk '/^VmRSS:/ {printf "%s ", $2}' "/proc/$server/status"; done) >"$work/rss" 2>/dev/null &
sampler=$!
python3 scripts/requests.py "$base" "$N" uncached 8 mem
kill "$sampler" 2>/dev/null || true
echo "VmRSS every 3 s (kB): $(cat "$work/rss")"
echo "after:  $(status)"
