#!/usr/bin/env bash
# A server's start on a big table as a user runs it, `bin/tablecast serve` (docs/BENCHMARKS.md,
# "Server start from a class-data-sharing archive"): with the launcher's class-data sharing (an
# archive written by a first, unmeasured run) and without it (TABLECAST_CDS=off), alternated.
#
# For each database: the benchmark table with ROWS rows in tc_big (as big-table.sh makes it); then
# ROUNDS pairs of starts of the checkout's launcher (-Xmx$HEAP, install_triggers), each measured from
# the process's start to /health answering 200, with the server's own "started in", the JVM's
# CPU then (utime + stime) and, of it, the garbage collector's threads' (G1's concurrent refinement,
# marking and GC workers: "G1 *" and "GC Thread*"). Prints a table of each start and the medians.
# With --builds OLD NEW, the pairs are two builds instead, one against another: each a jar, started
# as `java -Xmx$HEAP -jar JAR serve` (no class-data sharing), or a checkout (built) or unpacked
# distribution, started by its own bin/tablecast with class-data sharing as a user runs it (an
# archive of its own, written by a first, unmeasured run of each).
#
# Usage: bench/scripts/server-start.sh [--db mariadb|postgresql|both] [--rows 1000000]
#          [--rounds 5] [--heap 2g] [--mysql-port 3306] [--pg-port 5432]
#          [--builds OLD NEW] [--out bench-results/server-start.md]
# Build first: ./mvnw -q -o -DskipTests package (the launcher runs cli/target/tablecast.jar)
set -euo pipefail
cd "$(dirname "$0")/../.."
DBS=postgresql; ROWS=1000000; ROUNDS=5; HEAP=2g; MYSQL_PORT=3306; PG_PORT=5432
OUT=bench-results/server-start.md; BUILDS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) DBS=$2; shift 2;; --rows) ROWS=$2; shift 2;; --rounds) ROUNDS=$2; shift 2;;
    --heap) HEAP=$2; shift 2;; --mysql-port) MYSQL_PORT=$2; shift 2;; --pg-port) PG_PORT=$2; shift 2;;
    --out) OUT=$2; shift 2;; --builds) BUILDS=("$2" "$3"); shift 3;;
    -h|--help) sed -n 2,16p "$0"; exit 0;;
    *) echo "server-start: unknown option $1" >&2; exit 2;;
  esac
done
[ "$DBS" = both ] && DBS="mariadb postgresql"
[ -f cli/target/tablecast.jar ] || { echo "server-start: build first: ./mvnw -q -o -DskipTests package" >&2; exit 1; }
WORK=$(mktemp -d /tmp/tc-server-start.XXXXXX)
mkdir -p "$(dirname "$OUT")"
# shellcheck source=bench/scripts/processes.sh
. bench/scripts/processes.sh
progress() { printf '[server-start] %s\n' "$*" >&2; }
TICKS=$(getconf CLK_TCK)

# one start: prints "wall_ms own_ms cpu_ms gc_threads_cpu_ms"
start_once() { # db, label, cds setting
  local port log server t0 wall own cpu
  port=$(free_port)
  printf 'server_name: server-start\nlisten: { host: 127.0.0.1, port: %s }\nsource:\n  jdbc_url: "%s"\n  install_triggers: true\ncached_tables: [tc_big.bench_rows]\n' \
    "$port" "$url" >"$WORK/$1.yaml"
  log="$WORK/$1-$2.log"
  t0=$(date +%s%N)
  if [ -d "$3" ]; then # $3: a checkout or distribution, with its launcher's class-data sharing
    TABLECAST_CDS_DIR="$WORK/cds-$(echo "$3" | cksum | cut -d' ' -f1)" TABLECAST_JAVA_OPTS="-Xmx$HEAP" \
      "$3/bin/tablecast" serve --config "$WORK/$1.yaml" >"$log" 2>&1 &
  elif [ "${#BUILDS[@]}" = 2 ]; then # $3: the jar
    java -Xmx"$HEAP" -jar "$3" serve --config "$WORK/$1.yaml" >"$log" 2>&1 &
  else # $3: TABLECAST_CDS
    TABLECAST_CDS=$3 TABLECAST_CDS_DIR="$WORK/cds" TABLECAST_JAVA_OPTS="-Xmx$HEAP" \
      bin/tablecast serve --config "$WORK/$1.yaml" >"$log" 2>&1 &
  fi
  server=$!; PIDS+=("$server")
  await_health "$server" "$port" "$log" || exit 1
  wall=$(( ($(date +%s%N) - t0) / 1000000 ))
  cpu=$(awk -v t="$TICKS" '{ printf "%d", ($14 + $15) * 1000 / t }' "/proc/$server/stat")
  gc=0
  for task in /proc/"$server"/task/*; do
    case "$(cat "$task/comm" 2>/dev/null)" in
      "G1 "* | "GC Thread"*) gc=$((gc + $(awk -v t="$TICKS" '{ printf "%d", ($14 + $15) * 1000 / t }' "$task/stat"))) ;;
    esac
  done
  own=$(sed -n 's/.* started on .* in \([0-9]*\) ms.*/\1/p' "$log" | head -1)
  kill "$server"; wait "$server" 2>/dev/null || true
  echo "$wall $own $cpu $gc"
}
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

{
  if [ "${#BUILDS[@]}" = 2 ]; then
    how="java -Xmx$HEAP -jar JAR serve"
    [ -d "${BUILDS[0]}" ] && how="BUILD/bin/tablecast serve -Xmx$HEAP, class-data sharing on"
    echo "# Server start on $ROWS rows, $how: ${BUILDS[0]} / ${BUILDS[1]}"
  else
    echo "# Server start on $ROWS rows, bin/tablecast serve -Xmx$HEAP: class-data sharing off / on"
  fi
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(java -version 2>&1 | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); logs in $WORK"
  echo
  echo "| database | round | first (off / old): to /health, server's own, JVM CPU, of it GC threads (ms) | second (on / new): the same | load |"
  echo "|---|---|---|---|---|"
} >"$OUT"
for db in $DBS; do
  progress "$db: creating tc_big.bench_rows with $ROWS rows"
  create_big_table "$db" "$ROWS"
  rm -rf "$WORK"/cds*
  a=off; b=on
  [ "${#BUILDS[@]}" = 2 ] && a=${BUILDS[0]} && b=${BUILDS[1]}
  progress "$db: a first run (not measured; it writes the archive)"
  [ -d "$a" ] && start_once "$db" first-a "$a" >/dev/null
  start_once "$db" first "$b" >/dev/null
  offs=(); ons=()
  for r in $(seq "$ROUNDS"); do
    off=$(start_once "$db" "a-$r" "$a"); on=$(start_once "$db" "b-$r" "$b")
    offs+=("$off"); ons+=("$on")
    line="| $db | $r | ${off// /, } | ${on// /, } | $(cut -d' ' -f1 /proc/loadavg) |"
    echo "$line" >>"$OUT"; progress "$line"
  done
  for i in 1 2 3 4; do
    mo[$i]=$(printf '%s\n' "${offs[@]}" | cut -d' ' -f$i | median)
    mn[$i]=$(printf '%s\n' "${ons[@]}" | cut -d' ' -f$i | median)
  done
  echo "| $db | **median** | ${mo[1]}, ${mo[2]}, ${mo[3]}, ${mo[4]} | ${mn[1]}, ${mn[2]}, ${mn[3]}, ${mn[4]} | |" >>"$OUT"
  drop_big_table "$db"
done
cat "$OUT"
