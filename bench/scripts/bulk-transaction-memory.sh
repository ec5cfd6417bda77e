#!/usr/bin/env bash
# Server and client memory while one transaction of a million rows travels (docs/BENCHMARKS.md,
# "A million-row transaction").
#
# For each database: a table `items` (id int key, price bigint) of ROWS rows and a small `notes`
# table; a real server (`tablecast serve`) and a real client (`tablecast watch items`, one JSON
# line per change) in two JVMs of their own, each logging its collections (-Xlog:gc). After a full
# GC in both (jcmd GC.run) it runs `UPDATE items SET price = price + 1` (one transaction), waits
# until the client has printed every changed row, and reports per process: heap after a full GC
# before, the largest heap after any collection meanwhile (young collections leave old garbage
# in place: an upper bound of what was live), and the table's size in the database.
#
# Usage: bench/scripts/bulk-transaction-memory.sh [--db mariadb|postgresql|both] [--rows 1000000]
#          [--mysql-port 3306] [--pg-port 5432] [--heap 6g] [--out bench-results/bulk-transaction-memory.md]
# Environment: TABLECAST_JAR (default cli/target/tablecast.jar; build: ./mvnw -q -o -DskipTests package)
set -euo pipefail
cd "$(dirname "$0")/../.."
DBS=both; ROWS=1000000; MYSQL_PORT=3306; PG_PORT=5432; HEAP=6g; OUT=bench-results/bulk-transaction-memory.md
while [ $# -gt 0 ]; do
  case "$1" in
    --db) DBS=$2; shift 2;; --rows) ROWS=$2; shift 2;; --mysql-port) MYSQL_PORT=$2; shift 2;;
    --pg-port) PG_PORT=$2; shift 2;; --heap) HEAP=$2; shift 2;; --out) OUT=$2; shift 2;;
    -h|--help) sed -n 2,16p "$0"; exit 0;;
    *) echo "bulk-transaction-memory: unknown option $1" >&2; exit 2;;
  esac
done
[ "$DBS" = both ] && DBS="mariadb postgresql"
JAR=${TABLECAST_JAR:-cli/target/tablecast.jar}
[ -f "$JAR" ] || { echo "bulk-transaction-memory: $JAR not found: ./mvnw -q -o -DskipTests package" >&2; exit 1; }
WORK=$(mktemp -d /tmp/tc-bulk-memory.XXXXXX)
mkdir -p "$(dirname "$OUT")"
# shellcheck source=bench/scripts/processes.sh
. bench/scripts/processes.sh

# the largest "after" of the collections logged from line $2 on, in bytes (-Xlog:gc: "...M->123M(456M)")
peak_after_gc() {
  tail -n +"$2" "$1" | sed -n 's/.*[0-9]M->\([0-9]*\)M(.*/\1/p' | sort -n | tail -1 | awk '{print $1 * 1048576}'
}

progress() { printf '[bulk-transaction-memory] %s\n' "$*" >&2; }

echo "| database | table in the database | UPDATE committed in | commit → last row printed by the client | server heap before / peak after GC | client heap before / peak after GC |" >"$WORK/rows.md"
echo "|---|---|---|---|---|---|" >>"$WORK/rows.md"

for db in $DBS; do
  progress "$db: creating tc_bulk with $ROWS rows"
  if [ "$db" = mariadb ]; then
    my -e "DROP DATABASE IF EXISTS tc_bulk; CREATE DATABASE tc_bulk"
    my tc_bulk -e "CREATE TABLE items (id int PRIMARY KEY, price bigint NOT NULL); CREATE TABLE notes (id int PRIMARY KEY, v int NOT NULL);
      INSERT INTO items SELECT seq, seq FROM seq_1_to_$ROWS; INSERT INTO notes VALUES (1, 0); ANALYZE TABLE items"
    url="jdbc:mariadb://127.0.0.1:$MYSQL_PORT/tc_bulk?user=root"
    size=$(my -e "SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = 'tc_bulk' AND table_name = 'items'")
    update() { my tc_bulk -e "UPDATE items SET price = price + 1"; }
    table=tc_bulk.items
  else
    pg -c "DROP SCHEMA IF EXISTS tc_bulk CASCADE" -c "CREATE SCHEMA tc_bulk" \
      -c "CREATE TABLE tc_bulk.items (id int PRIMARY KEY, price bigint NOT NULL)" \
      -c "CREATE TABLE tc_bulk.notes (id int PRIMARY KEY, v int NOT NULL)" \
      -c "INSERT INTO tc_bulk.items SELECT g, g FROM generate_series(1, $ROWS) g" -c "INSERT INTO tc_bulk.notes VALUES (1, 0)" \
      -c "VACUUM ANALYZE tc_bulk.items"
    url="jdbc:postgresql://127.0.0.1:$PG_PORT/test?user=postgres"
    size=$(pg -c "SELECT pg_total_relation_size('tc_bulk.items')")
    update() { pg -c "UPDATE tc_bulk.items SET price = price + 1"; }
    table=tc_bulk.items
  fi
  port=$(free_port)
  printf 'server_name: bulk-bench\nlisten: { host: 127.0.0.1, port: %s }\nsource:\n  jdbc_url: "%s"\n  install_triggers: true\ncached_tables: [tc_bulk.items, tc_bulk.notes]\n' \
    "$port" "$url" >"$WORK/$db.yaml"
  progress "$db: starting the server on port $port"
  java -Xmx"$HEAP" -Xlog:gc:file="$WORK/$db-server-gc.log" -jar "$JAR" serve --config "$WORK/$db.yaml" >"$WORK/$db-server.log" 2>&1 &
  server=$!; PIDS+=("$server")
  for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.5; done
  curl -sf "http://127.0.0.1:$port/health" >/dev/null || { tail -30 "$WORK/$db-server.log" >&2; exit 1; }
  progress "$db: starting the client (tablecast watch $table)"
  java -Xmx"$HEAP" -Xlog:gc:file="$WORK/$db-client-gc.log" -jar "$JAR" watch --server "127.0.0.1:$port" --timeout 300s "$table" \
    >"$WORK/$db-watch.out" 2>"$WORK/$db-watch.err" &
  client=$!; PIDS+=("$client")
  for _ in $(seq 1 600); do grep -q '^watching' "$WORK/$db-watch.err" 2>/dev/null && break; sleep 0.5; done
  grep -q '^watching' "$WORK/$db-watch.err" || { cat "$WORK/$db-watch.err" >&2; exit 1; }
  server_before=$(heap_after_full_gc "$server"); client_before=$(heap_after_full_gc "$client")
  server_from=$(( $(wc -l <"$WORK/$db-server-gc.log") + 1 )); client_from=$(( $(wc -l <"$WORK/$db-client-gc.log") + 1 ))
  progress "$db: UPDATE of $ROWS rows (server heap $(mib "$server_before") MiB, client $(mib "$client_before") MiB after a full GC)"
  t0=$(date +%s%N); update; t1=$(date +%s%N)
  while [ "$(wc -l <"$WORK/$db-watch.out")" -lt "$ROWS" ]; do
    sleep 0.2
    kill -0 "$client" 2>/dev/null || { cat "$WORK/$db-watch.err" >&2; exit 1; }
    [ $(( ($(date +%s%N) - t1) / 1000000000 )) -lt 600 ] || { echo "bulk-transaction-memory: not delivered in 600 s" >&2; exit 1; }
  done
  t2=$(date +%s%N)
  server_peak=$(peak_after_gc "$WORK/$db-server-gc.log" "$server_from"); client_peak=$(peak_after_gc "$WORK/$db-client-gc.log" "$client_from")
  server_peak=${server_peak:-$server_before}; client_peak=${client_peak:-$client_before}
  line="| $db | $(mib "$size") MiB | $(( (t1 - t0) / 1000000 )) ms | $(( (t2 - t1) / 1000000 )) ms | $(mib "$server_before") / $(mib "$server_peak") MiB | $(mib "$client_before") / $(mib "$client_peak") MiB |"
  echo "$line" >>"$WORK/rows.md"
  progress "$line"
  kill "$client" "$server" 2>/dev/null || true
  wait "$client" "$server" 2>/dev/null || true
  if [ "$db" = mariadb ]; then my -e "DROP DATABASE tc_bulk"; else pg -c "DROP SCHEMA tc_bulk CASCADE"; fi
done

{
  echo "# One transaction of $ROWS rows: server and client memory"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(java -version 2>&1 | head -1), -Xmx$HEAP, G1; logs in $WORK"
  echo
  cat "$WORK/rows.md"
} >"$OUT"
cat "$OUT"
