#!/usr/bin/env bash
# The container files checked end to end (issue #15), as an admin would:
#
#   1. the Dockerfile built as it is (both stages), timed, and the image's size;
#   2. the image run: user 10001, its HEALTHCHECK healthy, a JSON search
#      answered from a loopback engine, a graceful stop on SIGTERM (exit 0);
#   3. compose.yaml run with two metasift instances on one Redis behind its
#      Caddy proxy (`--scale metasift=2`): both healthy; an engine that
#      answers HTTP 429 to one instance is rested on both (counted at the
#      engine, and /stats of the other names who met it); a page one instance
#      fetched is answered by the other from the shared cache (the engine is
#      not asked again); through the proxy's one port, searches spread over
#      both instances (counted in each one's access log) and the per-client
#      limit counts the client the proxy names in X-Forwarded-For, across both
#      instances (one client refused after its burst, another still served);
#      with Redis stopped both answer alone, and once it is back they share
#      again; one instance stopped, the proxy answers every search from the
#      other.
#
#   scripts/container_check.sh          # all three
#   BUILD=0 scripts/container_check.sh  # 2 and 3 on the metasift:latest already built
#   COMPOSE=0 scripts/container_check.sh
#
# Needs podman (Debian's `podman`), and for part 3 `docker-compose` (Debian's,
# v1) or a `docker compose` plugin, driven through podman's Docker-compatible
# API (`podman system service`, started here on a socket of its own, unless
# DOCKER_HOST is set). Without podman it says so loudly and exits 0 (1 with
# METASIFT_REQUIRE_SERVICES=1); without a compose tool, part 3 likewise.
# Base images that cannot be pulled (no registry reachable) are replaced by
# LOCAL STAND-INS built from Debian's packages (scripts/standin/, said loudly;
# STANDIN=0 refuses instead). Every step is bounded (`timeout`); everything it
# starts is stopped at the end. Not part of `cargo test` or .ci/run: building
# the image from scratch takes tens of minutes.
#
# podman-compose (Debian's 1.0.3) is not used: it ignores `--scale` (starts
# one instance; containers/podman-compose#267, fixed in later versions).
#
# On a machine like the one of docs/operations.md (cgroups v1, no systemd):
#   export CONTAINERS_CONF=$PWD/scripts/standin/containers.conf \
#          CONTAINERS_STORAGE_CONF=$PWD/scripts/standin/storage.conf
# env: PODMAN_OPTS   global podman options, if any
#      RUN_OPTS      extra `podman run` options for part 2
#      BUILD_TIMEOUT 5400 s; PULL_TIMEOUT 60 s
#      IMAGE         metasift:latest (what compose.yaml runs)
#      PORT          18888, the port of the single container (host network)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-1}
COMPOSE=${COMPOSE:-1}
STANDIN=${STANDIN:-1}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-5400}
PULL_TIMEOUT=${PULL_TIMEOUT:-60}
IMAGE=${IMAGE:-metasift:latest}
PORT=${PORT:-18888}
PODMAN_OPTS=${PODMAN_OPTS:-}
RUN_OPTS=${RUN_OPTS:-}
PROJECT=metasift-check

say() { printf '== %s\n' "$*"; }
loud() { printf '\n!! %s\n\n' "$*" >&2; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
skip() { # what, why
  if [ "${METASIFT_REQUIRE_SERVICES:-0}" = 1 ]; then
    fail "$1: $2 (METASIFT_REQUIRE_SERVICES=1)"
  fi
  loud "SKIPPED: $1: $2"
}

if ! command -v podman >/dev/null; then
  skip "every container check" "podman is not installed (apt-get install podman runc)"
  exit 0
fi
# shellcheck disable=SC2086
P() { podman $PODMAN_OPTS "$@"; }

work=$(mktemp -d /tmp/metasift-container-check.XXXXXX)
pids=()
cleanup() {
  set +e
  if [ -n "${compose_cmd:-}" ]; then
    timeout 120 "${compose_cmd[@]}" down -t 15 >/dev/null 2>&1
  fi
  P rm -f -t 5 "$PROJECT-single" >/dev/null 2>&1
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

t0=$(date +%s)
say "podman: $(P --version); $(uptime)"

# ---------------------------------------------------------------- base images
# The names the Dockerfile and compose.yaml ask for.
rust_version=$(sed -n 's/^ARG RUST_VERSION=//p' Dockerfile)
debian=$(sed -n 's/^ARG DEBIAN=//p' Dockerfile)
rust_image="rust:${rust_version}-slim-${debian}"
debian_image="debian:${debian}-slim"
redis_image=$(sed -n 's/^ *image: *\(redis:[^ ]*\) *$/\1/p' compose.yaml)
caddy_image=$(sed -n 's/^ *image: *\(caddy:[^ ]*\) *$/\1/p' compose.yaml)
[ -n "$rust_version" ] && [ -n "$debian" ] && [ -n "$redis_image" ] && [ -n "$caddy_image" ] \
  || fail "cannot read the base images from Dockerfile / compose.yaml"

# Tags a stand-in under the short name's two spellings: `podman build`
# resolves FROM to localhost/NAME, the Docker-compatible API to
# docker.io/library/NAME.
tag_both() { # image-id name
  P tag "$1" "localhost/$2" "docker.io/library/$2"
}
ensure_image() { # name stand-in-builder
  local name=$1 builder=$2 standin
  if P image exists "$name"; then
    standin=$(P image inspect --format '{{index .Labels "org.metasift.standin"}}' "$name" 2>/dev/null || true)
    if [ -n "$standin" ] && [ "$standin" != "<no value>" ]; then
      loud "STAND-IN: $name is the local stand-in made by $standin, not the official image"
    else
      say "$name: present"
    fi
    return
  fi
  if timeout "$PULL_TIMEOUT" podman $PODMAN_OPTS pull -q "docker.io/library/$name" >"$work/pull.out" 2>&1; then
    say "$name: pulled"
    return
  fi
  [ "$STANDIN" = 1 ] || fail "$name cannot be pulled ($(tail -1 "$work/pull.out")) and STANDIN=0"
  loud "STAND-IN: $name cannot be pulled ($(tail -1 "$work/pull.out")); building a local stand-in with $builder"
  "$builder" "$name"
}
standin_debian() { # name
  command -v debootstrap >/dev/null || fail "no $1 and no debootstrap to make a stand-in (apt-get install debootstrap)"
  PODMAN_OPTS=$PODMAN_OPTS timeout 1200 scripts/standin/debian-slim.sh "localhost/$1" \
    || fail "the $1 stand-in"
  tag_both "localhost/$1" "$1"
}
standin_from() { # name containerfile
  local ctx="$work/standin-ctx"
  rm -rf "$ctx" && mkdir -p "$ctx/extra-ca"
  cp scripts/standin/* "$ctx/"
  # A TLS-intercepting egress proxy's CA, if this machine has one (see the Containerfile).
  cp /usr/local/share/ca-certificates/*.crt "$ctx/extra-ca/" 2>/dev/null || true
  timeout 1800 podman $PODMAN_OPTS build --pull=never --network host --format docker \
    --label "org.metasift.standin=scripts/standin/$2" -f "$ctx/$2" -t "localhost/$1" "$ctx" \
    >"$work/standin.log" 2>&1 || { tail -30 "$work/standin.log"; fail "the $1 stand-in"; }
  tag_both "localhost/$1" "$1"
  say "stand-in $1 built from scripts/standin/$2"
}
standin_rust() { standin_from "$1" rust.Containerfile; }
standin_redis() { standin_from "$1" redis.Containerfile; }
standin_caddy() { standin_from "$1" caddy.Containerfile; }

ensure_image "$debian_image" standin_debian
[ "$BUILD" = 0 ] || ensure_image "$rust_image" standin_rust
[ "$COMPOSE" = 0 ] || ensure_image "$redis_image" standin_redis
[ "$COMPOSE" = 0 ] || ensure_image "$caddy_image" standin_caddy

# ---------------------------------------------------------------- 1. build
if [ "$BUILD" != 0 ]; then
  say "1. podman build (the Dockerfile as it is; timeout ${BUILD_TIMEOUT}s)"
  b0=$(date +%s)
  # --format docker: the OCI format has no HEALTHCHECK. --network host: the
  # build stage downloads crates (the default bridge is not needed for it).
  if ! timeout "$BUILD_TIMEOUT" podman $PODMAN_OPTS build --pull=never --network host \
      --format docker -t "$IMAGE" . >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    fail "podman build (log above)"
  fi
  b1=$(date +%s)
  grep -E '^(STEP|COMMIT)|Finished|Compiling metasift ' "$work/build.log" | tail -8
  build_s=$((b1 - b0))
  say "built $IMAGE in ${build_s}s (load now $(cut -d' ' -f1-3 /proc/loadavg))"
fi
P image exists "$IMAGE" || fail "$IMAGE does not exist (BUILD=0 needs a built image)"
size=$(P image inspect --format '{{.Size}}' "$IMAGE")
base_size=$(P image inspect --format '{{.Size}}' "$debian_image")
bin_size=$(P run --rm --network host $RUN_OPTS --entrypoint stat "$IMAGE" -c %s /usr/local/bin/metasift)
say "image $IMAGE: $((size / 1000000)) MB uncompressed; its base $debian_image $((base_size / 1000000)) MB; /usr/local/bin/metasift $((bin_size / 1000000)) MB"
P history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | cut -c1-110 | head -8

# ---------------------------------------------------------------- 2. run
say "2. the image run alone (host network, port $PORT)"
engine_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("0.0.0.0",0)); print(s.getsockname()[1])')
# Listens on every address: the compose containers reach it through the host.
python3 scripts/standin/engine.py 0.0.0.0 "$engine_port" >"$work/engine.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q ready "$work/engine.out" && break; sleep 0.1; done
grep -q ready "$work/engine.out" || fail "the loopback engine did not start"
counts() { curl -fsS "http://127.0.0.1:$engine_port/counts"; }
count_of() { counts | python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
config() { # host-of-the-engine
  cat <<TOML
use_defaults = false
[limits]
per_minute = 0

[[engine]]
name = "good"
kind = "searxng"
url = "http://$1:$engine_port/good/search?q={query}"
timeout_ms = 3000

[[engine]]
name = "blocky"
kind = "searxng"
url = "http://$1:$engine_port/blocky/search?q={query}"
timeout_ms = 3000
TOML
}
config 127.0.0.1 >"$work/single.toml"
chmod 644 "$work/single.toml"
P rm -f "$PROJECT-single" >/dev/null 2>&1 || true
# shellcheck disable=SC2086
P run -d --name "$PROJECT-single" --network host $RUN_OPTS -e METASIFT_BIND="127.0.0.1:$PORT" \
  -v "$work/single.toml:/etc/metasift/engines.toml:ro" "$IMAGE" >/dev/null
for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
who=$(P exec "$PROJECT-single" id)
case "$who" in uid=10001*gid=10001*) say "runs as: $who" ;; *) fail "runs as $who, not 10001" ;; esac
P healthcheck run "$PROJECT-single" >/dev/null || fail "the HEALTHCHECK failed"
health=$(P inspect --format '{{.State.Health.Status}}' "$PROJECT-single" 2>/dev/null \
  || P inspect --format '{{.State.Healthcheck.Status}}' "$PROJECT-single")
[ "$health" = healthy ] || fail "health status $health"
say "HEALTHCHECK: $health"
curl -fsS "http://127.0.0.1:$PORT/search?q=container+check&format=json" >"$work/single.json"
python3 - "$work/single.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
urls = [r["url"] for r in d["results"]]
assert urls == ["https://example.org/good"], d
assert "blocky" in json.dumps(d["unresponsive_engines"]), d
print("== search: 1 result from the loopback engine, the 429 engine reported unresponsive")
PY
# Logs to a file first: `grep -q` ending a pipe early fails it under pipefail.
P logs "$PROJECT-single" >"$work/single.log" 2>&1
grep -q 'configuration: /etc/metasift/engines.toml' "$work/single.log" \
  || fail "the log does not name /etc/metasift/engines.toml"
s0=$(date +%s%N)
P stop -t 15 "$PROJECT-single" >/dev/null
s1=$(date +%s%N)
code=$(P inspect --format '{{.State.ExitCode}}' "$PROJECT-single")
P logs "$PROJECT-single" >"$work/single.log" 2>&1
grep -q 'metasift stopped' "$work/single.log" || fail "no 'metasift stopped' in the log"
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"
say "SIGTERM: 'metasift stopped', exit code 0, in $(((s1 - s0) / 1000000)) ms"
P rm -f "$PROJECT-single" >/dev/null

# ---------------------------------------------------------------- 3. compose
if [ "$COMPOSE" = 0 ]; then
  say "3. compose: not asked (COMPOSE=0)"
  say "done in $(($(date +%s) - t0))s"
  exit 0
fi
if docker compose version >/dev/null 2>&1; then
  compose_bin=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose_bin=(docker-compose)
else
  skip "3. compose" "no docker compose / docker-compose (apt-get install docker-compose; podman-compose 1.0.3 ignores --scale)"
  exit 0
fi
if [ -z "${DOCKER_HOST:-}" ]; then
  # shellcheck disable=SC2086
  podman $PODMAN_OPTS system service --time=0 "unix://$work/podman.sock" >"$work/service.log" 2>&1 &
  pids+=($!)
  export DOCKER_HOST="unix://$work/podman.sock"
  for _ in $(seq 1 100); do [ -S "$work/podman.sock" ] && break; sleep 0.1; done
fi
say "3. compose.yaml with ${compose_bin[*]} ($("${compose_bin[@]}" version --short 2>/dev/null || true)) on $DOCKER_HOST: two instances, one Redis, one proxy"
# compose.yaml's own configuration loads and believes the proxy.
P run --rm --network none -v "$PWD/deploy/engines.compose.toml:/etc/metasift/engines.toml:ro" \
  "$IMAGE" check-config --print-merged >"$work/merged.toml" 2>&1 \
  || { cat "$work/merged.toml"; fail "deploy/engines.compose.toml does not load"; }
grep -q '^trust_forwarded = true$' "$work/merged.toml" || fail "deploy/engines.compose.toml: no trust_forwarded = true"
say "deploy/engines.compose.toml: loads, trust_forwarded = true"
# The per-client limit on (a burst of $BURST, then 1 a minute) and the
# proxy's X-Forwarded-For believed, as deploy/engines.compose.toml does.
BURST=20
config host.containers.internal \
  | sed "s/^per_minute = 0\$/per_minute = 1\nburst = $BURST\ntrust_forwarded = true/" >"$work/compose.toml"
grep -q '^trust_forwarded = true$' "$work/compose.toml" || fail "the compose check's config"
chmod 644 "$work/compose.toml"
# The check's own engines in place of deploy/engines.compose.toml, and each
# instance also on a loopback port of its own (to ask one of them directly);
# nothing else changes.
cat >"$work/compose.override.yaml" <<YAML
services:
  metasift:
    ports:
      - "127.0.0.1::8888"
    volumes:
      - $work/compose.toml:/etc/metasift/engines.toml:ro
YAML
compose_cmd=("${compose_bin[@]}" -p "$PROJECT" -f compose.yaml -f "$work/compose.override.yaml")
# METASIFT_PORT empty: the proxy on a free loopback port (compose.yaml).
METASIFT_PORT= timeout 600 "${compose_cmd[@]}" up -d --no-build --scale metasift=2 >"$work/compose-up.log" 2>&1 &
up=$!
# Podman runs HEALTHCHECKs from systemd timers; without systemd nothing runs
# them, so `depends_on: condition: service_healthy` would wait for ever. This
# loop runs them as the timers would (a machine with systemd does not need it).
(
  while kill -0 "$up" 2>/dev/null || [ ! -f "$work/stop-health" ]; do
    for c in $(P ps -q --filter "label=com.docker.compose.project=$PROJECT" 2>/dev/null); do
      P healthcheck run "$c" >/dev/null 2>&1 || true
    done
    sleep 2
  done
) &
pids+=($!)
wait "$up" || { cat "$work/compose-up.log"; fail "compose up"; }
tail -5 "$work/compose-up.log"
mapfile -t ms < <(P ps --filter "label=com.docker.compose.project=$PROJECT" \
  --filter "label=com.docker.compose.service=metasift" --format '{{.Names}}' | sort)
[ "${#ms[@]}" = 2 ] || fail "${#ms[@]} metasift containers, not 2: ${ms[*]}"
# Each instance on the loopback port compose published for it.
addr() { P port "$1" 8888/tcp | head -1; }
a="http://$(addr "${ms[0]}")"
b="http://$(addr "${ms[1]}")"
for c in "${ms[@]}"; do
  for _ in $(seq 1 50); do P healthcheck run "$c" >/dev/null 2>&1 && break; sleep 0.2; done
  health=$(P inspect --format '{{.State.Health.Status}}' "$c" 2>/dev/null || echo '?')
  [ "$health" = healthy ] || fail "$c: health $health"
  say "$c: $health, on $(addr "$c")"
done
px=$(P ps --filter "label=com.docker.compose.project=$PROJECT" \
  --filter "label=com.docker.compose.service=proxy" --format '{{.Names}}')
[ -n "$px" ] || fail "no proxy container"
proxy="http://$(addr "$px")"
for _ in $(seq 1 50); do curl -fsS -m 2 "$proxy/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fsS -m 5 "$proxy/healthz" >/dev/null || fail "the proxy $px does not answer on $proxy"
say "proxy $px ($(P exec "$px" caddy version 2>/dev/null | cut -d' ' -f1)): on ${proxy#http://}"
before=$(count_of blocky)
curl -fsS "$a/search?q=first&format=json" >/dev/null
for q in second third; do curl -fsS "$b/search?q=$q&format=json" >"$work/b-$q.json"; done
blocky=$(($(count_of blocky) - before))
[ "$blocky" = 1 ] || fail "the 429 engine was asked $blocky times, not once (the second instance did not adopt the rest)"
curl -fsS "$b/stats?format=json" >"$work/b-stats.json"
# The first instance's name on /stats: HOSTNAME:PORT, the container's hostname.
python3 - "$work/b-stats.json" "$(P inspect --format '{{.Config.Hostname}}' "${ms[0]}"):8888" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
row = next(e for e in stats["engines"] if e["name"] == "blocky")
assert row["suspended"] is True, row
assert row["suspended_by"] == sys.argv[2], (row, sys.argv[2])
print(f"== health shared: the 429 engine asked once for 3 searches on 2 instances; "
      f"/stats of the second: suspended, suspended_by {row['suspended_by']!r} (the first)")
PY
good0=$(count_of good)
curl -fsS "$a/search?q=shared+page&format=json" >/dev/null
curl -fsS "$b/search?q=shared+page&format=json" >"$work/b-shared.json"
good=$(($(count_of good) - good0))
[ "$good" = 1 ] || fail "the engine was asked $good times for one page searched on both instances (cache not shared)"
grep -q '"https://example.org/good"' "$work/b-shared.json" || fail "the second instance's cached answer: $(cat "$work/b-shared.json")"
say "cache shared: a page searched on both instances asked the engine once"
# Through the proxy. Which instance answered: its access log's /search lines.
searches() { # container
  P logs "$1" >"$work/access.log" 2>&1 || true
  { grep '"metasift::access"' "$work/access.log" || true; } | grep -c '"path":"/search"' || true
}
n0=$(searches "${ms[0]}"); n1=$(searches "${ms[1]}")
for i in $(seq 1 10); do
  curl -fsS -m 10 -H 'X-Forwarded-For: 198.51.100.10' "$proxy/search?q=spread+$i&format=json" >"$work/spread.json" \
    || fail "search $i through the proxy"
  grep -q '"https://example.org/good"' "$work/spread.json" || fail "search $i through the proxy: $(cat "$work/spread.json")"
done
d0=$(($(searches "${ms[0]}") - n0)); d1=$(($(searches "${ms[1]}") - n1))
[ $((d0 + d1)) = 10 ] || fail "10 searches through the proxy, $d0 + $d1 in the instances' access logs"
[ "$d0" -ge 1 ] && [ "$d1" -ge 1 ] || fail "10 searches through the proxy all went to one instance ($d0 / $d1)"
say "through the proxy: 10 searches answered, $d0 by ${ms[0]} and $d1 by ${ms[1]}"
# The per-client limit through the proxy: X-Forwarded-For as an HTTPS proxy
# on this host writes it (the compose proxy keeps it from a private address
# and appends its own hop; metasift takes the rightmost untrusted one).
status() { # client query
  curl -sS -m 10 -o /dev/null -w '%{http_code}' -H "X-Forwarded-For: $1" "$proxy/search?q=$2&format=json"
}
for i in $(seq 1 "$BURST"); do
  code=$(status 198.51.100.1 "limit+$i")
  [ "$code" = 200 ] || fail "client 198.51.100.1, search $i of its burst of $BURST: HTTP $code"
done
code=$(status 198.51.100.1 "limit+over")
[ "$code" = 429 ] || fail "client 198.51.100.1 after its burst of $BURST: HTTP $code, not 429"
code=$(status 198.51.100.2 "limit+other")
[ "$code" = 200 ] || fail "client 198.51.100.2 after 198.51.100.1's burst: HTTP $code (the proxy counted as the client?)"
say "per-client limit through the proxy, over both instances: client 198.51.100.1 served $BURST uncached searches, then 429; client 198.51.100.2 still 200"
# Redis away, then back (docs/operations.md, "When Redis restarts"): the
# instances answer alone meanwhile, and share the cache again after.
say "redis at $(P inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' \
  "$(P ps -a -q --filter "label=com.docker.compose.project=$PROJECT" --filter "label=com.docker.compose.service=redis")"), stopping it"
timeout 60 "${compose_cmd[@]}" stop -t 5 redis >/dev/null 2>&1 || fail "compose stop redis"
for url in "$a" "$b"; do
  answer=$(curl -fsS -m 10 "$url/search?q=redis+away&format=json") || fail "$url: no answer with Redis stopped"
  case "$answer" in *'"https://example.org/good"'*) ;; *) fail "$url with Redis stopped: $answer" ;; esac
done
redis_c=$(P ps -a -q --filter "label=com.docker.compose.project=$PROJECT" --filter "label=com.docker.compose.service=redis")
timeout 60 "${compose_cmd[@]}" start redis >/dev/null 2>&1 || fail "compose start redis"
say "redis started again at $(P inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$redis_c")"
# The first search on each instance after Redis is back finds the old
# connection broken (one failed call: that page is not shared) and reconnects;
# a failed call makes the instance leave Redis alone for 0.5 s, doubling to
# 5 s while failures follow each other (src/ops/redis.rs): then it is back.
sleep 1
for url in "$a" "$b"; do curl -fsS -m 10 "$url/search?q=redis+warm&format=json" >/dev/null; done
sleep 6
good0=$(count_of good)
curl -fsS "$a/search?q=redis+back&format=json" >/dev/null
curl -fsS "$b/search?q=redis+back&format=json" >/dev/null
good=$(($(count_of good) - good0))
if [ "$good" != 1 ]; then
  for c in "${ms[@]}"; do echo "-- $c"; P logs "$c" 2>&1 | grep -v '"metasift::access"' | tail -6; done
  fail "after Redis came back, one page on both instances asked the engine $good times"
fi
say "Redis stopped: both instances answered alone; started again: the cache is shared again"
# One instance stopped: the proxy's DNS lookup (each second) drops it, and a
# request already sent its way is tried on the other (lb_try_duration).
P stop -t 15 "${ms[1]}" >/dev/null || fail "podman stop ${ms[1]}"
n0=$(searches "${ms[0]}")
s0=$(date +%s%N)
for i in $(seq 1 10); do
  curl -fsS -m 10 -H 'X-Forwarded-For: 198.51.100.20' "$proxy/search?q=one+left+$i&format=json" >"$work/left.json" \
    || fail "search $i through the proxy with ${ms[1]} stopped"
  grep -q '"https://example.org/good"' "$work/left.json" || fail "search $i with ${ms[1]} stopped: $(cat "$work/left.json")"
done
s1=$(date +%s%N)
d0=$(($(searches "${ms[0]}") - n0))
[ "$d0" = 10 ] || fail "with ${ms[1]} stopped, ${ms[0]} logged $d0 of 10 searches"
say "${ms[1]} stopped: 10 searches through the proxy all answered by ${ms[0]}, in $(((s1 - s0) / 1000000)) ms"
touch "$work/stop-health"
d0=$(date +%s)
timeout 120 "${compose_cmd[@]}" stop -t 15 >"$work/compose-stop.log" 2>&1 || { cat "$work/compose-stop.log"; fail "compose stop"; }
for c in "${ms[@]}"; do
  code=$(P inspect --format '{{.State.ExitCode}}' "$c")
  P logs "$c" >"$work/$c.log" 2>&1
  grep -q 'metasift stopped' "$work/$c.log" || fail "$c: no 'metasift stopped' in its log"
  [ "$code" = 0 ] || fail "$c: exit code $code after compose stop"
done
say "compose stop: both instances 'metasift stopped', exit code 0, in $(($(date +%s) - d0))s"
timeout 120 "${compose_cmd[@]}" down -t 15 >"$work/compose-down.log" 2>&1 || { cat "$work/compose-down.log"; fail "compose down"; }
compose_cmd=()
say "done in $(($(date +%s) - t0))s${build_s:+ (the build ${build_s}s)}; load $(cut -d' ' -f1-3 /proc/loadavg)"
