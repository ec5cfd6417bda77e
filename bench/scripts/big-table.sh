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
# and how long a get of a random key takes in each mirror (MirrorOnce --reads). With --follow RATE,
# each mirror then follows RATE single-row updates a second, spread over the whole table, for
# --follow-seconds (default 30): commit -> visible p99 and max, and the collector's pauses meanwhile
# (MirrorOnce --follow), what a big mirror adds to a change's latency and to its service's pauses.
# Each JVM's collector log (-Xlog:gc) is kept beside the others in the folder the report names.
#
# Usage: bench/scripts/big-table.sh [--db mariadb|postgresql|both] [--rows 10000000] [--heap 2g]
#          [--mysql-port 3306] [--pg-port 5432] [--updated-at] [--follow RATE [--follow-seconds 30]]
#          [--jvm-variants "OPTS;OPTS..."] [--rounds 1] [--kinds "generic typed"]
#          [--out bench-results/big-table.md]
# --jvm-variants runs the server and its clients once per set of JVM options (";" between sets, an
#   empty set the JVM's defaults), on one table created once, --rounds times in turn: builds or
#   settings side by side in one run. --kinds chooses the mirrors (generic, typed or both).
# --updated-at adds a column updated_at (PostgreSQL timestamptz, MariaDB DATETIME(6)) of distinct
#   instants, the date-time column most real tables have.
# Environment: TABLECAST_JAR (default cli/target/tablecast.jar), BENCH_JAR (default
#   bench/target/tablecast-bench.jar); build both: ./mvnw -q -o -DskipTests package
set -euo pipefail
cd "$(dirname "$0")/../.."
DBS=both; ROWS=10000000; HEAP=2g; MYSQL_PORT=3306; PG_PORT=5432; OUT=bench-results/big-table.md
UPDATED_AT=; FOLLOW=; FOLLOW_SECONDS=30; VARIANTS=""; ROUNDS=1; KINDS="generic typed"
while [ $# -gt 0 ]; do
  case "$1" in
    --db) DBS=$2; shift 2;; --rows) ROWS=$2; shift 2;; --heap) HEAP=$2; shift 2;;
    --mysql-port) MYSQL_PORT=$2; shift 2;; --pg-port) PG_PORT=$2; shift 2;; --out) OUT=$2; shift 2;;
    --updated-at) UPDATED_AT=1; shift;;
    --follow) FOLLOW=$2; shift 2;; --follow-seconds) FOLLOW_SECONDS=$2; shift 2;;
    --jvm-variants) VARIANTS=$2; shift 2;; --rounds) ROUNDS=$2; shift 2;; --kinds) KINDS=$2; shift 2;;
    -h|--help) sed -n 2,26p "$0"; exit 0;;
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

follow_head=""; follow_rule=""
if [ -n "$FOLLOW" ]; then
  follow_head=" $FOLLOW changes/s: commit → visible p99 / p99.9 / max, GC pauses (count, max), generic; typed |"
  follow_rule="---|"
fi
echo "| database | rows | JVM options | table in the database | server start | server heap after full GC | generic mirror: ready, heap after full GC | typed mirror: ready, heap after full GC | get of a random key, generic / typed |$follow_head" >"$WORK/rows.md"
echo "|---|---|---|---|---|---|---|---|---|$follow_rule" >>"$WORK/rows.md"
IFS=';' read -r -a variants <<<"$VARIANTS"
[ ${#variants[@]} -gt 0 ] || variants=("")

# One server on the table and, one after the other, its clients, all with JVM options $1 (words);
# $2 labels the logs. Adds a line to rows.md.
serve_and_mirror() {
  local opts=$1 label=$2
  local -a jvm
  read -r -a jvm <<<"$opts"
  port=$(free_port)
  printf 'server_name: big-table\nlisten: { host: 127.0.0.1, port: %s }\nsource:\n  jdbc_url: "%s"\n  install_triggers: true\ncached_tables: [tc_big.bench_rows]\n' \
    "$port" "$url" >"$WORK/$label.yaml"
  progress "$label: starting the server (-Xmx$HEAP $opts) on port $port"
  t0=$(date +%s%N)
  java -Xmx"$HEAP" "${jvm[@]}" -Xlog:gc:file="$WORK/$label-server-gc.log" -jar "$JAR" serve --config "$WORK/$label.yaml" >"$WORK/$label-server.log" 2>&1 &
  server=$!; PIDS+=("$server")
  await_health "$server" "$port" "$WORK/$label-server.log" || exit 1
  start=$(awk -v t="$(( $(date +%s%N) - t0 ))" 'BEGIN { printf "%.1f s", t / 1e9 }')
  server_heap=$(heap_after_full_gc "$server")
  progress "$label: server ready in $start, heap $(mib "$server_heap") MiB"
  clients=(); gets=(); follows=()
  follow_args=()
  if [ -n "$FOLLOW" ]; then
    writer_url=$url
    [ "$db" = postgresql ] && writer_url="$url&currentSchema=tc_big"
    follow_args=(--follow "$writer_url" "$FOLLOW" "$FOLLOW_SECONDS")
  fi
  for kind in generic typed; do
    if [[ " $KINDS " != *" $kind "* ]]; then
      clients+=("-"); gets+=("-"); follows+=("-"); continue
    fi
    progress "$label: $kind mirror (-Xmx$HEAP $opts)"
    flag=""; [ "$kind" = typed ] && flag=--typed
    java -Xmx"$HEAP" "${jvm[@]}" -Xlog:gc:file="$WORK/$label-$kind-gc.log" -cp "$BJAR" io.tablecast.bench.MirrorOnce "127.0.0.1:$port" tc_big.bench_rows $flag --reads "${follow_args[@]}" \
      >"$WORK/$label-$kind.out" 2>"$WORK/$label-$kind.err" || true
    out=$(tail -1 "$WORK/$label-$kind.out")
    gets+=("$(sed -n 's/^reads: get of a random key \([0-9]*\) ns.*/\1 ns/p' "$WORK/$label-$kind.out")")
    follows+=("$(sed -n -E 's/^follow: .* p99 ([0-9.]+) p99\.9 ([0-9.]+) max ([0-9.]+) ms \(([0-9]+) not seen\); GC pauses ([0-9]+), p99 [0-9]+ max ([0-9]+) .*/\1 \/ \2 \/ \3 ms (\4 not seen), \5 pauses, max \6 ms/p' "$WORK/$label-$kind.out")")
    progress "$label: $kind: $out"
    if [[ "$out" == ready* ]]; then
      clients+=("$(echo "$out" | sed -E 's/ready [0-9]+ rows in ([0-9.]+ s), heap after full GC ([0-9]+ MiB) \(([0-9]+) bytes a row\)/\1, \2 (\3 B\/row)/')")
    else
      clients+=("refused: $(echo "$out" | grep -o 'at about [0-9]* bytes a row' || true), $(echo "$out" | grep -o 'at least -Xmx[0-9]*m' || echo "$out")")
    fi
  done
  line="| $db | $ROWS | ${opts:-(none)} | $(mib "$size") MiB | $start | $(mib "$server_heap") MiB ($(per_row "$server_heap") B/row) | ${clients[0]} | ${clients[1]} | ${gets[0]:--} / ${gets[1]:--} |"
  [ -n "$FOLLOW" ] && line="$line ${follows[0]:--}; ${follows[1]:--} |"
  echo "$line" >>"$WORK/rows.md"
  progress "$line"
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
}

for db in $DBS; do
  progress "$db: creating tc_big.bench_rows with $ROWS rows"
  create_big_table "$db" "$ROWS" "$UPDATED_AT" # sets url and size
  for round in $(seq "$ROUNDS"); do
    for i in "${!variants[@]}"; do
      serve_and_mirror "${variants[$i]}" "$db-r$round-v$i"
    done
  done
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
