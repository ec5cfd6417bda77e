#!/usr/bin/env bash
# Trigger write overhead (issue 6): sysbench oltp_write_only TPS with the Tablecast capture
# triggers installed divided by TPS without them, on MariaDB and PostgreSQL.
#
# Runs against the benchmark's own instances (bench/scripts/start-dbs.sh: MariaDB 3307,
# PostgreSQL 5433), in a database "sbtest" of their own. After one unrecorded warm-up run, each
# round runs both variants back to back, alternating which goes first; triggers are installed/
# uninstalled with the real CLI (`tablecast install|uninstall --config <generated yaml>`), which
# also drops the outbox, so every "with" run starts from an empty outbox. Prints progress and a Markdown table (medians, ratio).
#
# Besides TPS, each run records the CPU time the database server (every process of the instance)
# and sysbench used, per transaction. On a machine shared with other work TPS swings with the
# neighbours' load, CPU per transaction much less; "CPU ratio" (CPU per transaction without / with
# triggers, database plus client) is what the TPS ratio would be on a CPU-bound machine of our own.
#
# With --served, each round also runs a third variant (issue 14's co-located figure): the triggers
# and, on the same machine, `tablecast serve` on the sbtest tables with one client mirroring all of
# them (io.tablecast.bench.MirrorsUntilStopped, a JVM of its own), warmed by --served-warmup seconds
# (default 30: until the JIT has compiled the hot paths, as in a server that has run a while) of the
# same load (not recorded) before each measured run; its CPU per transaction adds the
# Tablecast server's and client's CPU to the database's and sysbench's. A second table reports it.
# With --compare-jar OTHER.jar as well, a fourth variant "served-b" runs the same with OTHER.jar as
# the server (an older build, for an A/B in one run; the client stays the bench jar's).
#
# Usage: bench/sysbench/trigger-overhead.sh [--dbs "mariadb postgresql"] [--threads 2] [--time 20]
#          [--rounds 3] [--tables 4] [--table-size 10000] [--served] [--served-warmup 30]
#          [--compare-jar OTHER.jar] [--out bench-results/trigger-overhead.md]
# Environment: TABLECAST_JAR (default cli/target/tablecast.jar), TABLECAST_BENCH_JAR (default
# bench/target/tablecast-bench.jar, for --served); build both: ./mvnw -q -o -DskipTests package
set -euo pipefail
cd "$(dirname "$0")/../.."

DBS="mariadb postgresql"; THREADS=2; TIME=20; ROUNDS=3; TABLES=4; TABLE_SIZE=10000
OUT=bench-results/trigger-overhead.md; SERVED=false; SERVED_WARMUP=30; JAR_B=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dbs) DBS=$2; shift 2;; --threads) THREADS=$2; shift 2;; --time) TIME=$2; shift 2;;
    --rounds) ROUNDS=$2; shift 2;; --tables) TABLES=$2; shift 2;; --table-size) TABLE_SIZE=$2; shift 2;;
    --out) OUT=$2; shift 2;; --served) SERVED=true; shift;;
    --served-warmup) SERVED_WARMUP=$2; shift 2;; --compare-jar) JAR_B=$2; shift 2;;
    -h|--help) sed -n 2,29p "$0"; exit 0;;
    *) echo "trigger-overhead: unknown option $1" >&2; exit 2;;
  esac
done
JAR=${TABLECAST_JAR:-cli/target/tablecast.jar}
BJAR=${TABLECAST_BENCH_JAR:-bench/target/tablecast-bench.jar}
MPORT=${TC_BENCH_MARIADB_PORT:-3307}
PGPORT=${TC_BENCH_PG_PORT:-5433}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
MDIR=${TC_BENCH_MARIADB_DIR:-/tmp/tc-bench-mariadb}
PGDIR=${TC_BENCH_PG_DIR:-/tmp/tc-bench-pg}
die() { echo "trigger-overhead: ERROR: $*" >&2; exit 1; }
say() { echo "[trigger-overhead $(date +%H:%M:%S)] $*" >&2; }

command -v sysbench >/dev/null || die "sysbench not found: apt-get install -y sysbench"
[ -f "$JAR" ] || die "$JAR not found: build it with ./mvnw -q -o -DskipTests package (or set TABLECAST_JAR)"
if [ -n "$JAR_B" ]; then
  $SERVED || die "--compare-jar needs --served"
  [ -f "$JAR_B" ] || die "$JAR_B (--compare-jar) not found"
fi
if $SERVED; then
  [ -f "$BJAR" ] || die "$BJAR not found: build it with ./mvnw -q -o -DskipTests package (or set TABLECAST_BENCH_JAR)"
  command -v curl >/dev/null || die "curl not found (--served waits for the server's /health): apt-get install -y curl"
fi
SERVED_PIDS=()
stop_served() {  # stops the served variant's server and client, if running
  local pid
  for pid in "${SERVED_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${SERVED_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  SERVED_PIDS=()
}
trap stop_served EXIT
bench/scripts/start-dbs.sh >&2 || die "could not start the benchmark databases"
WORK=$(mktemp -d /tmp/tc-trigger-overhead.XXXXXX)
mkdir -p "$(dirname "$OUT")"

sb_args() {  # common sysbench arguments for database $1
  local common="--tables=$TABLES --table-size=$TABLE_SIZE --threads=$THREADS --time=$TIME --report-interval=0 --rand-type=uniform"
  case "$1" in
    mariadb) echo "oltp_write_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$MPORT --mysql-user=root --mysql-password= --mysql-db=sbtest $common";;
    postgresql) echo "oltp_write_only --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$PGPORT --pgsql-user=postgres --pgsql-password= --pgsql-db=sbtest $common";;
  esac
}
sqlq() {  # run SQL on database $1 (server level)
  case "$1" in
    mariadb) mariadb -h127.0.0.1 -P"$MPORT" -uroot -N -e "$2";;
    postgresql) PGOPTIONS='-c client_min_messages=warning' "$PG_BIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres \
      -d "${3:-postgres}" -qAt -v ON_ERROR_STOP=1 -c "$2";;
  esac
}
config() {  # generated server yaml for database $1
  local f=$WORK/$1.yaml tables="" schema url i
  case "$1" in
    mariadb) url="jdbc:mariadb://127.0.0.1:$MPORT/sbtest?user=root"; schema=sbtest;;
    postgresql) url="jdbc:postgresql://127.0.0.1:$PGPORT/sbtest?user=postgres"; schema=public;;
  esac
  for i in $(seq 1 "$TABLES"); do tables="$tables${tables:+, }$schema.sbtest$i"; done
  printf 'source:\n  jdbc_url: "%s"\ncached_tables: [%s]\n' "$url" "$tables" >"$f"
  echo "$f"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_served() {  # database $1, its config $2, server jar $3: starts the server and a client mirroring every table
  local port cfg=$WORK/$1-serve.yaml log tables i
  port=$(free_port)
  { printf 'server_name: trigger-overhead\nlisten: { host: 127.0.0.1, port: %s }\n' "$port"; cat "$2"; } >"$cfg"
  log=$WORK/$1-serve-$(date +%s%N).log
  java -jar "$3" serve --config "$cfg" >"$log" 2>&1 &
  SERVED_PIDS+=("$!")
  for i in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
    kill -0 "${SERVED_PIDS[0]}" 2>/dev/null || { tail -20 "$log" >&2; die "tablecast serve exited (log $log)"; }
    sleep 0.5
  done
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 || die "tablecast serve not healthy after 60 s (log $log)"
  tables=$(sed -n 's/^cached_tables: \[\(.*\)\]$/\1/p' "$2" | tr -d ',')
  # shellcheck disable=SC2086
  java -cp "$BJAR" io.tablecast.bench.MirrorsUntilStopped "127.0.0.1:$port" $tables >"$log.client" 2>&1 &
  SERVED_PIDS+=("$!")
  for i in $(seq 1 120); do
    grep -q '^ready' "$log.client" && return 0
    kill -0 "${SERVED_PIDS[1]}" 2>/dev/null || { tail -20 "$log.client" >&2; die "the client exited (log $log.client)"; }
    sleep 0.5
  done
  die "the client's mirrors not ready after 60 s (log $log.client)"
}
pids_ticks() {  # CPU clock ticks used so far by the given processes and their threads
  local pid t=0
  for pid in "$@"; do
    t=$((t + $(awk '{ s = $0; sub(/^.*\) /, "", s); split(s, a, " "); print a[12] + a[13] }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
tablecast() { java -jar "$JAR" "$@" >>"$WORK/cli.log" 2>&1 || { tail -20 "$WORK/cli.log" >&2; die "tablecast $* failed (log $WORK/cli.log)"; }; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }

server_ticks() {  # CPU clock ticks used so far by database $1's server: the process, its threads
  # and children (PostgreSQL: the postmaster, its live children and those it reaped, i.e. backends)
  local pid
  case "$1" in
    mariadb) pid=$(cat "$MDIR/mariadbd.pid");;
    postgresql) pid=$(head -1 "$PGDIR/postmaster.pid");;
  esac
  # fields after "pid (comm) ": 1 state, 2 ppid, 12-15 utime stime cutime cstime
  # through cat: awk would stop at a process that ended between the glob and the read
  { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v root="$pid" '{ s = $0; sub(/^.*\) /, "", s); split(s, a, " ");
    if ($1 == root || a[2] == root) t += a[12] + a[13] + a[14] + a[15] } END { print t + 0 }'
}
run_one() {  # db variant -> prints "TPS server-CPU-us-per-tx client-CPU-us-per-tx tablecast-CPU-us-per-tx"
  local db=$1 variant=$2 log tps before after client tx hz tc_before tc_after
  log=$WORK/$db-$variant-$(date +%s%N).log
  case "$db" in
    mariadb) sqlq mariadb "FLUSH TABLES" >/dev/null;;
    postgresql) sqlq postgresql "CHECKPOINT" >/dev/null;;
  esac
  before=$(server_ticks "$db")
  tc_before=$(pids_ticks "${SERVED_PIDS[@]}")
  # shellcheck disable=SC2046
  client=$( (sysbench $(sb_args "$db") run >"$log" 2>&1 || exit 1
    awk '{ s = $0; sub(/^.*\) /, "", s); split(s, a, " "); print a[14] + a[15] }' "/proc/$BASHPID/stat") ) \
    || { tail -20 "$log" >&2; die "sysbench run failed on $db ($variant), log $log"; }
  sleep 0.5  # the backends sysbench used exit as it disconnects: let the postmaster reap them
  after=$(server_ticks "$db")
  tc_after=$(pids_ticks "${SERVED_PIDS[@]}")
  tps=$(sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$log")
  tx=$(sed -n 's/.*transactions: *\([0-9]*\) *(.*/\1/p' "$log")
  [ -n "$tps" ] && [ -n "$tx" ] || die "no TPS in $log"
  hz=$(getconf CLK_TCK)
  awk -v tps="$tps" -v s=$((after - before)) -v c="$client" -v tx="$tx" -v hz="$hz" -v t=$((tc_after - tc_before)) \
    'BEGIN { printf "%s %.0f %.0f %.0f\n", tps, s * 1e6 / hz / tx, c * 1e6 / hz / tx, t * 1e6 / hz / tx }'
}

ROWS=""; SROWS=""
for db in $DBS; do
  say "$db: preparing sbtest ($TABLES tables x $TABLE_SIZE rows)"
  case "$db" in
    mariadb) sqlq mariadb "DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest";;
    postgresql) sqlq postgresql "DROP DATABASE IF EXISTS sbtest" && sqlq postgresql "CREATE DATABASE sbtest";;
    *) die "unknown database $db (mariadb, postgresql)";;
  esac
  # shellcheck disable=SC2046
  sysbench $(sb_args "$db") prepare >"$WORK/$db-prepare.log" 2>&1 || { tail "$WORK/$db-prepare.log" >&2; die "sysbench prepare failed on $db"; }
  cfg=$(config "$db")
  tablecast uninstall --config "$cfg"
  full_time=$TIME; TIME=$(( TIME < 10 ? TIME : 10 ))
  say "$db: warm-up run without triggers, ${TIME}s (not recorded)"
  run_one "$db" warmup >/dev/null
  TIME=$full_time
  without=(); with=(); cpu_without=(); cpu_with=(); served=(); cpu_served=(); served_b=(); cpu_served_b=()
  variants=(without with); $SERVED && variants+=(served); [ -n "$JAR_B" ] && variants+=(served-b)
  for r in $(seq 1 "$ROUNDS"); do
    order=""  # each round starts one variant later than the one before
    for i in $(seq 0 $((${#variants[@]} - 1))); do order="$order ${variants[$(( (i + r - 1) % ${#variants[@]} ))]}"; done
    for v in $order; do
      if [ "$v" != without ]; then tablecast install --config "$cfg"; fi
      if [ "$v" = served ] || [ "$v" = served-b ]; then
        start_served "$db" "$cfg" "$( [ "$v" = served ] && echo "$JAR" || echo "$JAR_B")"
        # the server's and the client's JIT warmed by the same load first, as a running server is
        full_time=$TIME; TIME=$SERVED_WARMUP
        run_one "$db" served-warmup >/dev/null
        TIME=$full_time
      fi
      read -r tps scpu ccpu tcpu <<<"$(run_one "$db" "$v")"
      if [ "$v" = served ] || [ "$v" = served-b ]; then
        stop_served
        if [ "$v" = served ]; then served+=("$tps"); cpu_served+=("$((scpu + ccpu + tcpu))")
        else served_b+=("$tps"); cpu_served_b+=("$((scpu + ccpu + tcpu))"); fi
        tablecast uninstall --config "$cfg"
        say "$db round $r: $(printf '%-16s' "$v") $tps TPS, CPU/tx server $scpu + client $ccpu + Tablecast $tcpu us"
      elif [ "$v" = with ]; then
        with+=("$tps"); cpu_with+=("$((scpu + ccpu))")
        n=$(sqlq "$db" "SELECT COUNT(*) FROM $( [ "$db" = mariadb ] && echo sbtest.tablecast_outbox || echo public.tablecast_outbox)" sbtest)
        tablecast uninstall --config "$cfg"
        say "$db round $r: with triggers    $tps TPS, CPU/tx server $scpu + client $ccpu us ($n outbox rows written)"
      else
        without+=("$tps"); cpu_without+=("$((scpu + ccpu))")
        say "$db round $r: without triggers $tps TPS, CPU/tx server $scpu + client $ccpu us"
      fi
    done
  done
  mw=$(printf '%s\n' "${with[@]}" | median); mo=$(printf '%s\n' "${without[@]}" | median)
  ratio=$(awk -v a="$mw" -v b="$mo" 'BEGIN {printf "%.3f", a/b}')
  over=$(awk -v a="$mw" -v b="$mo" 'BEGIN {printf "%.1f", (1-a/b)*100}')
  cw=$(printf '%s\n' "${cpu_with[@]}" | median); co=$(printf '%s\n' "${cpu_without[@]}" | median)
  cratio=$(awk -v a="$cw" -v b="$co" 'BEGIN {printf "%.3f", b/a}')
  if $SERVED; then
    ms=$(printf '%s\n' "${served[@]}" | median)
    cs=$(printf '%s\n' "${cpu_served[@]}" | median)
    SROWS="$SROWS| $db | $(basename "$JAR") | $(IFS=' '; echo "${served[*]}") | $mo | $ms | $(awk -v a="$ms" -v b="$mo" 'BEGIN {printf "%.3f", a/b}') | $(awk -v a="$ms" -v b="$mo" 'BEGIN {printf "%.1f", (1-a/b)*100}') % | $co | $cs | $(awk -v a="$cs" -v b="$co" 'BEGIN {printf "%.3f", b/a}') |"$'\n'
    say "$db: served median $ms TPS; CPU/tx $co -> $cs us (database, sysbench, Tablecast server and client)"
  fi
  if [ -n "$JAR_B" ]; then
    ms=$(printf '%s\n' "${served_b[@]}" | median)
    cs=$(printf '%s\n' "${cpu_served_b[@]}" | median)
    SROWS="$SROWS| $db | $JAR_B | $(IFS=' '; echo "${served_b[*]}") | $mo | $ms | $(awk -v a="$ms" -v b="$mo" 'BEGIN {printf "%.3f", a/b}') | $(awk -v a="$ms" -v b="$mo" 'BEGIN {printf "%.1f", (1-a/b)*100}') % | $co | $cs | $(awk -v a="$cs" -v b="$co" 'BEGIN {printf "%.3f", b/a}') |"$'\n'
    say "$db: served-b ($JAR_B) median $ms TPS; CPU/tx $co -> $cs us"
  fi
  ROWS="$ROWS| $db | $(IFS=' '; echo "${without[*]}") | $(IFS=' '; echo "${with[*]}") | $mo | $mw | $ratio | $over % | $co | $cw | $cratio |"$'\n'
  say "$db: median without $mo, with $mw, ratio $ratio (overhead $over %); CPU/tx $co -> $cw us, CPU ratio $cratio"
  case "$db" in
    mariadb) sqlq mariadb "DROP DATABASE IF EXISTS sbtest";;
    postgresql) sqlq postgresql "DROP DATABASE IF EXISTS sbtest";;
  esac
done

{
  echo "sysbench oltp_write_only, $THREADS threads, ${TIME}s per run, $ROUNDS rounds alternating order, $TABLES tables x $TABLE_SIZE rows; $(nproc) cores; $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "| database | TPS without (runs) | TPS with (runs) | median without | median with | with / without | overhead | CPU µs/tx without | CPU µs/tx with | CPU ratio |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$ROWS"
  if $SERVED; then
    echo
    echo "With the server running and one client mirroring every table (same rounds, each warmed ${SERVED_WARMUP}s first; CPU includes the Tablecast server's and client's):"
    echo
    echo "| database | server jar | TPS served (runs) | median without | median served | served / without | overhead | CPU µs/tx without | CPU µs/tx served | CPU ratio |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s' "$SROWS"
  fi
} | tee "$OUT"
rm -rf "$WORK"
