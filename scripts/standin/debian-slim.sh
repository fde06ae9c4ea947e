#!/usr/bin/env bash
# Makes a LOCAL STAND-IN for the official `debian:bookworm-slim` image from
# Debian's own packages, for a machine where no container registry can be
# reached (scripts/container_check.sh runs it only then):
#
#   scripts/standin/debian-slim.sh [TAG] [ROOTFS]
#
# debootstrap's minbase variant (the essential and required packages and apt,
# what the official image holds), then the official image's slimming
# (debuerreotype-slimify): dpkg told to leave out documentation but the
# copyright files, manual pages, info and translations; those already installed
# removed; no apt caches or package lists. Imported with `podman import` as TAG
# (default localhost/debian:bookworm-slim; PODMAN_OPTS are podman's global
# options), `bash` its command, labelled `org.metasift.standin`. A ROOTFS folder
# that already holds a bookworm minbase tree is used instead of a new
# debootstrap (it is changed in place). Needs root, debootstrap and podman.
set -euo pipefail
TAG=${1:-localhost/debian:bookworm-slim}
ROOT=${2:-}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
command -v podman >/dev/null || { echo "podman is missing" >&2; exit 1; }
if [ -z "$ROOT" ]; then
  command -v debootstrap >/dev/null || { echo "debootstrap is missing: apt-get install debootstrap" >&2; exit 1; }
  ROOT=$(mktemp -d /tmp/debian-slim.XXXXXX)
  trap 'rm -rf "$ROOT" "$ROOT.log"' EXIT
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 \
    || { tail -20 "$ROOT.log" >&2; exit 1; }
fi
[ -f "$ROOT/etc/debian_version" ] || { echo "$ROOT holds no Debian tree" >&2; exit 1; }

cat >"$ROOT/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
CFG
cat >"$ROOT/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG
printf 'Acquire::Languages "none";\n' >"$ROOT/etc/apt/apt.conf.d/docker-no-languages"
printf 'Acquire::GzipIndexes "true";\n' >"$ROOT/etc/apt/apt.conf.d/docker-gzip-indexes"
printf 'APT::AutoRemove::SuggestsImportant "false";\n' >"$ROOT/etc/apt/apt.conf.d/docker-autoremove-suggests"
find "$ROOT/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$ROOT/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$ROOT"/usr/share/{groff,info,linda,locale,man}/* "$ROOT"/usr/share/lintian/overrides/* \
  "$ROOT"/var/cache/apt/*.bin "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* \
  "$ROOT"/var/log/*.log "$ROOT"/var/log/apt/* "$ROOT"/tmp/* 2>/dev/null || true
# shellcheck disable=SC2086
tar -C "$ROOT" --numeric-owner -c . \
  | podman ${PODMAN_OPTS:-} import --change 'CMD ["bash"]' \
      --change 'LABEL org.metasift.standin=scripts/standin/debian-slim.sh' - "$TAG" >/dev/null
echo "stand-in $TAG: $(du -sh --exclude=./proc "$ROOT" | cut -f1) ($(cat "$ROOT/etc/debian_version"))"
