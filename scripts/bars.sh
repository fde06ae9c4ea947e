#!/usr/bin/env bash
# Every speed bar of the project measured once on this machine, each with the
# machine's load beside it, then one table: bar, measured, met or not.
#
#   1. parse: `cargo bench --bench parse` ('^parse/', the path a search runs),
#      MiB/s per preset from criterion's median — bar ≥ 300 MB/s for every
#      HTML preset;
#   2. the 2,000-record dedup (`cargo bench --bench dedup`,
#      dedup_2000/one_list/feature-code) — bar ≤ 2 ms on one core;
#   3. the dedup stream: `metasift dedup --stats` on a million generated
#      records and a million realistic ones (`gen_records --realistic`),
#      RUNS times each, two workers (the default) — bar ≥ 500,000 records/s;
#   4. the server: scripts/load.sh (uncached ≥ 250 searches/s with p99 <
#      100 ms, memory ≤ 64 MB; cached ≥ 20,000 req/s from memory and within
#      2× through Redis with the front).
#
# Wall times on a shared machine move with what else runs: the load average is
# printed with every figure; the instruction counts that do not move are
# scripts/callgrind_server.sh, tools parse_pages and dedup_cpu (docs/performance.md).
#
# Run with:  scripts/bars.sh     (env: RUNS=3, DURATION=20 for load.sh, BUILD=0
#            uses what is built, SKIP="parse dedup2k stream load" skips steps)
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
DURATION=${DURATION:-20}
SKIP=${SKIP:-}
TARGET=${CARGO_TARGET_DIR:-target}
export CARGO_TARGET_DIR=$TARGET
work=$(mktemp -d /tmp/metasift-bars.XXXXXX)
trap 'rm -rf "$work"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
skip() { case " $SKIP " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
summary="$work/summary"
: >"$summary"
row() { printf '%-44s %-28s %-16s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; }

if [ "${BUILD:-1}" != 0 ]; then
  echo "== building (release)"
  cargo build --release --quiet --bin metasift
  cargo build --release --quiet -p metasift-tools --bin loopback_engines --bin gen_records
fi

if ! skip parse; then
  l=$(load | cut -d' ' -f1)
  echo "== parse (load $(load))"
  cargo bench --quiet --bench parse -- --warm-up-time 1 --measurement-time 3 '^parse/' \
    >"$work/parse.out" 2>&1 || { cat "$work/parse.out"; exit 1; }
  html=$(sed -n '/^\[\[engine\]\]/,/^kind/{s/^name = "\(.*\)"/\1/p;s/^kind = "\(.*\)"/\1/p}' engines.toml |
    paste - - | awk '$2 == "html" {print $1}')
  for dir in "$TARGET"/criterion/parse/*/; do
    name=$(basename "$dir")
    [ -f "$dir/new/estimates.json" ] || continue
    mibs=$(python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
ns = json.load(open(d + "/new/estimates.json"))["median"]["point_estimate"]
b = json.load(open(d + "/new/benchmark.json"))["throughput"]["Bytes"]
print(f"{b / (ns / 1e9) / 1e6:.0f}")
PY
)
    if printf '%s\n' $html | grep -qx "$name"; then
      verdict=$([ "$mibs" -ge 300 ] && echo met || echo "NOT met")
      row "parse $name (HTML) ≥ 300 MB/s" "$mibs MB/s" "load $l at start" "$verdict"
    else
      row "parse $name (not HTML: no bar)" "$mibs MB/s" "" ""
    fi
  done
fi

if ! skip dedup2k; then
  l=$(load | cut -d' ' -f1)
  echo "== 2,000 records (load $(load))"
  cargo bench --quiet --bench dedup -- --warm-up-time 1 --measurement-time 5 \
    'dedup_2000/one_list/feature-code$' >"$work/dedup.out" 2>&1 || { cat "$work/dedup.out"; exit 1; }
  ms=$(python3 -c "import json;print(f\"{json.load(open('$TARGET/criterion/dedup_2000/one_list_feature-code/new/estimates.json'))['median']['point_estimate']/1e6:.2f}\")")
  verdict=$(python3 -c "print('met' if $ms <= 2.0 else 'NOT met')")
  row "2,000 records ≤ 2 ms (one core)" "$ms ms" "load $l at start" "$verdict"
fi

if ! skip stream; then
  echo "== the dedup stream: generating records"
  "$TARGET/release/gen_records" --records 1000000 >"$work/generated.jsonl"
  "$TARGET/release/gen_records" --realistic --records 1000000 >"$work/realistic.jsonl"
  # Written back before timing: 0.8 GB of dirty pages flushed during a run
  # cost it a fifth of its speed.
  sync
  for kind in generated realistic; do
    best=0 bestload=
    for _ in $(seq 1 "$RUNS"); do
      l=$(load | cut -d' ' -f1)
      rate=$("$TARGET/release/metasift" dedup --input "$work/$kind.jsonl" --output /dev/null --stats 2>&1 |
        sed -n 's/.*"records_per_second":\([0-9]*\).*/\1/p')
      echo "   $kind: $rate records/s (load $l)"
      [ "$rate" -gt "$best" ] && best=$rate && bestload=$l
    done
    verdict=$([ "$best" -ge 500000 ] && echo met || echo "NOT met")
    row "dedup stream, 1M $kind ≥ 500,000 rec/s" "$best rec/s (best of $RUNS)" "load $bestload" "$verdict"
  done
  rm -f "$work"/*.jsonl
fi

if ! skip load; then
  echo "== scripts/load.sh (load $(load))"
  BUILD=0 DURATION=$DURATION scripts/load.sh >"$work/load.out" 2>&1 || { tail -40 "$work/load.out"; exit 1; }
  sed -n '/^== summary/,$p' "$work/load.out"
  read -r _ unc _ _ _ _ p99 _ < <(grep '^uncached ' "$work/load.out")
  cached=$(awk '$1 == "cached" && $3 == "req/s" {print $2}' "$work/load.out")
  front=$(awk '/^redis\+front /{print $2}' "$work/load.out")
  peak=$(sed -n 's/.*peak VmHWM: \([0-9]*\) kB.*/\1/p' "$work/load.out")
  l=$(sed -n 's/.*load average at start \([0-9.]*\).*/\1/p' "$work/load.out")
  ok() { python3 -c "print('met' if $1 else 'NOT met')"; }
  row "uncached ≥ 250/s, p99 < 100 ms" "$unc/s, p99 $p99" "load $l" "$(ok "$unc >= 250 and float('${p99%ms}') < 100")"
  row "memory under load ≤ 64 MB" "peak VmHWM $((peak / 1024)) MB" "load $l" "$(ok "$peak <= 65536")"
  row "cached from memory ≥ 20,000 req/s" "$cached req/s" "load $l" "$(ok "$cached >= 20000")"
  row "cached via Redis+front ≥ 10,000 req/s" "$front req/s" "load $l" "$(ok "$front >= 10000")"
fi

echo
echo "== bars ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load now $(load), commit $(git rev-parse --short HEAD))"
cat "$summary"
