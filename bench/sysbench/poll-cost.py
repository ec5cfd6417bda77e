#!/usr/bin/env python3
"""What the server tail's poll schedule costs the database, and what it buys (issue 14, figure 7).

For each schedule and database, the benchmark runner's pollcost figure starts a fresh schema, the
Tablecast server (in its JVM) with that schedule and one mirror, then
  1. leaves it idle (--idle-seconds): reads of the outbox per second (the server's
     tablecast_tail_reads_total), the database server's CPU and its statements per second;
  2. runs figure 1's latency measurement at --rate single-row updates/s (commit -> in-JVM mirror
     p50/p99/p99.9), with the same readings over that phase.
The runner prints a #POLLCOST line before and after each phase; this script reads the database
server's CPU at those moments the way capture-cpu.py does (the scheduler's CPU clock of every
task, /proc/PID/task/*/schedstat: every thread of mariadbd; the postmaster and every backend of
PostgreSQL), and its statement counters (MariaDB: Questions; PostgreSQL: transactions committed
and rolled back in pg_stat_database, one per poll). CPU is in % of one core.

Schedules: a number = a fixed pause of that many ms between empty reads (min = max, no idle
spell); backoff = the schedule before issue 14 (1 ms doubling to 10 ms after every empty read);
default = the product's defaults (docs/CONFIGURATION.md).

Usage: bench/sysbench/poll-cost.py [--db mariadb,postgresql] [--schedules 1,2,5,10,backoff,default]
         [--idle-seconds 15] [--rate 100] [--seconds 20] [--warmup 5] [--out bench-results/pollcost]
Needs the runner built (./mvnw -o -q -pl bench -am -DskipTests package), the benchmark's database
instances (bench/scripts/start-dbs.sh: MariaDB 3307, PostgreSQL 5433; started if they do not
answer) and must run on the database's machine (it reads /proc).
"""
import argparse
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
PG_PORT = os.environ.get("TC_BENCH_PG_PORT", "5433")
PG_DIR = os.environ.get("TC_BENCH_PG_DIR", "/tmp/tc-bench-pg")
M_PORT = os.environ.get("TC_BENCH_MARIADB_PORT", "3307")
M_DIR = os.environ.get("TC_BENCH_MARIADB_DIR", "/tmp/tc-bench-mariadb")
MARK = "#POLLCOST"


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def task_cpu_ns(pids):
    """CPU time of every task (thread) of these processes, from the scheduler's clock (ns)."""
    total = 0
    for pid in pids:
        for f in glob.glob(f"/proc/{pid}/task/*/schedstat"):
            try:
                total += int(open(f).read().split()[0])
            except (OSError, ValueError, IndexError):
                pass  # the task ended meanwhile
    return total


class Mariadb:
    label = "MariaDB"

    def __init__(self):
        self.pid = open(os.path.join(M_DIR, "mariadbd.pid")).read().strip()

    def cpu_ns(self):
        return task_cpu_ns([self.pid])

    def statements(self):
        out = run(["mariadb", "-h127.0.0.1", f"-P{M_PORT}", "-uroot", "-N", "-e",
                   "SHOW GLOBAL STATUS LIKE 'Questions'"])
        return int(out.split()[1])


class Postgres:
    label = "PostgreSQL"

    def __init__(self):
        self.postmaster = open(os.path.join(PG_DIR, "postmaster.pid")).readline().strip()

    def pids(self):
        pids = [self.postmaster]
        for stat in glob.glob("/proc/[0-9]*/stat"):
            try:
                text = open(stat).read()
            except OSError:
                continue
            if text[text.rindex(")") + 2:].split()[1] == self.postmaster:  # its parent
                pids.append(stat.split("/")[2])
        return pids

    def cpu_ns(self):
        return task_cpu_ns(self.pids())

    def statements(self):
        out = run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", PG_PORT, "-U", "postgres", "-d",
                   "postgres", "-qAtX", "-c",
                   "SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database"])
        return int(out.strip())


def loadavg():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def measure(db, args):
    """Runs the pollcost figure on one database, reading the database around each phase."""
    target = Mariadb() if db == "mariadb" else Postgres()
    cmd = ["java", "-Xmx2g", "-jar", os.path.join(ROOT, "bench/target/tablecast-bench.jar"),
           "pollcost", "--db", db, "--poll-schedules", args.schedules,
           "--idle-seconds", str(args.idle_seconds), "--rates", str(args.rate),
           "--seconds", str(args.seconds), "--warmup", str(args.warmup),
           "--out", os.path.join(args.out, db)]
    rows = {}
    began = {}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1, env=dict(
        os.environ,
        TABLECAST_BENCH_MYSQL_URL=f"jdbc:mariadb://127.0.0.1:{M_PORT}/bench?user=root&password=",
        TABLECAST_BENCH_PG_URL=f"jdbc:postgresql://127.0.0.1:{PG_PORT}/bench?user=postgres"))
    for raw in proc.stdout:
        for line in raw.split("\r"):
            if MARK not in line:
                continue
            words = line[line.index(MARK):].split()
            what, schedule = words[1], words[3]
            row = rows.setdefault(schedule, {})
            if what.endswith("-begin"):
                began[what[:-6]] = (target.cpu_ns(), target.statements(), time.monotonic_ns())
            elif what.endswith("-end"):
                phase = what[:-4]
                cpu0, st0, t0 = began.pop(phase)
                cpu1, st1, t1 = target.cpu_ns(), target.statements(), time.monotonic_ns()
                row[phase + "_cpu"] = (cpu1 - cpu0) / (t1 - t0) * 100  # % of one core
                row[phase + "_stmts"] = (st1 - st0 - 1) / ((t1 - t0) / 1e9)
            elif what == "result":
                kv = words[4:]
                row.update({kv[i]: float(kv[i + 1]) for i in range(0, len(kv) - 1, 2)})
                print(f"poll-cost: {target.label} {schedule}: {row}", file=sys.stderr, flush=True)
    if proc.wait() != 0:
        sys.exit(f"poll-cost: the runner failed on {db} (exit {proc.returncode})")
    return target.label, rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--db", default="mariadb,postgresql")
    p.add_argument("--schedules", default="1,2,5,10,backoff,default")
    p.add_argument("--idle-seconds", type=int, default=15)
    p.add_argument("--rate", type=int, default=100)
    p.add_argument("--seconds", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--out", default=os.path.join(ROOT, "bench-results", "pollcost"))
    args = p.parse_args()
    subprocess.run([os.path.join(ROOT, "bench", "scripts", "start-dbs.sh")], check=True,
                   stdout=subprocess.DEVNULL)
    start_load = loadavg()
    tables = []
    for db in args.db.split(","):
        tables.append(measure(db.strip(), args))
    print(f"\nLoad average at the start: {start_load}; at the end: {loadavg()}; "
          f"{os.cpu_count()} cores. Idle {args.idle_seconds} s, then {args.rate} changes/s for "
          f"{args.warmup} + {args.seconds} s per schedule.\n")
    print("| database | schedule | idle: reads/s | idle: DB CPU % of a core | idle: DB statements/s "
          f"| {args.rate}/s: reads/s | {args.rate}/s: DB CPU % | p50 ms | p99 ms | p99.9 ms "
          "| achieved/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, rows in tables:
        for schedule, r in rows.items():
            print(f"| {label} | {schedule} | {r.get('idle_reads_per_s', 0):,.0f} "
                  f"| {r.get('idle_cpu', 0):.1f} | {r.get('idle_stmts', 0):,.0f} "
                  f"| {r.get('busy_reads_per_s', 0):,.0f} | {r.get('busy_cpu', 0):.1f} "
                  f"| {r.get('p50', 0):.2f} | {r.get('p99', 0):.2f} | {r.get('p999', 0):.2f} "
                  f"| {r.get('achieved', 0):,.0f} |")


if __name__ == "__main__":
    main()
