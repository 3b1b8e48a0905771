#!/usr/bin/env bash
# A real PostgreSQL 16.2 with pgvector 0.6.2 for the tests, from the pgserver 0.1.4 wheel on PyPI
# (its `pgserver/pginstall/` holds the server's binaries and `vector.so`; it needs only glibc and
# libz). Two uses:
#   scripts/postgres.sh install DEST      fetches the wheel (sha256-checked) and unpacks it into
#                                         DEST/pgserver, unless it is there already;
#   scripts/postgres.sh run DEST CMD...   starts a server in a temporary data directory on a free
#                                         loopback port, runs CMD with LECTERN_TEST_DATABASE_URL set
#                                         to its `postgres` database, stops the server and removes the
#                                         data directory whatever CMD did; returns CMD's status.
# PostgreSQL refuses to run as root: as root, the server runs as the system user `lectern-pg`,
# made here if it is missing. Tests make a database of their own each from that URL.
set -euo pipefail

WHEEL=pgserver-0.1.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
SHA256=d595789b47624a3d963aa9aa6359da9be31beb7e61f1a45541953242068b8813

install() {
  local dest=$1 home="$1/pgserver"
  if [ -x "$home/pginstall/bin/pg_ctl" ] && [ -f "$home/pginstall/lib/postgresql/vector.so" ]; then
    echo "pgserver==0.1.4: already installed in $home"
    return 0
  fi
  local python work
  python=$(command -v python3 || command -v python || true)
  if [ -z "$python" ]; then
    echo "error: python3 (with pip) is needed to fetch pgserver from PyPI; install it with: apt-get install python3-pip" >&2
    exit 1
  fi
  work=$(mktemp -d)
  "$python" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --implementation cp --abi cp311 -d "$work" "pgserver==0.1.4"
  if ! echo "$SHA256  $work/$WHEEL" | sha256sum --check --status; then
    echo "error: $WHEEL does not have the expected sha256; not installed" >&2
    exit 1
  fi
  # The binaries find their libraries in the sibling pgserver.libs; unzip keeps the exec bits.
  mkdir -p "$work/unpacked"
  (cd "$work/unpacked" && unzip -q "$work/$WHEEL" 'pgserver/pginstall/*' 'pgserver.libs/*')
  mkdir -p "$dest"
  rm -rf "$home" "$dest/pgserver.libs"
  mv "$work/unpacked/pgserver.libs" "$dest/"
  mkdir -p "$home"
  mv "$work/unpacked/pgserver/pginstall" "$home/"
  chmod -R a+rX "$dest/pgserver" "$dest/pgserver.libs"
  rm -rf "$work"
  echo "pgserver==0.1.4: installed PostgreSQL $("$home/pginstall/bin/postgres" --version | awk '{print $3}') in $home"
}

# as_server CMD...: runs CMD as the user the server runs as.
as_server() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=lectern-pg --regid=lectern-pg --init-groups "$@"
  else
    "$@"
  fi
}

run() {
  local dest=$1
  shift
  local bin="$dest/pgserver/pginstall/bin" port status
  [ -x "$bin/pg_ctl" ] || install "$dest"
  PG_DATA=$(mktemp -d /tmp/lectern-pg.XXXXXX)
  PG_BIN=$bin
  chmod 755 "$PG_DATA"
  if [ "$(id -u)" -eq 0 ]; then
    id lectern-pg >/dev/null 2>&1 ||
      useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin lectern-pg
    chown lectern-pg: "$PG_DATA"
    # The binaries must be reachable by that user, all the way down from /.
    local dir
    dir=$(cd "$dest" && pwd)
    while [ "$dir" != / ]; do
      chmod o+x "$dir" 2>/dev/null || true
      dir=$(dirname "$dir")
    done
  fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_server "$bin/initdb" --username=postgres --auth=trust --locale=C --encoding=UTF8 -D "$PG_DATA/db" >"$PG_DATA/initdb.log" 2>&1 ||
    { cat "$PG_DATA/initdb.log" >&2; rm -rf "$PG_DATA"; exit 1; }
  trap stop EXIT
  as_server "$bin/pg_ctl" -D "$PG_DATA/db" -l "$PG_DATA/server.log" -w -t 60 \
    -o "-p $port -k $PG_DATA -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null ||
    { cat "$PG_DATA/server.log" >&2; exit 1; }
  export LECTERN_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  echo "postgres.sh: PostgreSQL on 127.0.0.1:$port ($PG_DATA)"
  status=0
  "$@" || status=$?
  return $status
}

# Stops the server and removes its data directory.
stop() {
  as_server "$PG_BIN/pg_ctl" -D "$PG_DATA/db" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$PG_DATA"
}

case "${1:-}" in
  install) install "${2:?usage: scripts/postgres.sh install DEST}" ;;
  run) run "${2:?usage: scripts/postgres.sh run DEST CMD...}" "${@:3}" ;;
  *) echo "usage: scripts/postgres.sh install DEST | run DEST CMD..." >&2; exit 2 ;;
esac
