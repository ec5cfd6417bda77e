package io.tablecast.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of this JVM's threads between two points, grouped by thread-name prefix, plus the whole
 * process and the whole machine (the databases run on the same machine: machine minus JVM is mostly
 * them, plus whatever else runs).
 */
public final class ThreadCpu {
  /** Thread-name prefixes → group label. Order matters: first match wins. */
  public static final Map<String, String> GROUPS = new LinkedHashMap<>();

  static {
    GROUPS.put("tablecast-tail", "server tail loop (tablecast-tail)");
    GROUPS.put("tablecast-hub", "server fan-out hub (tablecast-hub)");
    GROUPS.put("tablecast-snapshot", "server snapshot senders (tablecast-snapshot)");
    GROUPS.put("multiThreadIoEventLoopGroup", "server Netty event loops");
    GROUPS.put("tablecast-client-", "client Netty event loop (tablecast-client-*)");
    GROUPS.put("tablecast-listeners-", "client listener dispatch (tablecast-listeners-*)");
    GROUPS.put("bench-sub", "bench raw subscribers (bench-sub)");
    GROUPS.put("bench-writer", "bench writers (JDBC)");
    GROUPS.put("tablecast-source", "server JDBC pool housekeeping");
    GROUPS.put("debezium", "Debezium engine and connector threads");
    GROUPS.put("blc-", "Debezium binlog client (blc-*)");
    GROUPS.put(
        "pool-", "unnamed executor threads (pool-*: Debezium engine's task and record pools)");
  }

  private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
  private final Map<Long, Long> startCpu = new HashMap<>();
  private final Map<Long, String> names = new HashMap<>();
  private long startWall;
  private long startProcess;
  private long[] startMachine;

  public ThreadCpu() {
    if (mx.isThreadCpuTimeSupported() && !mx.isThreadCpuTimeEnabled()) {
      mx.setThreadCpuTimeEnabled(true);
    }
  }

  public void start() {
    startCpu.clear();
    for (ThreadInfo ti : mx.dumpAllThreads(false, false)) {
      long cpu = mx.getThreadCpuTime(ti.getThreadId());
      if (cpu >= 0) {
        startCpu.put(ti.getThreadId(), cpu);
        names.put(ti.getThreadId(), ti.getThreadName());
      }
    }
    startWall = System.nanoTime();
    startProcess = Machine.processCpuNanos();
    startMachine = Machine.machineJiffies();
  }

  /** What was used since {@link #start()}. */
  public Usage stop() {
    double wall = (System.nanoTime() - startWall) / 1e9;
    Map<String, Double> groups = new LinkedHashMap<>();
    String busiest = "none";
    double busiestCores = 0;
    for (ThreadInfo ti : mx.dumpAllThreads(false, false)) {
      long cpu = mx.getThreadCpuTime(ti.getThreadId());
      if (cpu < 0) {
        continue;
      }
      double used = (cpu - startCpu.getOrDefault(ti.getThreadId(), 0L)) / 1e9 / wall;
      String g = group(ti.getThreadName());
      groups.merge(g, used, Double::sum);
      if (used > busiestCores) {
        busiestCores = used;
        busiest = ti.getThreadName();
      }
    }
    double process = (Machine.processCpuNanos() - startProcess) / 1e9 / wall;
    long[] m = Machine.machineJiffies();
    double machine =
        m[1] > startMachine[1]
            ? (double) (m[0] - startMachine[0])
                / (m[1] - startMachine[1])
                * Runtime.getRuntime().availableProcessors()
            : Double.NaN;
    return new Usage(wall, groups, busiest, busiestCores, process, machine);
  }

  static String group(String threadName) {
    for (Map.Entry<String, String> e : GROUPS.entrySet()) {
      if (threadName.startsWith(e.getKey())) {
        return e.getValue();
      }
    }
    return "other JVM threads (JIT, JDBC, bench main...)";
  }

  /**
   * CPU used, in cores (1.0 = one core busy the whole time).
   *
   * @param groups by thread group; GC threads are not Java threads, they show in {@code process}
   *     only
   * @param machine all processes on the machine (databases included), cores
   */
  public record Usage(
      double seconds,
      Map<String, Double> groups,
      String busiestThread,
      double busiestCores,
      double process,
      double machine) {
    public double group(String prefix) {
      return groups.getOrDefault(GROUPS.getOrDefault(prefix, prefix), 0.0);
    }

    public double serverThreads() {
      return group("tablecast-tail")
          + group("tablecast-hub")
          + group("tablecast-snapshot")
          + group("multiThreadIoEventLoopGroup")
          + group("tablecast-source");
    }

    /** The {@code n} busiest thread groups, e.g. {@code "server tail loop 12%, ..."}. */
    public String top(int n) {
      return String.join(
          ", ",
          groups.entrySet().stream()
              .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
              .limit(n)
              .map(e -> e.getKey() + " " + pct(e.getValue()))
              .toList());
    }

    public List<List<String>> rows() {
      List<List<String>> rows = new ArrayList<>();
      groups.entrySet().stream()
          .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
          .filter(e -> e.getValue() >= 0.005)
          .forEach(e -> rows.add(List.of(e.getKey(), pct(e.getValue()))));
      rows.add(List.of("**whole JVM process** (incl. GC, JIT)", pct(process)));
      rows.add(List.of("**whole machine** (JVM + databases + other builds)", pct(machine)));
      return rows;
    }
  }

  public static String pct(double cores) {
    return Double.isNaN(cores) ? "n/a" : String.format("%.0f%%", cores * 100);
  }
}
