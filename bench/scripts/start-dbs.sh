#!/usr/bin/env bash
# Starts the benchmark's OWN database instances, separate from the machine's shared ones
# (MariaDB 3306, PostgreSQL 5432 are never touched):
#   MariaDB    127.0.0.1:3307  datadir /tmp/tc-bench-mariadb  binlog ROW/FULL (Debezium needs it)
#   PostgreSQL 127.0.0.1:5433  datadir /tmp/tc-bench-pg       wal_level=logical (pgoutput)
# Idempotent: an instance that already answers is left alone. Both get a database "bench".
# Environment: TC_BENCH_MARIADB_DIR, TC_BENCH_PG_DIR, TC_BENCH_MARIADB_PORT, TC_BENCH_PG_PORT,
#              PG_BIN (default /usr/lib/postgresql/15/bin).
set -euo pipefail

MDIR=${TC_BENCH_MARIADB_DIR:-/tmp/tc-bench-mariadb}
MPORT=${TC_BENCH_MARIADB_PORT:-3307}
MSOCK=$MDIR/mysqld.sock
PGDIR=${TC_BENCH_PG_DIR:-/tmp/tc-bench-pg}
PGPORT=${TC_BENCH_PG_PORT:-5433}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

die() { echo "start-dbs: ERROR: $*" >&2; exit 1; }
say() { echo "start-dbs: $*"; }

for tool in mariadb-install-db mariadbd mariadb-admin mariadb; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install -y mariadb-server)"
done
[ -x "$PG_BIN/initdb" ] || die "$PG_BIN/initdb not found (apt-get install -y postgresql-15, or set PG_BIN)"
id postgres >/dev/null 2>&1 || die "OS user 'postgres' missing (it comes with the postgresql package)"
[ "$(id -u)" = 0 ] || die "run as root (mariadbd --user=root, and su to postgres for PostgreSQL)"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---------------------------------------------------------------- MariaDB
if mariadb-admin --socket="$MSOCK" -uroot ping >/dev/null 2>&1; then
  say "MariaDB already running on port $MPORT ($MDIR)"
else
  port_busy "$MPORT" && die "port $MPORT is taken by something that is not our MariaDB (socket $MSOCK does not answer)"
  if [ ! -d "$MDIR/mysql" ]; then
    say "initialising MariaDB datadir $MDIR"
    mkdir -p "$MDIR"
    mariadb-install-db --no-defaults --datadir="$MDIR" --user=root --auth-root-authentication-method=normal \
      --skip-test-db >"$MDIR.install.log" 2>&1 || { tail -20 "$MDIR.install.log" >&2; die "mariadb-install-db failed (log $MDIR.install.log)"; }
  fi
  say "starting mariadbd on 127.0.0.1:$MPORT"
  nohup mariadbd --no-defaults --datadir="$MDIR" --port="$MPORT" --bind-address=127.0.0.1 \
    --socket="$MSOCK" --pid-file="$MDIR/mariadbd.pid" --user=root \
    --log-bin="$MDIR/binlog" --binlog-format=ROW --binlog-row-image=FULL --server-id=1 \
    --log-error="$MDIR/error.log" --innodb-buffer-pool-size=512M --max-connections=500 \
    --skip-name-resolve >/dev/null 2>&1 &
  for i in $(seq 1 60); do
    mariadb-admin --socket="$MSOCK" -uroot ping >/dev/null 2>&1 && break
    sleep 0.5
    [ "$i" = 60 ] && { tail -20 "$MDIR/error.log" >&2; die "mariadbd did not answer within 30 s (log $MDIR/error.log)"; }
  done
fi
mariadb --socket="$MSOCK" -uroot -e "CREATE DATABASE IF NOT EXISTS bench;
  CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY '';
  GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;" \
  || die "cannot create database bench on MariaDB $MPORT"
[ "$(mariadb --socket="$MSOCK" -uroot -N -e "SELECT @@log_bin")" = 1 ] || die "MariaDB on $MPORT runs without the binlog"
say "MariaDB ready: jdbc:mariadb://127.0.0.1:$MPORT/bench?user=root (binlog ROW)"

# ---------------------------------------------------------------- PostgreSQL
pgrun() { su postgres -s /bin/bash -c "$*"; }
if pgrun "$PG_BIN/pg_ctl -D $PGDIR status" >/dev/null 2>&1; then
  say "PostgreSQL already running on port $PGPORT ($PGDIR)"
else
  port_busy "$PGPORT" && die "port $PGPORT is taken by something that is not our PostgreSQL ($PGDIR)"
  if [ ! -f "$PGDIR/PG_VERSION" ]; then
    say "initialising PostgreSQL cluster $PGDIR"
    mkdir -p "$PGDIR" && chown postgres:postgres "$PGDIR" && chmod 700 "$PGDIR"
    pgrun "$PG_BIN/initdb -D $PGDIR -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" >"$PGDIR.initdb.log" 2>&1 \
      || { tail -20 "$PGDIR.initdb.log" >&2; die "initdb failed (log $PGDIR.initdb.log)"; }
    cat >>"$PGDIR/postgresql.conf" <<CONF
# tablecast bench
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$PGDIR'
wal_level = logical
max_replication_slots = 10
max_wal_senders = 10
max_connections = 300
shared_buffers = 512MB
CONF
  fi
  say "starting PostgreSQL on 127.0.0.1:$PGPORT"
  pgrun "$PG_BIN/pg_ctl -D $PGDIR -l $PGDIR/server.log -w -t 60 start" >/dev/null \
    || { tail -20 "$PGDIR/server.log" >&2; die "PostgreSQL did not start (log $PGDIR/server.log)"; }
fi
psql_() { "$PG_BIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
[ "$(psql_ -d postgres -c "SELECT 1 FROM pg_database WHERE datname='bench'")" = 1 ] \
  || psql_ -d postgres -c "CREATE DATABASE bench" || die "cannot create database bench on PostgreSQL $PGPORT"
[ "$(psql_ -d postgres -c "SHOW wal_level")" = logical ] || die "PostgreSQL on $PGPORT does not have wal_level=logical"
say "PostgreSQL ready: jdbc:postgresql://127.0.0.1:$PGPORT/bench?user=postgres (wal_level=logical)"
