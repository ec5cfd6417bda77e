#!/usr/bin/env python3
"""What one capture variant costs the database server in CPU, per changed row (issue 14).

sysbench TPS on a machine shared with other work swings with the neighbours' load (figure 6 on
2 cores: +-40 % between runs of the same variant), too much to see a 5 % difference. This measures
the CPU time the server itself spends instead: the statements of sysbench oltp_write_only's
transaction (UPDATE of an indexed column, UPDATE of a non-indexed one, DELETE, INSERT), each run
as N single-row statements in one transaction (a PL/pgSQL / MariaDB compound loop, rolled back),
with the CPU clock of the server read before and after (PostgreSQL: the backend's
/proc/PID/schedstat; MariaDB: every thread of mariadbd). Variants run in a shuffled order every
round; the report gives per-row medians (min-max over rounds), the trigger CPU per sysbench
transaction (the four statements, minus the variant "none"), and on PostgreSQL the WAL bytes per
transaction (minus "none").

PostgreSQL variants are those of pg-capture-variants.sh (it prints their SQL). MariaDB variants:
none, current (the shipped triggers: JSON_OBJECT of the key, old key on every UPDATE),
oldkey_changed (old key only when the key changed), nocreated (outbox without created_at),
varchar_key (the key columns VARCHAR(4000) instead of LONGTEXT), array_key (the key as
JSON_ARRAY(NEW.id) instead of JSON_OBJECT('id', NEW.id)), floor (a trigger inserting one int into
an unindexed table).

With --multi-row (PostgreSQL) each kind is one statement over the table's 10,000 rows instead
(UPDATE sbtest1 SET k = k + 1, ...; INSERT ... SELECT of 10,000 rows): what statement triggers save.

With --commit-each (PostgreSQL) the two UPDATE kinds only, each single-row statement committed
on its own (COMMIT inside the DO loop, synchronous_commit off so that flushes do not dominate):
what the capture costs once per transaction, which the long transactions above leave out.

Usage: bench/sysbench/capture-cpu.py --db postgresql|mariadb [--variants "..."] [--rounds 5]
         [--rows 2000] [--multi-row | --commit-each]
Runs against the benchmark's instances (bench/scripts/start-dbs.sh: PostgreSQL 5433, MariaDB
3307) in a database of its own (sbcpu), dropped at the end. Needs Python 3 (standard library) and
must run on the database's machine (it reads /proc).
"""
import argparse
import glob
import os
import random
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
PG_PORT = os.environ.get("TC_BENCH_PG_PORT", "5433")
PG_DIR = os.environ.get("TC_BENCH_PG_DIR", "/tmp/tc-bench-pg")
M_PORT = os.environ.get("TC_BENCH_MARIADB_PORT", "3307")
M_DIR = os.environ.get("TC_BENCH_MARIADB_DIR", "/tmp/tc-bench-mariadb")
DB = "sbcpu"
ENV = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
KINDS = ["upd_k", "upd_c", "del", "ins"]


def run(cmd, stdin=None):
    return subprocess.run(
        cmd, input=stdin, check=True, capture_output=True, text=True, env=ENV
    ).stdout


def psql(db=DB):
    return [f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", PG_PORT, "-U", "postgres", "-d", db,
            "-qAtX", "-v", "ON_ERROR_STOP=1"]


def mariadb(db=DB):
    return ["mariadb", "-h127.0.0.1", f"-P{M_PORT}", "-uroot", "-N"] + ([db] if db else [])


class Postgres:
    def __init__(self, rows, multi_row, commit_each):
        self.rows = 10000 if multi_row else rows
        self.commit_each = commit_each
        run(psql("postgres"), f"DROP DATABASE IF EXISTS {DB};")
        run(psql("postgres"), f"CREATE DATABASE {DB};")
        run(psql(), """CREATE TABLE sbtest1 (id serial PRIMARY KEY, k int NOT NULL DEFAULT 0,
              c char(120) NOT NULL DEFAULT '', pad char(60) NOT NULL DEFAULT '');
            CREATE INDEX k_1 ON sbtest1 (k);
            INSERT INTO sbtest1 (k, c, pad) SELECT (random() * 10000)::int,
              md5(g::text) || md5(g::text) || md5(g::text), md5(g::text) FROM generate_series(1, 10000) g;""")
        run(psql(), "VACUUM ANALYZE sbtest1")
        loop = lambda body: f"DO $d$ BEGIN FOR i IN 1..{rows} LOOP {body} END LOOP; END $d$"
        if multi_row:
            self.stmts = {
                "upd_k": "UPDATE sbtest1 SET k = k + 1",
                "upd_c": "UPDATE sbtest1 SET c = md5(c)",
                "del": "DELETE FROM sbtest1",
                "ins": "INSERT INTO sbtest1 (k, c, pad) SELECT g, md5(g::text), md5(g::text) "
                       "FROM generate_series(1, 10000) g",
            }
            return
        if commit_each:
            self.stmts = {
                "upd_k": loop("UPDATE sbtest1 SET k = k + 1 WHERE id = i; COMMIT;"),
                "upd_c": loop("UPDATE sbtest1 SET c = md5(c) WHERE id = i; COMMIT;"),
            }
            return
        self.stmts = {
            "upd_k": loop("UPDATE sbtest1 SET k = k + 1 WHERE id = i;"),
            "upd_c": loop("UPDATE sbtest1 SET c = md5(c) WHERE id = i;"),
            "del": loop("DELETE FROM sbtest1 WHERE id = i;"),
            "ins": loop("INSERT INTO sbtest1 (id, k, c, pad) VALUES (100000 + i, i, md5(i::text), md5(i::text));"),
        }

    def install(self, variant):
        script = os.path.join(HERE, "pg-capture-variants.sh")
        sql = run([script, "--tables", "1", "--print-uninstall"])
        sql += run([script, "--tables", "1", "--print-install", variant])
        run(psql(), sql)

    def measure(self, variant):
        self.install(variant)
        script = "SELECT pg_backend_pid() AS pid \\gset\n\\setenv PID :pid\n"
        # each statement in a transaction of its own, or all in one rolled back
        begin, end = ("SET synchronous_commit = off; ", ";") if self.commit_each else ("BEGIN; ", "; ROLLBACK;")
        script += begin + self.stmts["upd_k"] + end + "\n"  # warm the function caches
        for name in self.stmts:
            script += (
                "SELECT pg_current_wal_insert_lsn() AS l0 \\gset\n"
                "\\! echo cpu $(cut -d' ' -f1 /proc/$PID/schedstat)\n"
                f"{begin}{self.stmts[name]}{end}\n"
                "\\! echo cpu $(cut -d' ' -f1 /proc/$PID/schedstat)\n"
                "SELECT 'wal', pg_current_wal_insert_lsn() - :'l0'::pg_lsn;\n")
        lines = [l.replace("|", " ").split() for l in run(psql(), script).splitlines() if l.strip()]
        out = {}
        for i, name in enumerate(self.stmts):
            a, b, w = lines[3 * i][1], lines[3 * i + 1][1], lines[3 * i + 2][1]
            out[name] = ((int(b) - int(a)) / self.rows / 1e3, float(w) / self.rows)
        run(psql(), "VACUUM sbtest1")
        return out

    def close(self):
        run(psql("postgres"), f"DROP DATABASE IF EXISTS {DB};")


class Mariadb:
    OUTBOX = """CREATE TABLE tablecast_outbox (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      table_name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      op CHAR(1) CHARACTER SET ascii NOT NULL,
      new_key LONGTEXT CHARACTER SET utf8mb4 NULL, old_key LONGTEXT CHARACTER SET utf8mb4 NULL{created})
      ENGINE=InnoDB;"""

    def __init__(self, rows):
        self.rows = rows
        self.pid = open(os.path.join(M_DIR, "mariadbd.pid")).read().strip()
        run(mariadb(None), f"DROP DATABASE IF EXISTS {DB}; CREATE DATABASE {DB};")
        run(mariadb(), """CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
              k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '',
              KEY k_1 (k)) ENGINE=InnoDB;
            INSERT INTO sbtest1 (k, c, pad) SELECT seq, REPEAT(MD5(seq), 3), MD5(seq) FROM seq_1_to_10000;""")
        loop = lambda body: (f"DELIMITER //\nBEGIN NOT ATOMIC DECLARE i INT DEFAULT 1; START TRANSACTION; "
                             f"WHILE i <= {rows} DO {body} SET i = i + 1; END WHILE; ROLLBACK; END //\n")
        self.stmts = {
            "upd_k": loop("UPDATE sbtest1 SET k = k + 1 WHERE id = i;"),
            "upd_c": loop("UPDATE sbtest1 SET c = MD5(c) WHERE id = i;"),
            "del": loop("DELETE FROM sbtest1 WHERE id = i;"),
            "ins": loop("INSERT INTO sbtest1 (id, k, c, pad) VALUES (100000 + i, i, MD5(i), MD5(i));"),
        }

    def cpu(self):
        total = 0
        for f in glob.glob(f"/proc/{self.pid}/task/*/schedstat"):
            try:
                total += int(open(f).read().split()[0])
            except OSError:
                pass  # a thread that ended
        return total

    def install(self, v):
        run(mariadb(), "DROP TRIGGER IF EXISTS tc_I; DROP TRIGGER IF EXISTS tc_U; DROP TRIGGER IF EXISTS tc_D;"
                       " DROP TABLE IF EXISTS tablecast_outbox; DROP TABLE IF EXISTS tc_floor;")
        if v == "none":
            return
        events = (("INSERT", "I"), ("UPDATE", "U"), ("DELETE", "D"))
        if v == "floor":
            run(mariadb(), "CREATE TABLE tc_floor (v INT) ENGINE=InnoDB;")
            for ev, op in events:
                run(mariadb(), f"CREATE TRIGGER tc_{op} AFTER {ev} ON sbtest1 FOR EACH ROW INSERT INTO tc_floor VALUES (1);")
            return
        if v not in ("current", "oldkey_changed", "nocreated", "varchar_key", "array_key"):
            sys.exit(f"capture-cpu: unknown MariaDB variant {v}")
        created = "" if v == "nocreated" else ", created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
        outbox = self.OUTBOX.format(created=created)
        if v == "varchar_key":
            outbox = outbox.replace("LONGTEXT", "VARCHAR(4000)")
        run(mariadb(), outbox)
        nk, ok = "JSON_OBJECT('id', NEW.id)", "JSON_OBJECT('id', OLD.id)"
        if v == "array_key":
            nk, ok = "JSON_ARRAY(NEW.id)", "JSON_ARRAY(OLD.id)"
        upd_old = f"IF(NEW.id <=> OLD.id, NULL, {ok})" if v == "oldkey_changed" else ok
        for ev, op, new, old in (("INSERT", "I", nk, "NULL"), ("UPDATE", "U", nk, upd_old), ("DELETE", "D", "NULL", ok)):
            run(mariadb(), f"CREATE TRIGGER tc_{op} AFTER {ev} ON sbtest1 FOR EACH ROW INSERT INTO tablecast_outbox"
                           f" (table_name, op, new_key, old_key) VALUES ('{DB}.sbtest1', '{op}', {new}, {old});")

    def measure(self, variant):
        self.install(variant)
        run(mariadb(), self.stmts["upd_k"])  # warm
        out = {}
        for name in KINDS:
            a = self.cpu()
            run(mariadb(), self.stmts[name])
            out[name] = ((self.cpu() - a) / self.rows / 1e3, 0.0)
        return out

    def close(self):
        run(mariadb(None), f"DROP DATABASE IF EXISTS {DB};")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", required=True, choices=["postgresql", "mariadb"])
    p.add_argument("--variants")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--rows", type=int, default=2000)
    p.add_argument("--multi-row", action="store_true")
    p.add_argument("--commit-each", action="store_true")
    a = p.parse_args()
    if (a.multi_row or a.commit_each) and a.db != "postgresql":
        sys.exit("capture-cpu: --multi-row and --commit-each are for PostgreSQL")
    if a.multi_row and a.commit_each:
        sys.exit("capture-cpu: --multi-row or --commit-each, not both")
    pg = a.db == "postgresql"
    variants = (a.variants or (
        "none whole whole_newonly whole_json whole_noidx whole_nopk whole_nocreated whole_unlogged "
        "key_generic rowtext key key_noidx key_text stmt_key floor" if pg
        else "none current oldkey_changed nocreated floor")).split()
    if "none" not in variants:
        sys.exit("capture-cpu: the variants must include none (the baseline)")
    subprocess.run([os.path.join(HERE, "..", "scripts", "start-dbs.sh")], check=True,
                   stdout=subprocess.DEVNULL)
    db = Postgres(a.rows, a.multi_row, a.commit_each) if pg else Mariadb(a.rows)
    kinds = list(db.stmts)
    cpu = {v: {k: [] for k in kinds} for v in variants}
    wal = {v: {k: [] for k in kinds} for v in variants}
    try:
        for r in range(a.rounds):
            order = variants[:]
            random.Random(r).shuffle(order)
            for v in order:
                for k, (c, w) in db.measure(v).items():
                    cpu[v][k].append(c)
                    wal[v][k].append(w)
            print(f"capture-cpu: round {r + 1} of {a.rounds} done", file=sys.stderr)
        db.install("none")
    finally:
        db.close()
    med = lambda xs: statistics.median(xs)
    load = open("/proc/loadavg").read().split()[:3]
    shape = ("one 10,000-row statement" if a.multi_row
             else f"{a.rows} single-row statements, each committed," if a.commit_each
             else f"{a.rows} single-row statements")
    print(f"{a.db}, {shape} per kind and variant, {a.rounds} rounds (shuffled), "
          f"{os.cpu_count()} cores, load {' '.join(load)}")
    print()
    head = " | ".join(f"{k} µs/row" for k in kinds)
    total = "trigger CPU µs per sysbench transaction" if len(kinds) == 4 else "trigger CPU µs, the kinds summed"
    print(f"| variant | {head} | {total} |" + (" WAL bytes per transaction |" if pg else ""))
    print("|---|" + "---|" * (len(kinds) + 1) + ("---|" if pg else ""))
    for v in variants:
        cells = " | ".join(f"{med(cpu[v][k]):.1f} ({min(cpu[v][k]):.1f}-{max(cpu[v][k]):.1f})" for k in kinds)
        extra = sum(med(cpu[v][k]) - med(cpu["none"][k]) for k in kinds)
        w = sum(med(wal[v][k]) - med(wal["none"][k]) for k in kinds)
        print(f"| {v} | {cells} | {extra:.1f} |" + (f" {w:.0f} |" if pg else ""))


if __name__ == "__main__":
    main()
