package io.tablecast.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * How long this process has run, launcher script, JVM start and configuration included: the figure
 * a user waiting for the port sees, in the server's start line.
 *
 * <p>{@link ProcessHandle.Info#startInstant()} is not that figure on Linux: the JDK adds the
 * process's start, in ticks since boot, to the boot time of {@code /proc/stat}, which is whole
 * seconds, so the instant is early by the boot time's lost fraction, the same for every process of
 * one boot (about 450 ms on the machine where it was found). Both the start and {@code
 * /proc/uptime} count from the boot, so their difference is exact to a tick (10 ms). Where {@code
 * /proc} does not answer, or answers something the JVM's own uptime contradicts, the JVM's uptime
 * is reported instead, and says so.
 */
final class ProcessAge {

  /**
   * Linux's USER_HZ: the unit of {@code /proc/[pid]/stat}'s times, 100 on every architecture we
   * run.
   */
  private static final long TICKS_PER_SECOND = 100;

  private ProcessAge() {}

  /** {@code "1234 ms since the process started"}, or {@code "... since the JVM started"}. */
  static String describe() {
    long jvm = ManagementFactory.getRuntimeMXBean().getUptime();
    OptionalLong process = fromProc();
    // the launcher runs before the JVM, for milliseconds, not for a minute; a tick of slack
    if (process.isPresent()
        && process.getAsLong() >= jvm - 2 * 1000 / TICKS_PER_SECOND
        && process.getAsLong() < jvm + 60_000) {
      return Math.max(process.getAsLong(), jvm) + " ms since the process started";
    }
    return jvm + " ms since the JVM started";
  }

  private static OptionalLong fromProc() {
    try {
      return millis(
          Files.readString(Path.of("/proc/self/stat")), Files.readString(Path.of("/proc/uptime")));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /**
   * The age in ms from the texts of {@code /proc/self/stat} (its 22nd field: the start, in ticks
   * since boot) and {@code /proc/uptime} (seconds since boot, first field); empty when either does
   * not read so.
   */
  static OptionalLong millis(String stat, String uptime) {
    int afterName = stat.lastIndexOf(')'); // the command's name may hold spaces and parentheses
    String[] uptimeFields = uptime.trim().split("\\s+", -1);
    if (afterName < 0 || uptimeFields.length == 0) {
      return OptionalLong.empty();
    }
    String[] fields = stat.substring(afterName + 1).trim().split("\\s+", -1);
    int startTime = 22 - 3; // fields[0] is the 3rd field, the state
    if (fields.length <= startTime) {
      return OptionalLong.empty();
    }
    try {
      long startedTicks = Long.parseLong(fields[startTime]);
      long upMillis = Math.round(Double.parseDouble(uptimeFields[0]) * 1000);
      long age = upMillis - startedTicks * 1000 / TICKS_PER_SECOND;
      return age < 0 ? OptionalLong.empty() : OptionalLong.of(age);
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }
}
