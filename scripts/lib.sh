# Shared by the measuring scripts (load.sh, memory.sh, callgrind_server.sh,
# redis_outage.sh): sourced, not run. Needs TARGET (the cargo target dir).

# A work folder in $work and the list $pids of background processes; both
# are cleaned up when the script exits, however it exits.
make_work() { # NAME
  work=$(mktemp -d "/tmp/metasift-$1.XXXXXX")
  pids=()
  trap cleanup EXIT
}
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

# Starts tools/src/bin/loopback_engines (the six saved pages), which writes
# $work/engines.toml; waits until it is ready. The arguments go to it
# (--seconds, --extra, --timeout-ms).
start_engines() {
  "$TARGET/release/loopback_engines" --out "$work/engines.toml" "$@" >"$work/engines.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do grep -q ready "$work/engines.out" 2>/dev/null && break; sleep 0.1; done
  grep -q ready "$work/engines.out" || { cat "$work/engines.out"; exit 1; }
}
