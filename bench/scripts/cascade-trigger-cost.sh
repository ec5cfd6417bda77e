#!/usr/bin/env bash
# Cost of the key-recording triggers Tablecast puts on MySQL/MariaDB parents whose foreign-key
# actions (CASCADE, SET NULL) change cached tables (docs/BENCHMARKS.md, "Foreign-key actions").
#
# Two databases with the same tables (p <- c ON DELETE/UPDATE CASCADE, and a self-referencing
# tree cat ON DELETE CASCADE), all cached and installed with the real CLI; in the second one the
# parents' key-recording triggers (tablecast_*_cd_/_cn_/_cu_) are dropped again, so the two differ
# only by them. Each loop is a stored procedure run in one transaction (so it measures the
# statements, not commits), alternating the two databases, ROUNDS times; prints the median
# microseconds per iteration of each, and the difference.
#
# Usage: bench/scripts/cascade-trigger-cost.sh [--rounds 9] [--port 3306] [--out bench-results/cascade-trigger-cost.md]
# Environment: TABLECAST_JAR (default cli/target/tablecast.jar; build: ./mvnw -q -o -DskipTests package)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=9; PORT=3306; OUT=bench-results/cascade-trigger-cost.md
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2;; --port) PORT=$2; shift 2;; --out) OUT=$2; shift 2;;
    -h|--help) sed -n 2,14p "$0"; exit 0;;
    *) echo "cascade-trigger-cost: unknown option $1" >&2; exit 2;;
  esac
done
JAR=${TABLECAST_JAR:-cli/target/tablecast.jar}
[ -f "$JAR" ] || { echo "cascade-trigger-cost: $JAR not found: ./mvnw -q -o -DskipTests package" >&2; exit 1; }
WORK=$(mktemp -d /tmp/tc-cascade-cost.XXXXXX)
mkdir -p "$(dirname "$OUT")"
sql() { mariadb -h127.0.0.1 -P"$PORT" -uroot --protocol=tcp "$@"; }

for db in tc_cascade_with tc_cascade_without; do
  sql -e "DROP DATABASE IF EXISTS $db; CREATE DATABASE $db"
  sql "$db" <<'EOF'
CREATE TABLE p (id INT PRIMARY KEY, v INT);
CREATE TABLE c (id INT PRIMARY KEY, p_id INT, FOREIGN KEY (p_id) REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE cat (id INT PRIMARY KEY, parent_id INT, FOREIGN KEY (parent_id) REFERENCES cat (id) ON DELETE CASCADE);
INSERT INTO p SELECT seq, 0 FROM seq_1_to_1000;
DELIMITER //
-- an update of a parent's other columns
CREATE PROCEDURE loop_update(n INT) BEGIN DECLARE i INT DEFAULT 0;
  WHILE i < n DO UPDATE p SET v = v + 1 WHERE id = 1 + (i MOD 1000); SET i = i + 1; END WHILE; END//
-- a new parent and its delete: no children
CREATE PROCEDURE loop_delete(n INT) BEGIN DECLARE i INT DEFAULT 0;
  WHILE i < n DO INSERT INTO p VALUES (100000 + i, 0); DELETE FROM p WHERE id = 100000 + i; SET i = i + 1; END WHILE; END//
-- two changes of a parent's key: no children
CREATE PROCEDURE loop_rekey(n INT) BEGIN DECLARE i INT DEFAULT 0;
  WHILE i < n DO UPDATE p SET id = id + 1000000 WHERE id = 1 + (i MOD 1000);
  UPDATE p SET id = id - 1000000 WHERE id = 1000001 + (i MOD 1000); SET i = i + 1; END WHILE; END//
-- a new leaf of the tree and its delete: no subtree
CREATE PROCEDURE loop_tree_leaf(n INT) BEGIN DECLARE i INT DEFAULT 0;
  WHILE i < n DO INSERT INTO cat VALUES (i, NULL); DELETE FROM cat WHERE id = i; SET i = i + 1; END WHILE; END//
-- a parent with one child, deleted: the cascade the trigger records
CREATE PROCEDURE loop_delete_cascading(n INT) BEGIN DECLARE i INT DEFAULT 0;
  WHILE i < n DO INSERT INTO p VALUES (100000 + i, 0); INSERT INTO c VALUES (100000 + i, 100000 + i);
  DELETE FROM p WHERE id = 100000 + i; SET i = i + 1; END WHILE; END//
DELIMITER ;
EOF
  printf 'source:\n  jdbc_url: "jdbc:mariadb://127.0.0.1:%s/%s?user=root"\ncached_tables: [p, c, cat]\n' "$PORT" "$db" \
    >"$WORK/$db.yaml"
  java -jar "$JAR" install --config "$WORK/$db.yaml" >>"$WORK/cli.log" 2>&1 \
    || { tail -20 "$WORK/cli.log" >&2; exit 1; }
done
for t in $(sql -N -e "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'tc_cascade_without' \
    AND TRIGGER_NAME REGEXP '^tablecast_.*_c[dnu]_[0-9a-f]{8}$'"); do
  sql tc_cascade_without -e "DROP TRIGGER $t"
done

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
run() {  # db proc n -> microseconds per iteration
  local s e
  s=$(date +%s%N); sql "$1" -e "SET autocommit = 0; CALL $2($3); COMMIT;"; e=$(date +%s%N)
  awk -v d=$((e - s)) -v n="$3" 'BEGIN {printf "%.2f\n", d / 1000 / n}'
}
ROWS=""
for spec in "loop_update 10000" "loop_delete 5000" "loop_rekey 5000" "loop_tree_leaf 5000" "loop_delete_cascading 3000"; do
  set -- $spec; with=(); without=()
  for r in $(seq 1 "$ROUNDS"); do
    with+=("$(run tc_cascade_with "$1" "$2")"); without+=("$(run tc_cascade_without "$1" "$2")")
  done
  mw=$(printf '%s\n' "${with[@]}" | median); mo=$(printf '%s\n' "${without[@]}" | median)
  ROWS="$ROWS| \`$1\` | $mo | $mw | $(awk -v a="$mw" -v b="$mo" 'BEGIN {printf "%+.2f", a - b}') |"$'\n'
  echo "[cascade-trigger-cost] $1: without ${without[*]} | with ${with[*]}" >&2
done
{
  echo "MariaDB $(sql -N -e 'SELECT VERSION()'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds alternating; $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "| loop (one iteration) | µs without the parents' triggers | µs with them | difference |"
  echo "|---|---|---|---|"
  printf '%s' "$ROWS"
} | tee "$OUT"
sql -e "DROP DATABASE tc_cascade_with; DROP DATABASE tc_cascade_without"
rm -rf "$WORK"
