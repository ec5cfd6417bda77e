#!/usr/bin/env bash
# Where a server's start goes before and around its snapshot (docs/BENCHMARKS.md, "Server start:
# what comes before the snapshot"): ROUNDS starts of the checkout's `bin/tablecast serve` (class-data
# sharing on, as users run it; a first, unmeasured run writes the archive) on a table of ROWS rows
# (tc_phases.items, PostgreSQL), each with the JVM's class-loading log (-Xlog:class+load, uptime in
# ms). A phase ends when the first class of the next one loads:
#
#   JVM to main        the JVM's own start, up to the first class of io.tablecast.cli
#   command line       picocli's model of every subcommand, up to ConfigLoader
#   configuration      YAML read, bound to the settings records, up to Logback's LoggerContext
#   logging            Logback configured from logback.xml, up to the first Micrometer class
#   metrics and port   the Prometheus registry, the starting port (Netty), up to the JDBC driver
#   capture check      the first connection, the capture's check (triggers), up to SnapshotImages
#   snapshot           the whole-table reads into the images, up to NettyServer
#   to the log line    the port bound for clients, up to "started on ... since the process started"
#
# The total is the server's own "since the process started" (the launcher script included).
# Prints one row per start and the medians.
#
# Usage: bench/scripts/start-phases.sh [--rounds 5] [--rows 1000] [--pg-port 5432]
# Build first: ./mvnw -q -o -DskipTests package (the launcher runs cli/target/tablecast.jar)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=5; ROWS=1000; PG_PORT=5432; MYSQL_PORT=3306
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2;; --rows) ROWS=$2; shift 2;; --pg-port) PG_PORT=$2; shift 2;;
    -h|--help) sed -n 2,21p "$0"; exit 0;;
    *) echo "start-phases: unknown option $1" >&2; exit 2;;
  esac
done
[ -f cli/target/tablecast.jar ] || { echo "start-phases: build first: ./mvnw -q -o -DskipTests package" >&2; exit 1; }
# shellcheck source=bench/scripts/processes.sh
. bench/scripts/processes.sh
WORK=$(mktemp -d /tmp/tc-start-phases.XXXXXX)
pg -c "DROP SCHEMA IF EXISTS tc_phases CASCADE" -c "CREATE SCHEMA tc_phases" \
  -c "CREATE TABLE tc_phases.items (id int PRIMARY KEY, name text NOT NULL)" \
  -c "INSERT INTO tc_phases.items SELECT i, 'item-' || i FROM generate_series(1, $ROWS) i"
printf 'server_name: start-phases\nlisten: { host: 127.0.0.1, port: 0 }\nsource:\n  jdbc_url: "jdbc:postgresql://127.0.0.1:%s/test?user=postgres"\n  install_triggers: true\ncached_tables: [tc_phases.items]\n' \
  "$PG_PORT" >"$WORK/config.yaml"

MARKS=("io\.tablecast\.cli\." "io\.tablecast\.server\.ConfigLoader " "ch\.qos\.logback\.classic\.LoggerContext "
  "io\.micrometer\." "org\.postgresql\.Driver " "io\.tablecast\.server\.hub\.SnapshotImages "
  "io\.tablecast\.server\.net\.NettyServer ")
# one start: prints the eight phases' ms and the total
start_once() {
  local log="$WORK/serve.log" classes="$WORK/classes.log" server prev=0 at line total
  rm -f "$classes"
  TABLECAST_CDS_DIR="$WORK/cds" TABLECAST_JAVA_OPTS="-Xlog:class+load=info:file=$classes:uptimemillis" \
    bin/tablecast serve --config "$WORK/config.yaml" >"$log" 2>&1 &
  server=$!; PIDS+=("$server")
  until grep -q "since the process started" "$log"; do
    kill -0 "$server" 2>/dev/null || { tail -30 "$log" >&2; exit 1; }
    sleep 0.05
  done
  kill "$server"; wait "$server" 2>/dev/null || true
  total=$(sed -n 's/.*(\([0-9]*\) ms since the process started).*/\1/p' "$log" | head -1)
  line=""
  for mark in "${MARKS[@]}"; do
    at=$(grep -m1 -E "\] $mark" "$classes" | sed 's/^\[\([0-9]*\)ms\].*/\1/')
    line="$line $((at - prev))"; prev=$at
  done
  # the last phase: NettyServer's first class to the log line, less the launcher (the process's
  # start to the JVM's), which the total holds and no class marks: reported inside "to the log line"
  echo "$line $((total - prev)) $total"
}
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "start-phases: a first run writes the class-data-sharing archive (not measured)" >&2
start_once >/dev/null
echo "# Server start phases, bin/tablecast serve, $ROWS rows (PostgreSQL), ms"
echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo
echo "| round | JVM to main | command line | configuration | logging | metrics and port | capture check | snapshot | to the log line (and the launcher) | since the process started | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
rows=()
for r in $(seq "$ROUNDS"); do
  row=$(start_once); rows+=("$row")
  echo "| $r | $(echo $row | sed 's/ / | /g') | $(cut -d' ' -f1 /proc/loadavg) |"
done
med=""
for i in 1 2 3 4 5 6 7 8 9; do med="$med | $(printf '%s\n' "${rows[@]}" | awk -v i=$i '{print $i}' | median)"; done
echo "| **median**$med | |"
pg -c "DROP SCHEMA tc_phases CASCADE"
