package io.tablecast.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The machine description captured into the report, and JVM-level measurements (heap, CPU). */
public final class Machine {
  private Machine() {}

  public static List<List<String>> describe(List<Db> dbs) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        List.of(
            "CPU",
            cpuModel()
                + ", "
                + Runtime.getRuntime().availableProcessors()
                + " cores visible to the JVM"));
    rows.add(List.of("Memory", memTotal()));
    rows.add(
        List.of(
            "OS",
            System.getProperty("os.name")
                + " "
                + System.getProperty("os.version")
                + " ("
                + System.getProperty("os.arch")
                + ")"));
    rows.add(
        List.of(
            "JVM",
            System.getProperty("java.vm.name")
                + " "
                + System.getProperty("java.runtime.version")
                + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1 << 20)
                + " MiB, GC "
                + gcNames()));
    rows.add(List.of("Load average at start", loadAverage()));
    for (Db db : dbs) {
      rows.add(List.of(db.label(), db.version() + "; " + db.describeSource()));
    }
    rows.add(List.of("Tablecast commit", git()));
    return rows;
  }

  static String cpuModel() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (l.startsWith("model name")) {
          return l.substring(l.indexOf(':') + 1).trim();
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return System.getProperty("os.arch");
  }

  static String memTotal() {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (l.startsWith("MemTotal")) {
          long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
          return String.format("%.1f GiB", kb / 1024.0 / 1024.0);
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return "unknown";
  }

  public static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (Exception e) {
      return String.format(
          "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }

  static String gcNames() {
    List<String> n = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n.add(gc.getName());
    }
    return String.join(", ", n);
  }

  static String git() {
    try {
      Process p =
          new ProcessBuilder("git", "rev-parse", "--short", "HEAD")
              .redirectErrorStream(true)
              .start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? s : "unknown";
    } catch (Exception e) {
      return "unknown";
    }
  }

  /** Heap used after full GCs (bytes). */
  public static long heapAfterGc() {
    MemoryMXBean m = ManagementFactory.getMemoryMXBean();
    long prev = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      long used = m.getHeapMemoryUsage().getUsed();
      if (Math.abs(prev - used) < (1 << 20)) {
        return used;
      }
      prev = used;
    }
    return prev;
  }

  public static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** CPU time of this JVM process, ns. */
  public static long processCpuNanos() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean s) {
      return s.getProcessCpuTime();
    }
    return -1;
  }

  /** Busy and total jiffies of the whole machine from /proc/stat ({-1,-1} elsewhere). */
  public static long[] machineJiffies() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+", -1);
      long total = 0;
      for (int i = 1; i < f.length; i++) {
        total += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      return new long[] {total - idle, total};
    } catch (Exception e) {
      return new long[] {-1, -1};
    }
  }
}
