#!/usr/bin/env bash
# What the MySQL/MariaDB capture check costs a schema of many cached tables, idle
# (docs/BENCHMARKS.md, "The MySQL capture check on 400 tables").
#
# Creates database tc_many with TABLES small tables, then, for each jar given (alternated, ROUNDS
# times), starts `serve` caching every table (default capture_check_interval, 10 s), waits WARMUP
# seconds, and reads over the next SECONDS seconds the server's and mariadbd's CPU time
# (/proc/PID/stat) and the database's Questions counter; once more per jar with the capture check
# off (capture_check_interval: 0s) as the baseline of what the idle polls cost. Prints one line
# per run.
#
# Usage: bench/scripts/capture-check-cost.sh [--tables 400] [--rounds 2] [--seconds 60] [--warmup 25] OLD.jar NEW.jar
set -euo pipefail
cd "$(dirname "$0")/../.."
TABLES=400; ROUNDS=2; SECONDS_=60; WARMUP=25
while [ $# -gt 0 ]; do
  case "$1" in
    --tables) TABLES=$2; shift 2;; --rounds) ROUNDS=$2; shift 2;;
    --seconds) SECONDS_=$2; shift 2;; --warmup) WARMUP=$2; shift 2;;
    -h|--help) sed -n 2,13p "$0"; exit 0;;
    --*) echo "capture-check-cost: unknown option $1" >&2; exit 2;;
    *) break;;
  esac
done
[ $# -ge 1 ] || { sed -n 2,13p "$0"; exit 2; }
WORK=$(mktemp -d /tmp/tc-check-cost.XXXXXX)
sql() { mariadb -h127.0.0.1 -uroot --protocol=tcp -N "$@"; }
sql -e "DROP DATABASE IF EXISTS tc_many; CREATE DATABASE tc_many"
for i in $(seq 1 "$TABLES"); do
  echo "CREATE TABLE t$i (id INT PRIMARY KEY, code VARCHAR(10), name VARCHAR(40), parent_id INT,"\
       "amount DECIMAL(10,2), updated_at DATETIME(6)); INSERT INTO t$i VALUES (1, 'a', 'x', NULL, 1.5, NOW(6));"
done | sql tc_many
config() { # $1 = capture_check_interval
  printf 'listen: { host: 127.0.0.1, port: 0 }\nsource:\n  jdbc_url: jdbc:mariadb://127.0.0.1:3306/tc_many\n'
  printf '  user: root\n  password: ""\n  install_triggers: true\n  capture_check_interval: %s\ncached_tables:\n' "$1"
  for i in $(seq 1 "$TABLES"); do echo "  - tc_many.t$i"; done
}
config 10s > "$WORK/check.yaml"; config 0s > "$WORK/nocheck.yaml"
questions() { sql -e "SHOW GLOBAL STATUS LIKE 'Questions'" | awk '{print $2}'; }
cpu_ms() { awk '{print ($14 + $15) * 10}' "/proc/$1/stat"; }
measure() { # $1 jar, $2 config, $3 label
  java -jar "$1" serve --config "$2" > "$WORK/$3.log" 2>&1 &
  local pid=$! db; db=$(pgrep -x mariadbd | head -1)
  sleep "$WARMUP"
  local q1 s1 d1 q2 s2 d2
  q1=$(questions); s1=$(cpu_ms "$pid"); d1=$(cpu_ms "$db")
  sleep "$SECONDS_"
  s2=$(cpu_ms "$pid"); d2=$(cpu_ms "$db"); q2=$(questions)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "$3: server CPU $((s2 - s1)) ms, mariadbd CPU $((d2 - d1)) ms, queries $((q2 - q1)) in ${SECONDS_} s"
}
for r in $(seq 1 "$ROUNDS"); do
  for jar in "$@"; do measure "$jar" "$WORK/check.yaml" "$(basename "$jar") round $r"; done
done
for jar in "$@"; do measure "$jar" "$WORK/nocheck.yaml" "$(basename "$jar") check off"; done
