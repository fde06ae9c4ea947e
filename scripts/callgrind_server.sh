#!/usr/bin/env bash
# Instructions per request of `metasift serve`, counted by callgrind: the
# stable measure beside scripts/load.sh's wall figures on a shared machine.
#
# Starts the six loopback engines of scripts/load.sh (timeouts of 60 s:
# under valgrind the server runs ~50 times slower), the release server under
# `valgrind --tool=callgrind` (cache as in load.sh; BACKEND=redis starts a
# redis-server on loopback and puts the cache there, behind the in-memory
# front), one warm-up search, then zeroes the counters, sends exactly N
# requests with scripts/requests.py and dumps: instructions / N is the cost
# of one request, the whole server included (hyper, middleware, cache,
# rendering, the runtime's threads).
#
#   scripts/callgrind_server.sh cached 2000        # the same JSON search N times
#   scripts/callgrind_server.sh uncached 40        # a new query each time
#   BACKEND=redis FRONT_MB=0 scripts/callgrind_server.sh cached 2000
#
# env: CONNS=1 (client connections), BACKEND=memory|redis, FRONT_MB=16,
# MEMORY_MB=16, OUT=/tmp/metasift-callgrind (the dump and an annotation by
# function, inclusive and self, are left there), SERVER=path (another build
# of the server, e.g. a copy of an earlier one to compare; nothing is built
# then, the loopback engines already built are used), PROFILE=release (the
# cargo profile the server is built with: `PROFILE=dist` is what `cargo
# install` and the container image ship; the engines are always `release`).
set -euo pipefail
cd "$(dirname "$0")/.."

KIND=${1:?cached or uncached}
N=${2:?number of requests}
CONNS=${CONNS:-1}
BACKEND=${BACKEND:-memory}
FRONT_MB=${FRONT_MB:-16}
MEMORY_MB=${MEMORY_MB:-16}
OUT=${OUT:-/tmp/metasift-callgrind}
TARGET=${CARGO_TARGET_DIR:-target}

command -v valgrind >/dev/null || { echo "valgrind is missing" >&2; exit 1; }
SERVER=${SERVER:-}
PROFILE=${PROFILE:-release}
if [ -z "$SERVER" ]; then
  cargo build --profile "$PROFILE" --quiet --bin metasift
  cargo build --release --quiet -p metasift-tools --bin loopback_engines
  SERVER="$TARGET/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")/metasift"
fi

mkdir -p "$OUT"
rm -f "$OUT"/callgrind.out*
source scripts/lib.sh
make_work cg

cache="[cache]\nbackend = \"memory\"\nttl_s = 600\nmemory_mb = $MEMORY_MB\n"
if [ "$BACKEND" = redis ]; then
  command -v redis-server >/dev/null || { echo "redis-server is missing" >&2; exit 1; }
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  cache="[cache]\nbackend = \"redis\"\nurl = \"redis://127.0.0.1:$port/\"\nttl_s = 600\nfront_mb = $FRONT_MB\n"
fi

start_engines --seconds 3600 --timeout-ms 60000 \
  --extra '[server]\ndeadline_ms = 60000\n'"$cache"'[limits]\nper_minute = 0\nmax_in_flight = 8\n'

# The tunable `serve` would run itself again with (src/main.rs): set here,
# so there is no second exec, which valgrind would not follow.
GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.mmap_threshold=131072} \
RUST_LOG=warn valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" \
  "$SERVER" serve --config "$work/engines.toml" --bind 127.0.0.1:0 \
  >"$work/serve.out" 2>"$work/serve.err" &
server=$!
pids+=($server)
for _ in $(seq 1 600); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
base=$(sed -n 's/^listening on \(http:[^ ]*\)\/$/\1/p' "$work/serve.out")
[ -n "$base" ] || { cat "$work/serve.out" "$work/serve.err"; exit 1; }

# Warm-up: the cached query's first answer, and the runtime's threads up.
python3 scripts/requests.py "$base" 3 cached 1
python3 scripts/requests.py "$base" 2 uncached 1 warm
callgrind_control --zero "$server" >/dev/null 2>&1
start=$(date +%s.%N)
python3 scripts/requests.py "$base" "$N" "$KIND" "$CONNS"
end=$(date +%s.%N)
callgrind_control --dump="$KIND-$N" "$server" >/dev/null 2>&1
sleep 1
dump="$OUT/callgrind.out.1"
total=$(awk '/^summary:/ {print $2}' "$dump")
callgrind_annotate --threshold=100 --inclusive=yes "$dump" >"$OUT/$KIND-inclusive.txt" 2>/dev/null || true
callgrind_annotate --threshold=100 --inclusive=no "$dump" >"$OUT/$KIND-self.txt" 2>/dev/null || true
echo "== $KIND, $N requests, $CONNS connection(s), server $SERVER, cache $BACKEND$([ "$BACKEND" = redis ] && echo " (front_mb $FRONT_MB)"); $(date -u +%Y-%m-%dT%H:%MZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "server instructions: $total in all, $(awk -v t="$total" -v n="$N" 'BEGIN {printf "%.0f", t / n}') per request ($(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}') s under valgrind)"
echo "dump: $dump; by function: $OUT/$KIND-inclusive.txt, $OUT/$KIND-self.txt"
