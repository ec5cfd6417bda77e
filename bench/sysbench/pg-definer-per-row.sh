#!/usr/bin/env bash
# What running the PostgreSQL capture function as its owner costs per captured row (2026-12-05):
# one INSERT of N rows into a table with no trigger, and into tables whose AFTER ROW trigger
# writes the whole row to an outbox like Tablecast's (primary key (txid, id)) through a function
# that is:
#   invoker   plain, run with the writer's rights (the capture before 2026-12-05)
#   definer   SECURITY DEFINER, every name qualified (the capture since 2026-12-05)
#   setpath   SECURITY DEFINER with SET search_path = pg_catalog, pg_temp (not taken)
# Rounds run every variant once, in an order rotated each round; the report gives each variant's
# median time and its cost per row above "none". A statement of many rows weighs the per-row cost
# of the call itself, which an OLTP transaction's commit hides (bench/sysbench/pg-capture-variants.sh
# measures that side).
#
# Usage: bench/sysbench/pg-definer-per-row.sh [--rows 200000] [--rounds 5]
# Runs against the benchmark's PostgreSQL (bench/scripts/start-dbs.sh, port 5433), database bench.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=200000 ROUNDS=5
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) ROWS=$2; shift 2;; --rounds) ROUNDS=$2; shift 2;;
    *) echo "pg-definer-per-row: unknown option $1" >&2; exit 2;;
  esac
done
PGPORT=${TC_BENCH_PG_PORT:-5433}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
bench/scripts/start-dbs.sh >&2
psqlq() { PGOPTIONS='-c client_min_messages=warning' "$PG_BIN/psql" -h 127.0.0.1 -p "$PGPORT" \
  -U postgres -d bench -qAt -v ON_ERROR_STOP=1 "$@"; }
VARIANTS="none invoker definer setpath"
body() { # $1: the outbox, $2: the prefix of to_jsonb, $3: the equality operator
  echo "BEGIN IF TG_OP $3 'INSERT' THEN INSERT INTO $1 (table_name, op, new_row)"
  echo "VALUES (TG_ARGV[0], 'I', $2to_jsonb(NEW)); END IF; RETURN NULL; END"
}
psqlq <<SQL
DROP SCHEMA IF EXISTS tc_definer CASCADE; CREATE SCHEMA tc_definer;
SET search_path = tc_definer;
CREATE TABLE outbox (id bigserial NOT NULL, table_name text NOT NULL, op char(1) NOT NULL,
  new_row jsonb, old_row jsonb, txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (txid, id));
CREATE FUNCTION f_invoker() RETURNS trigger LANGUAGE plpgsql AS \$f\$ $(body tc_definer.outbox "" "=") \$f\$;
CREATE FUNCTION f_definer() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS \$f\$
  $(body tc_definer.outbox pg_catalog. "OPERATOR(pg_catalog.=)") \$f\$;
CREATE FUNCTION f_setpath() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp AS \$f\$ $(body tc_definer.outbox "" "=") \$f\$;
SQL
for v in $VARIANTS; do
  psqlq -c "CREATE TABLE tc_definer.t_$v (id int PRIMARY KEY, k int, c text, pad text)"
  [ "$v" = none ] || psqlq -c "CREATE TRIGGER cap AFTER INSERT ON tc_definer.t_$v FOR EACH ROW
    EXECUTE FUNCTION tc_definer.f_$v('tc_definer.t_$v')"
done
declare -A MS
for round in $(seq 1 "$ROUNDS"); do
  order=$(echo $VARIANTS | tr ' ' '\n' | awk -v r="$round" '{a[NR]=$0} END {for (i=0;i<NR;i++) print a[(i+r-1)%NR+1]}')
  for v in $order; do
    psqlq -c "TRUNCATE tc_definer.t_$v, tc_definer.outbox"
    ms=$(psqlq -c '\timing on' -c "INSERT INTO tc_definer.t_$v SELECT g, g, md5(g::text), repeat('x', 60)
      FROM generate_series(1, $ROWS) g" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
    echo "[pg-definer-per-row] round $round: $v $ms ms" >&2
    MS[$v]="${MS[$v]:-} $ms"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$0} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "INSERT of $ROWS rows, $ROUNDS rounds (order rotated); PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| variant | ms (runs) | median ms | µs per row above none |"
echo "|---|---|---|---|"
none=$(echo "${MS[none]}" | median)
for v in $VARIANTS; do
  m=$(echo "${MS[$v]}" | median)
  echo "| $v |${MS[$v]} | $m | $(awk -v m="$m" -v n="$none" -v r="$ROWS" 'BEGIN {printf "%.2f", (m-n)*1000/r}') |"
done
psqlq -c "DROP SCHEMA tc_definer CASCADE"
