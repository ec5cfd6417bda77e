#!/usr/bin/env bash
# Stops the benchmark's own instances started by start-dbs.sh (never the shared ones).
# Idempotent. --wipe also deletes their data directories.
set -uo pipefail
MDIR=${TC_BENCH_MARIADB_DIR:-/tmp/tc-bench-mariadb}
PGDIR=${TC_BENCH_PG_DIR:-/tmp/tc-bench-pg}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
rc=0
if [ -f "$MDIR/mariadbd.pid" ] && kill -0 "$(cat "$MDIR/mariadbd.pid")" 2>/dev/null; then
  echo "stop-dbs: stopping MariaDB ($MDIR)"
  mariadb-admin --socket="$MDIR/mysqld.sock" -uroot shutdown 2>/dev/null || kill "$(cat "$MDIR/mariadbd.pid")"
  for i in $(seq 1 60); do [ -f "$MDIR/mariadbd.pid" ] || break; kill -0 "$(cat "$MDIR/mariadbd.pid" 2>/dev/null)" 2>/dev/null || break; sleep 0.5; done
else
  echo "stop-dbs: MariaDB ($MDIR) not running"
fi
if [ -f "$PGDIR/postmaster.pid" ]; then
  echo "stop-dbs: stopping PostgreSQL ($PGDIR)"
  su postgres -s /bin/bash -c "$PG_BIN/pg_ctl -D $PGDIR -m fast -w stop" >/dev/null || { echo "stop-dbs: ERROR: pg_ctl stop failed" >&2; rc=1; }
else
  echo "stop-dbs: PostgreSQL ($PGDIR) not running"
fi
if [ "${1:-}" = --wipe ]; then
  echo "stop-dbs: wiping $MDIR $PGDIR"
  rm -rf "$MDIR" "$PGDIR" "$MDIR.install.log" "$PGDIR.initdb.log"
fi
exit $rc
