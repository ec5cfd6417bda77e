#!/usr/bin/env bash
# What each part of the PostgreSQL capture costs the writers (issue 14): sysbench oltp_write_only
# TPS with one capture variant installed (plain SQL, no server) divided by TPS without triggers
# in the same round. Rounds run every variant once, in an order rotated each round; the report
# gives per-variant medians of the per-round ratios. Each run also records the CPU time the
# PostgreSQL instance and sysbench used per transaction: the CPU ratio (none / variant) is much
# steadier than the TPS ratio on shared cores.
#
# Variants (each an AFTER ... FOR EACH ROW trigger on every sbtest table, unless said):
#   none          no trigger (the round's baseline)
#   whole         the capture before issue 14: to_jsonb(NEW), and to_jsonb(OLD) on every UPDATE
#   whole_newonly whole rows, old image only on DELETE (what "old only when the key changes" saves)
#   whole_noidx, whole_nopk, whole_unlogged, whole_nocreated: whole, with an outbox without its
#                 txid index / without the primary key index on id / UNLOGGED / without created_at
#   whole_json    whole rows as json (row_to_json) instead of jsonb
#   key_generic   one generic function writing only the key, cut out of to_jsonb(NEW) by name
#   rowtext       one generic function writing NEW::text (record_out) instead of to_jsonb(NEW)
#   whole_keychg  whole new row; the old image only when the key changed, found without
#                 to_jsonb(OLD): OLD with NEW's key put in (jsonb_populate_record) is OLD
#   key           a function per table writing jsonb_build_object(pk, NEW.pk); old key only when
#                 the key changed (the key-only capture issue 14 proposes)
#   key_noidx     key, outbox without its txid index
#   key_text      key as text (NEW.id::text) instead of jsonb: row width
#   key_ff70      key, outbox with fillfactor 70
#   whole_txpk_definer  whole_txpk with the function SECURITY DEFINER, as shipped since 2026-12-05
#                 (writers need no outbox grant; the shipped body qualifies every name instead
#                 of pinning search_path)
#   whole_txpk_setpath  whole_txpk_definer with its search_path pinned by a SET clause instead
#                 (pg_catalog, pg_temp): what the qualified names save
#   key_txpk, key_generic_txpk, whole_txpk: key / key_generic / whole with an outbox of one index,
#                 PRIMARY KEY (txid, id): the reads by transaction and the pruning keep an index,
#                 id orders the changes without one of its own
#   key_sqlfn     key, built by a SQL-body function of the table's row type (no column name in the
#                 PL/pgSQL: a renamed key column keeps working), with a tag: ['k1', NEW.id]
#   key_sqlfn_txpk key_sqlfn with the one-index outbox of key_txpk
#   key_exc       key, NEW.id read inside an exception block: a renamed or dropped key column
#                 writes a re-read mark ('R') instead of failing the writer (one subtransaction
#                 without writes per row)
#   key_exc_txpk  key_exc with the one-index outbox of key_txpk
#   stmt_key      statement triggers with transition tables, keys only (3 triggers per table)
#   floor         a trigger inserting one int into an unindexed one-column table: the floor
#
# Usage: bench/sysbench/pg-capture-variants.sh [--variants "..."] [--rounds 3] [--time 10]
#          [--threads 2] [--tables 4] [--table-size 10000] [--out bench-results/pg-capture-variants.md]
# Runs against the benchmark's PostgreSQL (bench/scripts/start-dbs.sh, port 5433), database sbtest.
# --print-install VARIANT / --print-uninstall [--tables N] only print the SQL (for capture-cpu.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
VARIANTS="none whole whole_newonly whole_keychg key_generic rowtext key key_noidx key_txpk key_text key_ff70 stmt_key floor"
ROUNDS=3; TIME=10; THREADS=2; TABLES=4; TABLE_SIZE=10000; OUT=bench-results/pg-capture-variants.md
PRINT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --print-install) PRINT=install; PRINT_VARIANT=$2; shift 2;;
    --print-uninstall) PRINT=uninstall; shift;;
    --variants) VARIANTS=$2; shift 2;; --rounds) ROUNDS=$2; shift 2;; --time) TIME=$2; shift 2;;
    --threads) THREADS=$2; shift 2;; --tables) TABLES=$2; shift 2;; --table-size) TABLE_SIZE=$2; shift 2;;
    --out) OUT=$2; shift 2;;
    -h|--help) sed -n 2,31p "$0"; exit 0;;
    *) echo "pg-capture-variants: unknown option $1" >&2; exit 2;;
  esac
done
PGPORT=${TC_BENCH_PG_PORT:-5433}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
die() { echo "pg-capture-variants: ERROR: $*" >&2; exit 1; }
say() { echo "[pg-capture-variants $(date +%H:%M:%S)] $*" >&2; }
start() {
  command -v sysbench >/dev/null || die "sysbench not found: apt-get install -y sysbench"
  bench/scripts/start-dbs.sh >&2 || die "could not start the benchmark databases"
  WORK=$(mktemp -d /tmp/tc-pg-variants.XXXXXX)
  mkdir -p "$(dirname "$OUT")"
}
psqlq() { PGOPTIONS='-c client_min_messages=warning' "$PG_BIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres \
  -d "${2:-${SBDB:-sbtest}}" -qAt -v ON_ERROR_STOP=1 -c "$1"; }
SB="oltp_write_only --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PGPORT --pgsql-user=postgres
  --pgsql-password= --pgsql-db=sbtest --tables=$TABLES --table-size=$TABLE_SIZE --threads=$THREADS
  --report-interval=0 --rand-type=uniform"

outbox() {  # $1: extra WITH clause; $2: "noidx" to skip the txid index; $3 key column type;
  # $4: "nopk" (id without its primary key index), "unlogged", "nocreated" (no created_at column),
  # "txpk" (one index: PRIMARY KEY (txid, id); give $2 noidx too)
  local with=${1:-} keytype=${3:-jsonb} pk="PRIMARY KEY" kind="" created=", created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp()"
  case "${4:-}" in nopk) pk="NOT NULL";; unlogged) kind=UNLOGGED;; nocreated) created="";;
    txpk) pk="NOT NULL"; created="$created, PRIMARY KEY (txid, id)";; esac
  echo "CREATE $kind TABLE tablecast_outbox (id bigserial $pk, table_name text NOT NULL, op char(1) NOT NULL,
    new_row jsonb, old_row jsonb, new_key $keytype, old_key $keytype,
    txid xid8 NOT NULL DEFAULT pg_current_xact_id()$created) $with;"
  [ "${2:-}" = noidx ] || echo "CREATE INDEX tablecast_outbox_txid ON tablecast_outbox (txid);"
}
row_triggers() {  # $1 function name pattern (%s = table number or ''), per-table when it has %s
  local i f
  for i in $(seq 1 "$TABLES"); do
    f=$(printf "$1" "$i")
    echo "CREATE TRIGGER tc_cap AFTER INSERT OR UPDATE OR DELETE ON sbtest$i FOR EACH ROW EXECUTE FUNCTION $f('public.sbtest$i', 'id');"
  done
}
key_functions() {  # $1 expression type: jsonb | text | sqlfn (the key built by a SQL-body
  # function of the table's row type, tc_key_N(NEW): no column name in the PL/pgSQL, so a renamed
  # key column keeps working and a dropped one is refused by the function's dependency)
  local i nk ok cmp
  for i in $(seq 1 "$TABLES"); do
    cmp="NEW.id IS DISTINCT FROM OLD.id"
    case "$1" in
      text) nk="NEW.id::text"; ok="OLD.id::text";;
      sqlfn) nk="tc_key_$i(NEW)"; ok="tc_key_$i(OLD)"; cmp="$nk IS DISTINCT FROM $ok"
        echo "CREATE FUNCTION tc_key_$i(r sbtest$i) RETURNS jsonb LANGUAGE sql IMMUTABLE BEGIN ATOMIC SELECT jsonb_build_array('k1', r.id); END;";;
      *) nk="jsonb_build_object('id', NEW.id)"; ok="jsonb_build_object('id', OLD.id)";;
    esac
    cat <<SQL
CREATE FUNCTION tc_cap_$i() RETURNS trigger LANGUAGE plpgsql AS \$f\$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_key) VALUES ('public.sbtest$i', 'I', $nk);
  ELSIF TG_OP = 'UPDATE' THEN
    IF $cmp THEN
      INSERT INTO tablecast_outbox (table_name, op, new_key, old_key) VALUES ('public.sbtest$i', 'U', $nk, $ok);
    ELSE
      INSERT INTO tablecast_outbox (table_name, op, new_key) VALUES ('public.sbtest$i', 'U', $nk);
    END IF;
  ELSE
    INSERT INTO tablecast_outbox (table_name, op, old_key) VALUES ('public.sbtest$i', 'D', $ok);
  END IF;
  RETURN NULL;
END \$f\$;
SQL
  done
}
key_exc_functions() {  # per-table functions reading NEW.id inside an exception block: a
  # renamed or dropped key column writes a re-read mark instead of failing the writer's statement
  local i
  for i in $(seq 1 "$TABLES"); do
    cat <<SQL
CREATE FUNCTION tc_cap_$i() RETURNS trigger LANGUAGE plpgsql AS \$f\$
DECLARE nk jsonb; ok jsonb;
BEGIN
  BEGIN
    IF TG_OP <> 'DELETE' THEN nk := jsonb_build_array('k1', NEW.id); END IF;
    IF TG_OP <> 'INSERT' THEN ok := jsonb_build_array('k1', OLD.id); END IF;
  EXCEPTION WHEN undefined_column THEN
    INSERT INTO tablecast_outbox (table_name, op) VALUES ('public.sbtest$i', 'R');
    RETURN NULL;
  END;
  IF TG_OP = 'UPDATE' AND nk = ok THEN ok := NULL; END IF;
  INSERT INTO tablecast_outbox (table_name, op, new_key, old_key) VALUES ('public.sbtest$i', left(TG_OP, 1), nk, ok);
  RETURN NULL;
END \$f\$;
SQL
  done
}
install_sql() {
  case "$1" in
    none) ;;
    whole|whole_newonly|whole_noidx|whole_nopk|whole_unlogged|whole_nocreated|whole_txpk|whole_txpk_definer|whole_txpk_setpath)
      case "$1" in
        whole_noidx) outbox "" noidx;; whole_nopk) outbox "" "" "" nopk;;
        whole_txpk|whole_txpk_definer|whole_txpk_setpath) outbox "" noidx "" txpk;;
        whole_unlogged) outbox "" "" "" unlogged;; whole_nocreated) outbox "" "" "" nocreated;;
        *) outbox;;
      esac
      local upd="new_row, old_row) VALUES (TG_ARGV[0], 'U', to_jsonb(NEW), to_jsonb(OLD));"
      [ "$1" = whole_newonly ] && upd="new_row) VALUES (TG_ARGV[0], 'U', to_jsonb(NEW));"
      local lang="LANGUAGE plpgsql" ob=tablecast_outbox
      case "$1" in
        whole_txpk_definer) lang="LANGUAGE plpgsql SECURITY DEFINER"; ob=public.tablecast_outbox;;
        whole_txpk_setpath)
          lang="LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp"
          ob=public.tablecast_outbox;;
      esac
      cat <<SQL
CREATE FUNCTION tc_cap() RETURNS trigger $lang AS \$f\$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO $ob (table_name, op, new_row) VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME), 'I', to_jsonb(NEW));
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO $ob (table_name, op, $upd
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO $ob (table_name, op, old_row) VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME), 'D', to_jsonb(OLD));
  END IF;
  RETURN NULL;
END \$f\$;
SQL
      row_triggers tc_cap;;
    whole_json)
      outbox | sed 's/new_row jsonb, old_row jsonb/new_row json, old_row json/'
      cat <<'SQL'
CREATE FUNCTION tc_cap() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_row) VALUES (TG_ARGV[0], 'I', row_to_json(NEW));
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_row, old_row) VALUES (TG_ARGV[0], 'U', row_to_json(NEW), row_to_json(OLD));
  ELSE
    INSERT INTO tablecast_outbox (table_name, op, old_row) VALUES (TG_ARGV[0], 'D', row_to_json(OLD));
  END IF;
  RETURN NULL;
END $f$;
SQL
      row_triggers tc_cap;;
    key_generic|key_generic_txpk)
      if [ "$1" = key_generic_txpk ]; then outbox "" noidx "" txpk; else outbox; fi
      cat <<'SQL'
CREATE FUNCTION tc_cap() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_key) VALUES (TG_ARGV[0], 'I', jsonb_build_object(TG_ARGV[1], to_jsonb(NEW) -> TG_ARGV[1]));
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_key) VALUES (TG_ARGV[0], 'U', jsonb_build_object(TG_ARGV[1], to_jsonb(NEW) -> TG_ARGV[1]));
  ELSE
    INSERT INTO tablecast_outbox (table_name, op, old_key) VALUES (TG_ARGV[0], 'D', jsonb_build_object(TG_ARGV[1], to_jsonb(OLD) -> TG_ARGV[1]));
  END IF;
  RETURN NULL;
END $f$;
SQL
      row_triggers tc_cap;;
    rowtext)
      outbox "" "" text
      cat <<'SQL'
CREATE FUNCTION tc_cap() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_key) VALUES (TG_ARGV[0], 'I', NEW::text);
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_key) VALUES (TG_ARGV[0], 'U', NEW::text);
  ELSE
    INSERT INTO tablecast_outbox (table_name, op, old_key) VALUES (TG_ARGV[0], 'D', OLD::text);
  END IF;
  RETURN NULL;
END $f$;
SQL
      row_triggers tc_cap;;
    whole_keychg)
      outbox
      cat <<'SQL'
CREATE FUNCTION tc_cap() RETURNS trigger LANGUAGE plpgsql AS $f$
DECLARE n jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO tablecast_outbox (table_name, op, new_row) VALUES (TG_ARGV[0], 'I', to_jsonb(NEW));
  ELSIF TG_OP = 'UPDATE' THEN
    n := to_jsonb(NEW);
    IF jsonb_populate_record(OLD, jsonb_build_object(TG_ARGV[1], n -> TG_ARGV[1])) IS NOT DISTINCT FROM OLD THEN
      INSERT INTO tablecast_outbox (table_name, op, new_row) VALUES (TG_ARGV[0], 'U', n);
    ELSE
      INSERT INTO tablecast_outbox (table_name, op, new_row, old_row) VALUES (TG_ARGV[0], 'U', n, to_jsonb(OLD));
    END IF;
  ELSE
    INSERT INTO tablecast_outbox (table_name, op, old_row) VALUES (TG_ARGV[0], 'D', to_jsonb(OLD));
  END IF;
  RETURN NULL;
END $f$;
SQL
      row_triggers tc_cap;;
    key) outbox; key_functions jsonb; row_triggers "tc_cap_%s";;
    key_noidx) outbox "" noidx; key_functions jsonb; row_triggers "tc_cap_%s";;
    key_txpk) outbox "" noidx "" txpk; key_functions jsonb; row_triggers "tc_cap_%s";;
    key_sqlfn) outbox; key_functions sqlfn; row_triggers "tc_cap_%s";;
    key_exc) outbox; key_exc_functions; row_triggers "tc_cap_%s";;
    key_exc_txpk) outbox "" noidx "" txpk; key_exc_functions; row_triggers "tc_cap_%s";;
    key_sqlfn_txpk) outbox "" noidx "" txpk; key_functions sqlfn; row_triggers "tc_cap_%s";;
    key_text) outbox "" "" text; key_functions text; row_triggers "tc_cap_%s";;
    key_ff70) outbox "WITH (fillfactor = 70)"; key_functions jsonb; row_triggers "tc_cap_%s";;
    stmt_key)
      outbox
      local i
      for i in $(seq 1 "$TABLES"); do
        cat <<SQL
CREATE FUNCTION tc_ins_$i() RETURNS trigger LANGUAGE plpgsql AS \$f\$ BEGIN
  INSERT INTO tablecast_outbox (table_name, op, new_key) SELECT 'public.sbtest$i', 'I', jsonb_build_object('id', n.id) FROM n; RETURN NULL; END \$f\$;
CREATE FUNCTION tc_upd_$i() RETURNS trigger LANGUAGE plpgsql AS \$f\$ BEGIN
  INSERT INTO tablecast_outbox (table_name, op, new_key) SELECT 'public.sbtest$i', 'U', jsonb_build_object('id', n.id) FROM n; RETURN NULL; END \$f\$;
CREATE FUNCTION tc_del_$i() RETURNS trigger LANGUAGE plpgsql AS \$f\$ BEGIN
  INSERT INTO tablecast_outbox (table_name, op, old_key) SELECT 'public.sbtest$i', 'D', jsonb_build_object('id', o.id) FROM o; RETURN NULL; END \$f\$;
CREATE TRIGGER tc_ins AFTER INSERT ON sbtest$i REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tc_ins_$i();
CREATE TRIGGER tc_upd AFTER UPDATE ON sbtest$i REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tc_upd_$i();
CREATE TRIGGER tc_del AFTER DELETE ON sbtest$i REFERENCING OLD TABLE AS o FOR EACH STATEMENT EXECUTE FUNCTION tc_del_$i();
SQL
      done;;
    floor)
      echo "CREATE TABLE tc_floor (v int);"
      echo "CREATE FUNCTION tc_cap() RETURNS trigger LANGUAGE plpgsql AS \$f\$ BEGIN INSERT INTO tc_floor VALUES (1); RETURN NULL; END \$f\$;"
      row_triggers tc_cap;;
    *) die "unknown variant $1";;
  esac
}
uninstall_sql() {
  local i
  for i in $(seq 1 "$TABLES"); do
    echo "DROP TRIGGER IF EXISTS tc_cap ON sbtest$i; DROP TRIGGER IF EXISTS tc_ins ON sbtest$i;
      DROP TRIGGER IF EXISTS tc_upd ON sbtest$i; DROP TRIGGER IF EXISTS tc_del ON sbtest$i;
      DROP FUNCTION IF EXISTS tc_cap_$i(); DROP FUNCTION IF EXISTS tc_ins_$i(); DROP FUNCTION IF EXISTS tc_upd_$i();
      DROP FUNCTION IF EXISTS tc_del_$i(); DROP FUNCTION IF EXISTS tc_key_$i(sbtest$i);"
  done
  echo "DROP FUNCTION IF EXISTS tc_cap(); DROP TABLE IF EXISTS tablecast_outbox; DROP TABLE IF EXISTS tc_floor;"
}
uninstall() { psqlq "$(uninstall_sql)"; }
server_ticks() {  # CPU clock ticks used so far by the PostgreSQL instance: the postmaster, its live
  # children and those it reaped (the backends). Through cat: awk would stop at a process that
  # ended between the glob and the read.
  local pid
  pid=$(head -1 "${TC_BENCH_PG_DIR:-/tmp/tc-bench-pg}/postmaster.pid")
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v root="$pid" '{ s = $0; sub(/^.*\) /, "", s);
    split(s, a, " "); if ($1 == root || a[2] == root) t += a[12] + a[13] + a[14] + a[15] } END { print t + 0 }'
}
run_one() {  # variant -> "TPS CPU-us-per-transaction" (server and sysbench)
  local log=$WORK/$1-$(date +%s%N).log tps tx before after client
  uninstall
  install_sql "$1" >"$WORK/install.sql"
  [ -s "$WORK/install.sql" ] && PGOPTIONS='-c client_min_messages=warning' "$PG_BIN/psql" -h 127.0.0.1 -p "$PGPORT" \
    -U postgres -d sbtest -qAt -v ON_ERROR_STOP=1 -f "$WORK/install.sql" >/dev/null
  psqlq "CHECKPOINT" >/dev/null
  before=$(server_ticks)
  # shellcheck disable=SC2086
  client=$( (sysbench $SB --time="$TIME" run >"$log" 2>&1 || exit 1
    awk '{ s = $0; sub(/^.*\) /, "", s); split(s, a, " "); print a[14] + a[15] }' "/proc/$BASHPID/stat") ) \
    || { tail -20 "$log" >&2; die "sysbench failed ($1), log $log"; }
  sleep 0.5  # the backends sysbench used exit as it disconnects: let the postmaster reap them
  after=$(server_ticks)
  tps=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$log")
  tx=$(sed -n 's/.*transactions: *\([0-9]*\) *(.*/\1/p' "$log")
  [ -n "$tps" ] && [ -n "$tx" ] || die "no TPS in $log"
  awk -v tps="$tps" -v t=$((after - before + client)) -v tx="$tx" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%s %.0f\n", tps, t * 1e6 / hz / tx }'
}
case "$PRINT" in
  install) install_sql "$PRINT_VARIANT"; exit 0;;
  uninstall) uninstall_sql; exit 0;;
esac
start
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

say "preparing sbtest ($TABLES tables x $TABLE_SIZE rows)"
psqlq "DROP DATABASE IF EXISTS sbtest" postgres; psqlq "CREATE DATABASE sbtest" postgres
# shellcheck disable=SC2086
sysbench $SB prepare >"$WORK/prepare.log" 2>&1 || { tail "$WORK/prepare.log" >&2; die "sysbench prepare failed"; }
say "warm-up, ${TIME}s (not recorded)"; run_one none >/dev/null
read -r -a vs <<<"$VARIANTS"
declare -A tps ratios cpus cratios
for r in $(seq 1 "$ROUNDS"); do
  n=${#vs[@]}; order=()
  for k in $(seq 0 $((n - 1))); do order+=("${vs[$(( (k + (r - 1) * (n / ROUNDS + 1)) % n ))]}"); done
  declare -A this=() cpu=()
  for v in "${order[@]}"; do
    read -r this[$v] cpu[$v] <<<"$(run_one "$v")"; tps[$v]="${tps[$v]:-}${this[$v]} "; cpus[$v]="${cpus[$v]:-}${cpu[$v]} "
    say "round $r: $v ${this[$v]} TPS, ${cpu[$v]} us CPU per transaction (server and sysbench)"
  done
  for v in "${vs[@]}"; do
    ratios[$v]="${ratios[$v]:-}$(awk -v a="${this[$v]}" -v b="${this[none]}" 'BEGIN {printf "%.3f", a/b}') "
    cratios[$v]="${cratios[$v]:-}$(awk -v a="${cpu[$v]}" -v b="${cpu[none]}" 'BEGIN {printf "%.3f", b/a}') "
  done
done
uninstall
{
  echo "sysbench oltp_write_only on PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}'), $THREADS threads, ${TIME}s per run, $ROUNDS rounds (order rotated), $TABLES tables x $TABLE_SIZE rows; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "| variant | TPS (runs) | TPS ratio to none, per round | median TPS ratio | CPU µs/tx (runs) | CPU ratio (none / variant), per round | median CPU ratio |"
  echo "|---|---|---|---|---|---|---|"
  for v in "${vs[@]}"; do
    m=$(printf '%s\n' ${ratios[$v]} | median); cm=$(printf '%s\n' ${cratios[$v]} | median)
    echo "| $v | ${tps[$v]% } | ${ratios[$v]% } | $m | ${cpus[$v]% } | ${cratios[$v]% } | $cm |"
  done
} | tee "$OUT"
psqlq "DROP DATABASE IF EXISTS sbtest" postgres
rm -rf "$WORK"
