#!/usr/bin/env bash
# Issue 13's CPU goal: the server process's CPU per 1,000 changes at a fixed rate, one build
# beside another (docs/BENCHMARKS.md, "The server's CPU per 1,000 changes at a fixed rate").
#
# A database of its own (tc_cpu, created anew for every run, so that each build installs its own
# capture) with the benchmark table (bench_rows: id bigint key, version bigint, name varchar(32),
# price decimal(10,2), qty int; ROWS rows); a real server (`tablecast serve` of the jar, -Xmx2g,
# install_triggers) and one `tablecast watch` of the table (its output discarded) as the
# subscriber, each a process of its own; single-row UPDATEs in autocommit at RATE a second from
# CLIENTS connections (PostgreSQL: pgbench -R; MariaDB: sysbench --rate): WARMUP seconds not
# counted, then SECONDS measured. Reported per run: the changes committed in the measured window,
# the server's and the watcher's CPU over it (utime + stime of the process, /proc), as % of a core
# and as ms per 1,000 changes, the server's threads by group, and the database's CPU over the same
# window (the writers' statements and the tail's reads; MariaDB: the mariadbd process on the port;
# PostgreSQL: the postmaster and its backends, ended ones included). The jars run in turn, ROUNDS
# times.
#
# Usage: bench/scripts/server-cpu.sh [--db postgresql|mariadb] [--rate 10000] [--seconds 30]
#          [--warmup 15] [--rows 100000] [--pg-port 5433] [--mysql-port 3307] [--rounds 3]
#          [--clients 16] JAR [JAR...]
# Environment: SERVER_JAVA_OPTS, more options for the server's JVM (a JFR recording, say).
set -euo pipefail
cd "$(dirname "$0")/../.."
DB=postgresql; RATE=10000; CLIENTS=16; SECONDS_MEASURED=30; WARMUP=15; ROWS=100000; PG_PORT=5433; ROUNDS=3; MYSQL_PORT=3307
JARS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) RATE=$2; shift 2;; --seconds) SECONDS_MEASURED=$2; shift 2;;
    --warmup) WARMUP=$2; shift 2;; --rows) ROWS=$2; shift 2;; --pg-port) PG_PORT=$2; shift 2;;
    --rounds) ROUNDS=$2; shift 2;; --clients) CLIENTS=$2; shift 2;;
    --db) DB=$2; shift 2;; --mysql-port) MYSQL_PORT=$2; shift 2;;
    -h|--help) sed -n 2,19p "$0"; exit 0;;
    -*) echo "server-cpu: unknown option $1" >&2; exit 2;;
    *) JARS+=("$1"); shift;;
  esac
done
[ ${#JARS[@]} -gt 0 ] || { echo "server-cpu: give one or more server jars (cli/target/tablecast.jar)" >&2; exit 2; }
case "$DB" in
  postgresql)
    PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -1)
    [ -x "$PGBENCH" ] || { echo "server-cpu: pgbench not found (Debian: apt-get install postgresql-client)" >&2; exit 1; };;
  mariadb)
    command -v sysbench >/dev/null || { echo "server-cpu: sysbench not found (Debian: apt-get install sysbench)" >&2; exit 1; };;
  *) echo "server-cpu: --db postgresql or mariadb, was $DB" >&2; exit 2;;
esac
# shellcheck source=bench/scripts/processes.sh
. bench/scripts/processes.sh
WORK=$(mktemp -d /tmp/tc-server-cpu.XXXXXX)
TICKS=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# "group ticks" per thread of a process, numbers in thread names folded (C2 CompilerThre#)
thread_ticks() {
  for t in /proc/"$1"/task/*; do
    printf '%s\t%s\n' "$(tr -d '\n' <"$t/comm" | sed 's/[0-9]\+/#/g')" "$(awk '{print $14 + $15}' "$t/stat")"
  done 2>/dev/null
}
# the database server's CPU ticks: mariadbd's (every thread); the postmaster's with its children's,
# the live ones read directly and the ended ones from its cutime and cstime
db_pid() {
  if [ "$DB" = postgresql ]; then
    head -1 "$(PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qAt -c "SHOW data_directory")/postmaster.pid"
  else
    pgrep -f "mariadbd.*--port=$MYSQL_PORT" | head -1
  fi
}
db_ticks() {
  if [ "$DB" = postgresql ]; then
    local total child
    total=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat")
    for child in $(pgrep -P "$1"); do
      total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
  else
    cpu_ticks "$1"
  fi
}
progress() { printf '[server-cpu] %s\n' "$*" >&2; }
printf '\\set id random(1, %s)\nUPDATE bench_rows SET version = version + 1 WHERE id = :id;\n' "$ROWS" >"$WORK/update.sql"
cat >"$WORK/update.lua" <<LUA
function thread_init() con = sysbench.sql.driver():connect() end
function event()
  con:query(string.format("UPDATE bench_rows SET version = version + 1 WHERE id = %d", sysbench.rand.uniform(1, $ROWS)))
end
function thread_done() con:disconnect() end
LUA
writers_run() { # seconds -> transactions committed
  if [ "$DB" = postgresql ]; then
    "$PGBENCH" -n -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "$CLIENTS" -j 2 -R "$RATE" -T "$1" -f "$WORK/update.sql" tc_cpu 2>&1 \
      | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p'
  else
    sysbench "$WORK/update.lua" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$MYSQL_PORT" --mysql-user=root \
      --mysql-db=tc_cpu --threads="$CLIENTS" --rate="$RATE" --time="$1" --events=0 run 2>&1 \
      | sed -n 's/^ *total number of events: *\([0-9]*\).*/\1/p'
  fi
}
create_table() {
  local cols="id BIGINT PRIMARY KEY, version BIGINT NOT NULL, name VARCHAR(32) NOT NULL, price DECIMAL(10,2) NOT NULL, qty INT NOT NULL"
  if [ "$DB" = postgresql ]; then
    PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qAt \
      -c "DROP DATABASE IF EXISTS tc_cpu WITH (FORCE)" -c "CREATE DATABASE tc_cpu"
    PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d tc_cpu -qAt \
      -c "CREATE TABLE bench_rows ($cols)" \
      -c "INSERT INTO bench_rows SELECT i, 0, 'row-' || i, i % 1000 + 0.99, i % 100 FROM generate_series(1, $ROWS) i" \
      -c "VACUUM ANALYZE bench_rows"
    JDBC_URL="jdbc:postgresql://127.0.0.1:$PG_PORT/tc_cpu?user=postgres"; TABLE=public.bench_rows
  else
    my -e "DROP DATABASE IF EXISTS tc_cpu; CREATE DATABASE tc_cpu"
    my tc_cpu -e "CREATE TABLE bench_rows ($cols);
      INSERT INTO bench_rows SELECT seq, 0, CONCAT('row-', seq), seq % 1000 + 0.99, seq % 100 FROM seq_1_to_$ROWS; ANALYZE TABLE bench_rows" >/dev/null
    JDBC_URL="jdbc:mariadb://127.0.0.1:$MYSQL_PORT/tc_cpu?user=root&password="; TABLE=tc_cpu.bench_rows
  fi
}

echo "| round | jar | changes committed (measured) | changes/s | server % of a core | server ms CPU per 1,000 changes | watcher % of a core | database % of a core |" >"$WORK/rows.md"
echo "|---|---|---|---|---|---|---|---|" >>"$WORK/rows.md"
for round in $(seq 1 "$ROUNDS"); do
  for jar in "${JARS[@]}"; do
    progress "round $round, $jar: a fresh database tc_cpu with $ROWS rows"
    create_table
    port=$(free_port)
    printf 'server_name: server-cpu\nlisten: { host: 127.0.0.1, port: %s }\nsource:\n  jdbc_url: "%s"\n  install_triggers: true\ncached_tables: [%s]\n' \
      "$port" "$JDBC_URL" "$TABLE" >"$WORK/server.yaml"
    # shellcheck disable=SC2086
    java -Xmx2g ${SERVER_JAVA_OPTS:-} -jar "$jar" serve --config "$WORK/server.yaml" >"$WORK/server-$round.log" 2>&1 &
    server=$!; PIDS+=("$server")
    until curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
      kill -0 "$server" 2>/dev/null || { tail -30 "$WORK/server-$round.log" >&2; exit 1; }
      sleep 0.2
    done
    java -jar "$jar" watch "$TABLE" --server "127.0.0.1:$port" >/dev/null 2>"$WORK/watch-$round.err" &
    watcher=$!; PIDS+=("$watcher")
    progress "round $round: warming up for ${WARMUP}s at $RATE/s"
    writers_run "$WARMUP" >/dev/null
    thread_ticks "$server" >"$WORK/threads0"
    dbp=$(db_pid)
    s0=$(cpu_ticks "$server"); w0=$(cpu_ticks "$watcher"); d0=$(db_ticks "$dbp"); t0=$(date +%s%N)
    changes=$(writers_run "$SECONDS_MEASURED")
    s1=$(cpu_ticks "$server"); w1=$(cpu_ticks "$watcher"); d1=$(db_ticks "$dbp"); t1=$(date +%s%N)
    thread_ticks "$server" >"$WORK/threads1"
    # the server's threads over the window, by group, % of a core (threads that ended are missing)
    awk -F'\t' -v hz="$TICKS" -v ns=$((t1 - t0)) 'NR == FNR { a[$1] += $2; next } { b[$1] += $2 }
      END { for (g in b) { d = b[g] - a[g]; if (d > 0) printf "%.1f%% %s\n", 100 * d / hz / (ns / 1e9), g } }' \
      "$WORK/threads0" "$WORK/threads1" | sort -rn | head -8 | tr '\n' ';' | sed 's/;$/\n/' \
      >"$WORK/threads-$round-$(basename "$(dirname "$jar")")-$(basename "$jar")"
    progress "server threads: $(cat "$WORK/threads-$round-$(basename "$(dirname "$jar")")-$(basename "$jar")")"
    line=$(awk -v c="$changes" -v s=$((s1 - s0)) -v w=$((w1 - w0)) -v d=$((d1 - d0)) -v hz="$TICKS" -v ns=$((t1 - t0)) \
      -v r="$round" -v j="$jar" 'BEGIN { wall = ns / 1e9;
        printf "| %s | %s | %d | %.0f | %.1f %% | %.1f | %.1f %% | %.1f %% |", r, j, c, c / wall, 100 * s / hz / wall, 1000 * (s / hz) / (c / 1000), 100 * w / hz / wall, 100 * d / hz / wall }')
    echo "$line" >>"$WORK/rows.md"
    progress "$line"
    kill "$watcher" "$server" 2>/dev/null || true
    wait "$watcher" "$server" 2>/dev/null || true
  done
done
if [ "$DB" = postgresql ]; then
  PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qAt \
    -c "DROP DATABASE IF EXISTS tc_cpu WITH (FORCE)"
else
  my -e "DROP DATABASE IF EXISTS tc_cpu"
fi
echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $DB, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), rate $RATE/s, ${SECONDS_MEASURED}s measured after ${WARMUP}s; logs in $WORK"
echo
cat "$WORK/rows.md"
