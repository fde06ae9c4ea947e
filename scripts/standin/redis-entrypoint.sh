#!/bin/sh
# The stand-in Redis image's entrypoint (scripts/standin/redis.Containerfile):
# `redis-server …` runs as the user redis with protected mode off, like the
# official image; any other command runs as given.
set -e
case "$1" in -*) set -- redis-server "$@" ;; esac
if [ "$1" = redis-server ]; then
  set -- "$@" --protected-mode no
  if [ "$(id -u)" = 0 ]; then
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
