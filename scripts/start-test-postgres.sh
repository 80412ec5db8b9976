#!/usr/bin/env bash
# Starts a throw-away PostgreSQL server for the tests: Debian's postgresql binaries, a
# cluster in its own directory, reachable only over a unix socket in that directory (no TCP port),
# trust authentication for the one role `control_center` (nothing else can reach the socket's
# directory anyway). PostgreSQL refuses to run as root, so under root the cluster belongs to the
# `postgres` system user the Debian package creates. Idempotent: a running cluster is left as it is.
# Prints the admin URL the tests read as CC_TEST_POSTGRES_URL. `stop` as first argument stops it.
set -euo pipefail

dir="${CC_PG_DIR:-/tmp/control-center-pg}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
if [ -z "$bin" ]; then
  echo "PostgreSQL is not installed (scripts/install-system-deps.sh installs it)" >&2
  exit 1
fi

as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/false postgres
  as_owner=(runuser -u postgres --)
fi

if [ "${1:-}" = "stop" ]; then
  [ -f "$dir/data/postmaster.pid" ] && "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  exit 0
fi

mkdir -p "$dir"
[ ${#as_owner[@]} -gt 0 ] && chown postgres "$dir"
chmod 755 "$dir"
if [ ! -f "$dir/data/PG_VERSION" ]; then
  # C collation: text sorts byte-wise, as in SQLite, so both dialects order ids and times alike.
  "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U control_center -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1
fi
if ! "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  # Test-only durability settings: a crash of this throw-away server loses nothing anyone keeps.
  # Connections: two test files at once, each with up to four processes whose pools lend 10 each per store.
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c max_connections=600 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null
fi
echo "postgres://control_center@localhost/postgres?host=$dir"
