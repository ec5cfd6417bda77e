# Shared by the bench scripts that run the server and clients as processes of their own
# (bulk-transaction-memory.sh, big-table.sh); sourced after they parse MYSQL_PORT and PG_PORT.
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
