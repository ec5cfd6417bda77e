#!/usr/bin/env python3
"""Where a PostgreSQL capture variant's CPU goes, per sysbench transaction (issue 14).

capture-cpu.py says how much CPU a variant costs; this says where, under the load figure 6
measures (sysbench oltp_write_only, several writers, each transaction committed). For each variant
(those of pg-capture-variants.sh, which prints their SQL) it installs the variant on the sbtest
tables, runs sysbench, and samples every CPU with `perf record --call-graph dwarf` in the middle of
the run. Each sample of a PostgreSQL process is then counted once for every function on its stack,
so a function's figure is its inclusive CPU; divided by the transactions sysbench committed in the
sampled window it gives microseconds per transaction. Functions of the capture's path by default
(`--functions` to choose others): the trigger calls (AfterTriggerEndQuery), the outbox INSERT they
run (SPI_execute_plan_with_paramlist), its heap insert and the outbox's extension by a page
(RelationGetBufferForTuple, smgrextend), its index entries, executor start and end, the JSON
building, the sequence, the commit and its WAL flush.

Debian's PostgreSQL binaries have no frame pointers: without DWARF call graphs most stacks stop at
the first frame. Symbols come from the binaries' dynamic symbol tables (no debug package needed).

Usage: bench/sysbench/pg-trigger-profile.py [--variants "none whole key"] [--time 20]
         [--threads 2] [--tables 4] [--table-size 10000] [--rounds 1] [--functions "f1 f2 ..."]
Runs against the benchmark's PostgreSQL (bench/scripts/start-dbs.sh, port 5433) in a database
sbtest of its own, dropped at the end. Needs sysbench, perf (`apt-get install -y sysbench
linux-perf`) and root (perf samples every process).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VARIANTS_SH = os.path.join(HERE, "pg-capture-variants.sh")
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
PORT = os.environ.get("TC_BENCH_PG_PORT", "5433")
FREQUENCY = 199  # samples per second and CPU: DWARF stacks are large, 199 keeps a run's file small
FUNCTIONS = (
    "PostgresMain AfterTriggerEndQuery SPI_execute_plan_with_paramlist heap_insert "
    "RelationGetBufferForTuple smgrextend ExecInsertIndexTuples _bt_doinsert "
    "standard_ExecutorStart standard_ExecutorEnd to_jsonb jsonb_build_object nextval_internal "
    "GetCachedPlan CommitTransactionCommand XLogFlush"
)


def die(message):
    sys.exit("pg-trigger-profile: ERROR: " + message)


def say(message):
    print("[pg-trigger-profile] " + message, file=sys.stderr, flush=True)


def psql(sql, db="sbtest"):
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    subprocess.run(
        [os.path.join(PG_BIN, "psql"), "-h", "127.0.0.1", "-p", PORT, "-U", "postgres", "-d", db,
         "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql],
        check=True, env=env, stdout=subprocess.DEVNULL)


def variant_sql(args, *option):
    return subprocess.run(["bash", VARIANTS_SH, *option, "--tables", str(args.tables)],
                          check=True, capture_output=True, text=True).stdout


def sysbench(args, command, seconds=None):
    cmd = ["sysbench", "oltp_write_only", "--db-driver=pgsql", "--pgsql-host=127.0.0.1",
           "--pgsql-port=" + PORT, "--pgsql-user=postgres", "--pgsql-password=",
           "--pgsql-db=sbtest", "--tables=%d" % args.tables, "--table-size=%d" % args.table_size,
           "--threads=%d" % args.threads, "--report-interval=0", "--rand-type=uniform"]
    if seconds:
        cmd.append("--time=%d" % seconds)
    return subprocess.Popen(cmd + [command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def stacks(data):
    """The stacks of the PostgreSQL processes' samples in a perf file, each a set of symbols."""
    out = subprocess.run(["perf", "script", "-i", data, "--comm", "postgres", "-F", "comm,ip,sym"],
                         capture_output=True, text=True).stdout
    sample = None
    for line in out.splitlines():
        if not line.startswith((" ", "\t")):
            if sample is not None:
                yield sample
            sample = set() if line.strip() else None
            continue
        if sample is not None:
            parts = line.split(None, 1)
            if len(parts) == 2:
                sample.add(parts[1].strip())
    if sample is not None:
        yield sample


def profile(args, variant, work, functions):
    """Installs `variant`, runs sysbench, samples its middle: (TPS, {function: µs per transaction})."""
    psql(variant_sql(args, "--print-uninstall"))
    install = variant_sql(args, "--print-install", variant)
    if install.strip():
        path = os.path.join(work, "install.sql")
        with open(path, "w") as f:
            f.write(install)
        subprocess.run([os.path.join(PG_BIN, "psql"), "-h", "127.0.0.1", "-p", PORT, "-U",
                        "postgres", "-d", "sbtest", "-qAt", "-v", "ON_ERROR_STOP=1", "-f", path],
                       check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, PGOPTIONS="-c client_min_messages=warning"))
    psql("CHECKPOINT")
    data = os.path.join(work, variant + ".perf")
    run = sysbench(args, "run", args.time)
    window = args.time - 4  # the first and last two seconds left out: connecting, ending
    subprocess.run(["sleep", "2"])
    subprocess.run(["perf", "record", "-a", "-F", str(FREQUENCY), "--call-graph", "dwarf,8192",
                    "-o", data, "--", "sleep", str(window)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = run.communicate()[0]
    if run.returncode != 0:
        die("sysbench failed for %s:\n%s" % (variant, log[-2000:]))
    match = re.search(r"transactions:\s*\d+\s*\(([\d.]+) per sec", log)
    if not match:
        die("no TPS in sysbench's output for " + variant)
    tps = float(match.group(1))
    counts = dict.fromkeys(functions, 0)
    for sample in stacks(data):
        for f in functions:
            if f in sample:
                counts[f] += 1
    os.remove(data)
    per_tx = {f: c / FREQUENCY / (tps * window) * 1e6 for f, c in counts.items()}
    return tps, per_tx


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", default="none whole key")
    p.add_argument("--time", type=int, default=20)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--table-size", type=int, default=10000)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--functions", default=FUNCTIONS)
    args = p.parse_args()
    if args.time < 8:
        die("--time must be at least 8 seconds (4 are left out of the sample)")
    for tool in ("sysbench", "perf"):
        if not shutil.which(tool):
            die("%s not found: apt-get install -y sysbench linux-perf" % tool)
    if os.geteuid() != 0:
        die("run as root: perf samples every process, the PostgreSQL backends included")
    subprocess.run([os.path.join(ROOT, "bench/scripts/start-dbs.sh")], check=True,
                   stdout=subprocess.DEVNULL)
    variants = args.variants.split()
    functions = args.functions.split()
    say("preparing sbtest (%d tables x %d rows)" % (args.tables, args.table_size))
    psql("DROP DATABASE IF EXISTS sbtest", "postgres")
    psql("CREATE DATABASE sbtest", "postgres")
    prepare = sysbench(args, "prepare")
    if prepare.wait() != 0:
        die("sysbench prepare failed:\n" + prepare.stdout.read()[-2000:])
    work = tempfile.mkdtemp(prefix="tc-pg-profile.")
    results = {v: [] for v in variants}
    try:
        for r in range(args.rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for v in order:
                tps, per_tx = profile(args, v, work, functions)
                results[v].append((tps, per_tx))
                say("round %d: %s %.0f TPS, %.0f µs of PostgreSQL CPU per transaction"
                    % (r + 1, v, tps, per_tx.get("PostgresMain", 0)))
        psql(variant_sql(args, "--print-uninstall"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        psql("DROP DATABASE IF EXISTS sbtest", "postgres")

    def median(values):
        s = sorted(values)
        n = len(s)
        return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

    print("sysbench oltp_write_only on PostgreSQL, %d threads, %d s per run (%d s sampled at %d Hz),"
          " %d round(s); %d cores, load %s" % (args.threads, args.time, args.time - 4, FREQUENCY,
                                                args.rounds, os.cpu_count(),
                                                " ".join(open("/proc/loadavg").read().split()[:3])))
    print()
    print("| µs per transaction (inclusive) | " + " | ".join(variants) + " |")
    print("|---" * (len(variants) + 1) + "|")
    print("| TPS | " + " | ".join("%.0f" % median([t for t, _ in results[v]]) for v in variants)
          + " |")
    for f in functions:
        print("| `%s` | " % f + " | ".join("%.1f" % median([d[f] for _, d in results[v]])
                                         for v in variants) + " |")


if __name__ == "__main__":
    main()
