#!/usr/bin/env bash
# What reading the changed rows by key costs the tail's read (the next step of issue 14's key-only
# capture on PostgreSQL), against reading whole-row images from the outbox: one read of a batch of
# N changed rows (1, 10, 100, 1000) of a sysbench-shaped table of 100,000 rows, as the tail reads
# a batch (the rows of one transaction, by txid, in id order), timed by pgbench (one session,
# prepared, --time seconds each, the two forms alternated). Whole: the outbox holds to_jsonb of the
# new and old row. By key: the outbox holds ['id', <id>], and the read looks each row up by its
# primary key and prints it with to_jsonb. Needs pgbench and the benchmark's PostgreSQL
# (bench/scripts/start-dbs.sh, port 5433).
#
# Usage: bench/sysbench/pg-read-by-key.sh [--rounds 2] [--time 4]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=2; TIME=4
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2;; --time) TIME=$2; shift 2;;
    -h|--help) sed -n 2,11p "$0"; exit 0;;
    *) echo "pg-read-by-key: unknown option $1" >&2; exit 2;;
  esac
done
PGPORT=${TC_BENCH_PG_PORT:-5433}
command -v pgbench >/dev/null || { echo "pg-read-by-key: pgbench not found (apt-get install -y postgresql-client)" >&2; exit 1; }
bench/scripts/start-dbs.sh >&2
P() { psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d bench -qAt -v ON_ERROR_STOP=1 "$@"; }
WORK=$(mktemp -d /tmp/tc-read-by-key.XXXXXX)
trap 'rm -rf "$WORK"; P -c "DROP TABLE IF EXISTS tc_rk_t, tc_rk_whole, tc_rk_key" >/dev/null 2>&1 || true' EXIT
P >/dev/null <<'SQL'
DROP TABLE IF EXISTS tc_rk_t, tc_rk_whole, tc_rk_key;
CREATE TABLE tc_rk_t (id int PRIMARY KEY, k int NOT NULL, c char(120) NOT NULL, pad char(60) NOT NULL);
INSERT INTO tc_rk_t SELECT g, g % 1000, md5(g::text) || md5((g + 1)::text) || md5((g + 2)::text), md5(g::text)
  FROM generate_series(1, 100000) g;
CREATE TABLE tc_rk_whole (id bigserial NOT NULL, table_name text NOT NULL, op char(1) NOT NULL, new_row jsonb,
  old_row jsonb, txid xid8 NOT NULL, created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (txid, id));
CREATE TABLE tc_rk_key (LIKE tc_rk_whole INCLUDING ALL);
INSERT INTO tc_rk_whole (table_name, op, new_row, old_row, txid)
  SELECT 'public.tc_rk_t', 'U', to_jsonb(t), to_jsonb(t), b.n::text::xid8
  FROM (VALUES (1), (10), (100), (1000)) b(n), LATERAL (SELECT * FROM tc_rk_t WHERE id <= b.n * 50 AND id % 50 = 0) t;
INSERT INTO tc_rk_key (table_name, op, new_row, txid)
  SELECT 'public.tc_rk_t', 'U', jsonb_build_array('id', t.id), b.n::text::xid8
  FROM (VALUES (1), (10), (100), (1000)) b(n), LATERAL (SELECT id FROM tc_rk_t WHERE id <= b.n * 50 AND id % 50 = 0) t;
VACUUM ANALYZE tc_rk_t; VACUUM ANALYZE tc_rk_whole; VACUUM ANALYZE tc_rk_key;
SQL
for n in 1 10 100 1000; do
  echo "SELECT id, table_name, op, new_row::text, old_row::text FROM tc_rk_whole WHERE txid = '$n' ORDER BY id;" >"$WORK/whole$n.sql"
  echo "SELECT o.id, o.table_name, o.op, (SELECT to_jsonb(t)::text FROM tc_rk_t t WHERE t.id = (o.new_row->>1)::int) FROM tc_rk_key o WHERE txid = '$n' ORDER BY o.id;" >"$WORK/key$n.sql"
done
lat() { pgbench -h 127.0.0.1 -p "$PGPORT" -U postgres -n -c 1 -T "$TIME" -M prepared -f "$WORK/$1.sql" bench 2>&1 \
  | sed -n 's/^latency average = \([0-9.]*\) ms/\1/p'; }
echo "one read of a batch, ms (pgbench latency average, ${TIME}s each); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| round | rows | whole images | by key |"
echo "|---|---|---|---|"
for r in $(seq 1 "$ROUNDS"); do
  for n in 1 10 100 1000; do
    if [ $((r % 2)) = 1 ]; then w=$(lat "whole$n"); k=$(lat "key$n"); else k=$(lat "key$n"); w=$(lat "whole$n"); fi
    echo "| $r | $n | $w | $k |"
  done
done
