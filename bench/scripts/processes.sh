# Shared by the bench scripts that run the server and clients as processes of their own
# (bulk-transaction-memory.sh, big-table.sh, server-start.sh, start-phases.sh); sourced after they parse MYSQL_PORT and PG_PORT.
# Kills every pid added to PIDS when the script exits.
PIDS=()
cleanup() { for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

my() { mariadb -h127.0.0.1 -P"$MYSQL_PORT" -uroot --protocol=tcp -N "$@"; }
pg() { PGOPTIONS="-c client_min_messages=warning" psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d test -qAt "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mib() { echo $(( $1 / 1048576 )); }

# heap in use after a full GC, in bytes (jcmd GC.run, then GC.heap_info's "used")
heap_after_full_gc() {
  jcmd "$1" GC.run >/dev/null
  jcmd "$1" GC.heap_info | sed -n 's/.*total [0-9]*K, used \([0-9]*\)K.*/\1/p' | head -1 | awk '{print $1 * 1024}'
}

# Creates the benchmark table (bench_rows: id bigint key, version bigint, name varchar(32), price
# decimal(10,2), qty int; with a third argument, also updated_at, a date-time of distinct instants)
# with $2 rows in the schema/database tc_big of database $1 (mariadb or postgresql); sets url (its
# JDBC URL for a server) and size (its bytes in the database). Dropped with drop_big_table.
create_big_table() {
  local db=$1 rows=$2 updated_at=${3:-}
  local cols="id BIGINT NOT NULL PRIMARY KEY, version BIGINT NOT NULL, name VARCHAR(32) NOT NULL, price DECIMAL(10,2) NOT NULL, qty INT NOT NULL"
  local my_at="" pg_at=""
  if [ -n "$updated_at" ]; then
    [ "$db" = mariadb ] && cols="$cols, updated_at DATETIME(6) NOT NULL" || cols="$cols, updated_at TIMESTAMPTZ NOT NULL"
    my_at=", TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq * 1001 MICROSECOND"
    pg_at=", TIMESTAMPTZ '2026-01-01 00:00:00+00' + i * INTERVAL '1001 microseconds'"
  fi
  if [ "$db" = mariadb ]; then
    my -e "DROP DATABASE IF EXISTS tc_big; CREATE DATABASE tc_big"
    my tc_big -e "CREATE TABLE bench_rows ($cols);
      INSERT INTO bench_rows SELECT seq, 0, CONCAT('row-', seq), seq % 1000 + 0.99, seq % 100$my_at FROM seq_1_to_$rows; ANALYZE TABLE bench_rows" >/dev/null
    url="jdbc:mariadb://127.0.0.1:$MYSQL_PORT/tc_big?user=root"
    size=$(my -e "SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = 'tc_big' AND table_name = 'bench_rows'")
  else
    pg -c "DROP SCHEMA IF EXISTS tc_big CASCADE" -c "CREATE SCHEMA tc_big" -c "CREATE TABLE tc_big.bench_rows ($cols)" \
      -c "INSERT INTO tc_big.bench_rows SELECT i, 0, 'row-' || i, i % 1000 + 0.99, i % 100$pg_at FROM generate_series(1, $rows) i" \
      -c "VACUUM ANALYZE tc_big.bench_rows"
    url="jdbc:postgresql://127.0.0.1:$PG_PORT/test?user=postgres"
    size=$(pg -c "SELECT pg_total_relation_size('tc_big.bench_rows')")
  fi
}

drop_big_table() {
  if [ "$1" = mariadb ]; then my -e "DROP DATABASE tc_big"; else pg -c "DROP SCHEMA tc_big CASCADE"; fi
}

# Waits until the server $1 answers 200 on http://127.0.0.1:$2/health, polling every 20 ms; fails
# with the end of log $3 when the process ends first.
await_health() {
  until curl -m 2 -sf "http://127.0.0.1:$2/health" >/dev/null 2>&1; do
    kill -0 "$1" 2>/dev/null || { tail -30 "$3" >&2; return 1; }
    sleep 0.02
  done
}
