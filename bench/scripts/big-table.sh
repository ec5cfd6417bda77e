#!/usr/bin/env bash
# A table of ten million rows with 2 GiB heaps (docs/BENCHMARKS.md, "Ten million rows in 2 GiB").
#
# For each database: the benchmark table (bench_rows: id bigint key, version bigint, name
# varchar(32), price decimal(10,2), qty int) with ROWS rows in a schema/database tc_big; a real
# server (`tablecast serve`, -Xmx$HEAP) loads its image of it; then, one after the other, a client
# with a generic mirror and one with a typed mirror (io.tablecast.bench.MirrorOnce, each in a JVM of
# its own with -Xmx$HEAP) mirror it. Reported: the table's size in the database, the server's start
# and heap after a full GC, and each client's time to a ready mirror and heap after a full GC, or
# the client's refusal (a snapshot that does not fit its heap is refused with the -Xmx it needs),
# and how long a get of a random key takes in each mirror (MirrorOnce --reads).
#
# Usage: bench/scripts/big-table.sh [--db mariadb|postgresql|both] [--rows 10000000] [--heap 2g]
#          [--mysql-port 3306] [--pg-port 5432] [--updated-at] [--out bench-results/big-table.md]
# --updated-at adds a column updated_at (PostgreSQL timestamptz, MariaDB DATETIME(6)) of distinct
#   instants, the date-time column most real tables have.
# Environment: TABLECAST_JAR (default cli/target/tablecast.jar), BENCH_JAR (default
#   bench/target/tablecast-bench.jar); build both: ./mvnw -q -o -DskipTests package
set -euo pipefail
cd "$(dirname "$0")/../.."
DBS=both; ROWS=10000000; HEAP=2g; MYSQL_PORT=3306; PG_PORT=5432; OUT=bench-results/big-table.md
UPDATED_AT=
while [ $# -gt 0 ]; do
  case "$1" in
    --db) DBS=$2; shift 2;; --rows) ROWS=$2; shift 2;; --heap) HEAP=$2; shift 2;;
    --mysql-port) MYSQL_PORT=$2; shift 2;; --pg-port) PG_PORT=$2; shift 2;; --out) OUT=$2; shift 2;;
    --updated-at) UPDATED_AT=1; shift;;
    -h|--help) sed -n 2,15p "$0"; exit 0;;
    *) echo "big-table: unknown option $1" >&2; exit 2;;
  esac
done
[ "$DBS" = both ] && DBS="mariadb postgresql"
JAR=${TABLECAST_JAR:-cli/target/tablecast.jar}
BJAR=${BENCH_JAR:-bench/target/tablecast-bench.jar}
for j in "$JAR" "$BJAR"; do
  [ -f "$j" ] || { echo "big-table: $j not found: ./mvnw -q -o -DskipTests package" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/tc-big-table.XXXXXX)
mkdir -p "$(dirname "$OUT")"
# shellcheck source=bench/scripts/processes.sh
. bench/scripts/processes.sh
per_row() { awk -v b="$1" -v r="$ROWS" 'BEGIN { printf "%.0f", b / r }'; }
progress() { printf '[big-table] %s\n' "$*" >&2; }

echo "| database | rows | table in the database | server start | server heap after full GC | generic mirror: ready, heap after full GC | typed mirror: ready, heap after full GC | get of a random key, generic / typed |" >"$WORK/rows.md"
echo "|---|---|---|---|---|---|---|---|" >>"$WORK/rows.md"

for db in $DBS; do
  progress "$db: creating tc_big.bench_rows with $ROWS rows"
  create_big_table "$db" "$ROWS" "$UPDATED_AT" # sets url and size
  port=$(free_port)
  printf 'server_name: big-table\nlisten: { host: 127.0.0.1, port: %s }\nsource:\n  jdbc_url: "%s"\n  install_triggers: true\ncached_tables: [tc_big.bench_rows]\n' \
    "$port" "$url" >"$WORK/$db.yaml"
  progress "$db: starting the server (-Xmx$HEAP) on port $port"
  t0=$(date +%s%N)
  java -Xmx"$HEAP" -jar "$JAR" serve --config "$WORK/$db.yaml" >"$WORK/$db-server.log" 2>&1 &
  server=$!; PIDS+=("$server")
  await_health "$server" "$port" "$WORK/$db-server.log" || exit 1
  start=$(awk -v t="$(( $(date +%s%N) - t0 ))" 'BEGIN { printf "%.1f s", t / 1e9 }')
  server_heap=$(heap_after_full_gc "$server")
  progress "$db: server ready in $start, heap $(mib "$server_heap") MiB"
  clients=(); gets=()
  for kind in generic typed; do
    progress "$db: $kind mirror (-Xmx$HEAP)"
    flag=""; [ "$kind" = typed ] && flag=--typed
    java -Xmx"$HEAP" -cp "$BJAR" io.tablecast.bench.MirrorOnce "127.0.0.1:$port" tc_big.bench_rows $flag --reads \
      >"$WORK/$db-$kind.out" 2>"$WORK/$db-$kind.err" || true
    out=$(tail -1 "$WORK/$db-$kind.out")
    gets+=("$(sed -n 's/^reads: get of a random key \([0-9]*\) ns.*/\1 ns/p' "$WORK/$db-$kind.out")")
    progress "$db: $kind: $out"
    if [[ "$out" == ready* ]]; then
      clients+=("$(echo "$out" | sed -E 's/ready [0-9]+ rows in ([0-9.]+ s), heap after full GC ([0-9]+ MiB) \(([0-9]+) bytes a row\)/\1, \2 (\3 B\/row)/')")
    else
      clients+=("refused: $(echo "$out" | grep -o 'at about [0-9]* bytes a row' || true), $(echo "$out" | grep -o 'at least -Xmx[0-9]*m' || echo "$out")")
    fi
  done
  line="| $db | $ROWS | $(mib "$size") MiB | $start | $(mib "$server_heap") MiB ($(per_row "$server_heap") B/row) | ${clients[0]} | ${clients[1]} | ${gets[0]:--} / ${gets[1]:--} |"
  echo "$line" >>"$WORK/rows.md"
  progress "$line"
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  drop_big_table "$db"
done

{
  echo "# $ROWS rows, -Xmx$HEAP: server and clients"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1), G1; logs in $WORK"
  echo
  cat "$WORK/rows.md"
} >"$OUT"
cat "$OUT"
