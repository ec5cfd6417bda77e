#!/usr/bin/env python3
"""Write system calls and CPU of processes that come and go, e.g. the `tablecast watch` that each
run of figure 1 starts (docs/BENCHMARKS.md, "`tablecast watch`: a batch's lines in one write").

Samples every process whose command line contains PATTERN every INTERVAL seconds (`syscw` of
/proc/PID/io, utime + stime of /proc/PID/stat) until interrupted or --for seconds, then prints,
per process, the write system calls a second and the CPU (% of a core) over the WINDOW seconds
that end END_GAP seconds before its last sample (inside a run's measured part); with --thread,
also the CPU of the threads whose name starts with it (e.g. `tablecast-liste`, the Java client's
listener thread).

  bench/scripts/process-writes.py 'tablecast.jar watch' --for 600 &
  BENCH_KEEP_DBS=1 bench/run.sh latency --db postgresql --rates 3000 --systems watch ...
"""
import argparse
import os
import signal
import time

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("pattern", help="a substring of the processes' command line")
p.add_argument("--interval", type=float, default=0.25)
p.add_argument("--for", dest="duration", type=float, default=None, help="stop after this many seconds")
p.add_argument("--window", type=float, default=12.0)
p.add_argument("--end-gap", type=float, default=2.0)
p.add_argument("--thread", default=None,
               help="also the CPU of the threads whose name (/proc/PID/task/TID/comm, 15 characters) starts so")
args = p.parse_args()
ticks = os.sysconf("SC_CLK_TCK")
me = os.getpid()
samples = {}  # pid -> [(time, cwd, cpu seconds, write calls)]


def matching():
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if args.pattern in cmd:
            yield pid


def sample(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / ticks
        with open(f"/proc/{pid}/io") as f:
            io = dict(line.split(": ") for line in f.read().splitlines())
        cwd = os.readlink(f"/proc/{pid}/cwd")
        threads = thread_cpu(pid) if args.thread else 0.0
    except OSError:
        return
    samples.setdefault(pid, []).append((time.time(), cwd, cpu, int(io["syscw"]), threads))


def thread_cpu(pid):
    total = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if not f.read().startswith(args.thread):
                    continue
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
        except OSError:
            pass
    return total


stop = False


def on_signal(*_):
    global stop
    stop = True


signal.signal(signal.SIGINT, on_signal)
signal.signal(signal.SIGTERM, on_signal)
start = time.time()
while not stop and (args.duration is None or time.time() - start < args.duration):
    for pid in matching():
        sample(pid)
    time.sleep(args.interval)

print("pid  directory  lifetime_s  writes_per_s  cpu_pct_of_a_core" + ("  threads_cpu_pct" if args.thread else ""))
for pid, s in samples.items():
    last = s[-1][0]
    window = [x for x in s if last - args.end_gap - args.window <= x[0] <= last - args.end_gap]
    if len(window) < 2:
        print(pid, s[0][1], f"{last - s[0][0]:.0f}", "(too short)")
        continue
    a, b = window[0], window[-1]
    dt = b[0] - a[0]
    row = [pid, a[1], f"{last - s[0][0]:.0f}", f"{(b[3] - a[3]) / dt:.0f}", f"{100 * (b[2] - a[2]) / dt:.1f}"]
    if args.thread:
        row.append(f"{100 * (b[4] - a[4]) / dt:.1f}")
    print(*row)
