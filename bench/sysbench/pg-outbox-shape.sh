#!/usr/bin/env bash
# What the PostgreSQL outbox's indexes cost its writers, the outbox alone (no triggers, no tables):
# pgbench with --clients sessions, each transaction four outbox INSERTs shaped like the capture's
# rows of one sysbench oltp_write_only transaction (whole-row images). Two shapes, alternated:
#   old   primary key on id and an index on txid (the outbox before 2026-12-04)
#   txpk  one index, the primary key (txid, id) (since)
# Per run: TPS, WAL bytes per transaction, index bytes per outbox row. Needs pgbench
# (postgresql-client) and the benchmark's PostgreSQL (bench/scripts/start-dbs.sh, port 5433).
#
# Usage: bench/sysbench/pg-outbox-shape.sh [--rounds 3] [--time 15] [--clients 2]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=3; TIME=15; CLIENTS=2
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2;; --time) TIME=$2; shift 2;; --clients) CLIENTS=$2; shift 2;;
    -h|--help) sed -n 2,11p "$0"; exit 0;;
    *) echo "pg-outbox-shape: unknown option $1" >&2; exit 2;;
  esac
done
PGPORT=${TC_BENCH_PG_PORT:-5433}
command -v pgbench >/dev/null || { echo "pg-outbox-shape: pgbench not found (apt-get install -y postgresql-client)" >&2; exit 1; }
bench/scripts/start-dbs.sh >&2
P() { psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d bench -qAt -v ON_ERROR_STOP=1 -c "$1"; }
WORK=$(mktemp -d /tmp/tc-outbox-shape.XXXXXX)
trap 'rm -rf "$WORK"; P "DROP TABLE IF EXISTS tc_shape_outbox" >/dev/null 2>&1 || true' EXIT
ROW='{"id": 1, "k": 4990, "c": "68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441", "pad": "22195207048-70116052123-74140395089-76317954521-98694025897"}'
cat >"$WORK/tx.sql" <<SQL
BEGIN;
INSERT INTO tc_shape_outbox (table_name, op, new_row, old_row) VALUES ('public.sbtest1', 'U', '$ROW', '$ROW');
INSERT INTO tc_shape_outbox (table_name, op, new_row, old_row) VALUES ('public.sbtest1', 'U', '$ROW', '$ROW');
INSERT INTO tc_shape_outbox (table_name, op, old_row) VALUES ('public.sbtest1', 'D', '$ROW');
INSERT INTO tc_shape_outbox (table_name, op, new_row) VALUES ('public.sbtest1', 'I', '$ROW');
COMMIT;
SQL
COLUMNS="id bigserial NOT NULL, table_name text NOT NULL, op char(1) NOT NULL, new_row jsonb, old_row jsonb,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(), created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp()"
run() {
  P "DROP TABLE IF EXISTS tc_shape_outbox"
  case $1 in
    old) P "CREATE TABLE tc_shape_outbox ($COLUMNS, PRIMARY KEY (id)); CREATE INDEX tc_shape_outbox_txid ON tc_shape_outbox (txid)";;
    txpk) P "CREATE TABLE tc_shape_outbox ($COLUMNS, PRIMARY KEY (txid, id))";;
  esac
  P "CHECKPOINT" >/dev/null
  local w0 out tps tx wal idx
  w0=$(P "SELECT pg_current_wal_lsn()")
  out=$(pgbench -h 127.0.0.1 -p "$PGPORT" -U postgres -n -c "$CLIENTS" -j "$CLIENTS" -T "$TIME" -f "$WORK/tx.sql" bench 2>&1)
  tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<<"$out")
  tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
  [ -n "$tps" ] && [ -n "$tx" ] || { echo "$out" >&2; exit 1; }
  wal=$(P "SELECT (pg_wal_lsn_diff(pg_current_wal_lsn(), '$w0') / $tx)::int")
  idx=$(P "SELECT round(sum(pg_relation_size(i.indexrelid)) / ($tx * 4.0), 1) FROM pg_index i WHERE i.indrelid = 'tc_shape_outbox'::regclass")
  echo "| $r | $1 | ${tps%.*} | $wal | $idx |"
}
echo "pgbench, $CLIENTS clients, ${TIME}s per run, four outbox rows a transaction; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| round | outbox | TPS | WAL bytes / transaction | index bytes / row |"
echo "|---|---|---|---|---|"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then run old; run txpk; else run txpk; run old; fi
done
