#!/usr/bin/env bash
# Redis killed under load (#12, defect 12): the same cached search with wrk,
# first with Redis up, then with Redis killed, then with Redis back. Before the in-process front
# cache, killing Redis turned every repeated search into a fan-out (7,000 ->
# 104 req/s); now the process keeps answering from its own cache and the
# engines are not asked again.
#
# Starts a redis-server on a free port (no persistence), six loopback
# engines (tools/src/bin/loopback_engines.rs) and `metasift serve` with
# `[cache] backend = "redis"`; prints requests/s, p50/p99 and the engine
# requests each phase caused (from /stats?format=json). Loopback only.
#
# Run with:  scripts/redis_outage.sh   (env: DURATION=15 CONNS=32 THREADS=2)
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-15}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
TARGET=${CARGO_TARGET_DIR:-target}

for tool in wrk redis-server curl python3; do
  command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }
done
echo "== load at start: $(uptime)"

echo "== building (release)"
cargo build --release --quiet --bin metasift
cargo build --release --quiet -p metasift-tools --bin loopback_engines

source scripts/lib.sh
make_work redis-outage

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
  >"$work/redis.out" 2>&1 &
redis=$!
pids+=($redis)
for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done

start_engines --seconds $((DURATION * 2 + 120)) \
  --extra '[server]\ndeadline_ms = 3000\n[cache]\nbackend = "redis"\nurl = "redis://127.0.0.1:'"$port"'/"\nttl_s = 600\n[limits]\nper_minute = 0\n'

RUST_LOG=warn "$TARGET/release/metasift" serve --config "$work/engines.toml" --bind 127.0.0.1:0 \
  >"$work/serve.out" 2>"$work/serve.err" &
pids+=($!)
for _ in $(seq 1 100); do grep -q "listening on" "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(sed -n 's/^listening on \(http:[^ ]*\)\/$/\1/p' "$work/serve.out")
[ -n "$base" ] || { cat "$work/serve.out" "$work/serve.err"; exit 1; }

engine_requests() {
  curl -fsS "$base/stats?format=json" |
    python3 -c 'import json,sys; print(sum(e["requests"] for e in json.load(sys.stdin)["engines"]))'
}
url="$base/search?q=javascript+tutorial&format=json"
curl -fsS "$url" -o /dev/null

phase() { # label
  local before after
  before=$(engine_requests)
  wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --latency "$url" >"$work/$1.txt"
  after=$(engine_requests)
  printf '%-14s %10s req/s   p50 %-9s p99 %-9s engine requests %s   %s\n' "$1" \
    "$(awk '/^Requests\/sec/ {print $2}' "$work/$1.txt")" \
    "$(awk '$1 == "50%" {print $2}' "$work/$1.txt")" \
    "$(awk '$1 == "99%" {print $2}' "$work/$1.txt")" \
    "$((after - before))" \
    "$(grep -E "Non-2xx|Socket errors" "$work/$1.txt" | tr '\n' ' ' || true)"
}

echo "== cached search, $CONNS connections, ${DURATION}s each"
phase "redis up"
kill "$redis"
wait "$redis" 2>/dev/null || true
phase "redis killed"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" \
  >>"$work/redis.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
phase "redis back"
echo "== load at end: $(uptime)"
