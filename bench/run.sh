#!/usr/bin/env bash
# The benchmark suite in one command (docs/BENCHMARKS.md):
#
#   ./mvnw -q -DskipTests package && bench/run.sh          # every figure, full length, for the record
#   bench/run.sh --quick                                   # short version of every figure
#   bench/run.sh latency --rates 1000 --db mariadb         # some figures; any runner option
#
# Starts the benchmark's own databases (bench/scripts/start-dbs.sh: MariaDB 3307 with the binlog,
# PostgreSQL 5433 with logical decoding; needs root) and stops them again at the end if it started
# them, installs sysbench and nats-server with apt-get when they are missing, then runs the suite
# on both databases, printing progress with an ETA, and writes bench-results/REPORT.md with PNG
# charts.
# Arguments go to the runner (bench/run.sh --help lists them); without figure names it runs "all".
# Environment: BENCH_JAVA_OPTS (default -Xmx6g), BENCH_OUT (default bench-results),
#              BENCH_KEEP_DBS=1 leaves the databases running.
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=bench/target/tablecast-bench.jar
die() { echo "run.sh: ERROR: $*" >&2; exit 1; }
[ -f "$JAR" ] && [ -f cli/target/tablecast.jar ] || die "build first: ./mvnw -q -DskipTests package"
command -v java >/dev/null || die "java not found (Java 17+)"

case "${1:-}" in -h|--help) exec java -jar "$JAR" --help;; esac

if ! command -v sysbench >/dev/null; then
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || die "sysbench not found: install the Debian package sysbench"
  echo "run.sh: installing sysbench (apt-get)"
  apt-get install -y -q sysbench >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q sysbench >/dev/null; } \
    || die "apt-get install sysbench failed"
fi

if ! command -v nats-server >/dev/null && [ ! -x /usr/sbin/nats-server ]; then  # the scaleout figure
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || die "nats-server not found: install the Debian package nats-server"
  echo "run.sh: installing nats-server (apt-get)"
  apt-get install -y -q nats-server >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q nats-server >/dev/null; } \
    || die "apt-get install nats-server failed"
fi

MPORT=${TC_BENCH_MARIADB_PORT:-3307}
PGPORT=${TC_BENCH_PG_PORT:-5433}
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
started_here=0
if ! answers "$MPORT" || ! answers "$PGPORT"; then started_here=1; fi
bench/scripts/start-dbs.sh
if [ "$started_here" = 1 ] && [ "${BENCH_KEEP_DBS:-0}" != 1 ]; then
  trap 'bench/scripts/stop-dbs.sh >/dev/null || true' EXIT
fi
export TABLECAST_BENCH_MYSQL_URL="jdbc:mariadb://127.0.0.1:$MPORT/bench?user=root&password="
export TABLECAST_BENCH_PG_URL="jdbc:postgresql://127.0.0.1:$PGPORT/bench?user=postgres"

args=("$@")
if [ ${#args[@]} = 0 ] || [[ "${args[0]}" == -* ]]; then
  args=(all "${args[@]}")
fi
case " ${args[*]} " in *" --out "*|*" --out="*) ;; *) args+=(--out "${BENCH_OUT:-bench-results}");; esac
# shellcheck disable=SC2086
java ${BENCH_JAVA_OPTS:--Xmx6g} -jar "$JAR" "${args[@]}"
