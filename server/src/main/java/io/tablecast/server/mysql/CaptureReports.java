package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * What one capture check of {@link MysqlCaptureWatch} found wrong, each problem logged and counted
 * once ({@code tablecast_capture_problems_total}) until it is solved, so that a recurrence is
 * reported again: the cached tables whose capture is incomplete (a trigger missing, a foreign-key
 * action no trigger can capture), with why, and the tables whose writes all fail (a trigger's
 * account gone: {@link TriggerDefiners}). Confined to the watch's checks.
 */
final class CaptureReports {
  private static final Logger LOG = RecentEvents.logger(CaptureReports.class);

  private final ServerMetrics metrics;

  /** Problems already logged and counted. */
  private final Set<String> reported = new HashSet<>();

  CaptureReports(ServerMetrics metrics) {
    this.metrics = metrics;
  }

  /** One check's findings. */
  record Found(Map<TableId, List<String>> incomplete, Set<TableId> writesFail) {}

  /**
   * Reports what {@code status} shows but for the cached tables {@code leftAlone} (being
   * reinstalled); {@code recreates}: whether the server recreates the triggers of a gone account.
   */
  Found report(CaptureStatus status, Set<TableId> leftAlone, boolean recreates) {
    Set<String> current = new HashSet<>();
    Map<TableId, List<String>> incomplete = new LinkedHashMap<>();
    for (RequiredTrigger t : status.missing()) {
      if (leftAlone.contains(t.cachedTable())) {
        continue;
      }
      String key = "trigger " + t.on() + "." + t.name() + " for " + t.cachedTable();
      current.add(key);
      String problem =
          t.recordsCascades()
              ? "trigger "
                  + t.name()
                  + " on "
                  + t.on()
                  + ", which records the rows the actions of foreign key(s) "
                  + String.join(", ", t.foreignKeys())
                  + " change, is missing (a foreign key added or changed, or "
                  + "the trigger dropped); changes made by those actions since are not in the stream"
              : "its trigger "
                  + t.name()
                  + " is missing (dropped, or the table altered); its changes since are not "
                  + "in the stream";
      incomplete.computeIfAbsent(t.cachedTable(), x -> new ArrayList<>()).add(problem);
      if (reported.add(key)) {
        metrics.captureProblem(t.cachedTable().qualified(), "missing_trigger");
        LOG.error("Capture of cached table {} is incomplete: {}", t.cachedTable(), problem);
      }
    }
    for (CaptureStatus.Problem p : status.problems()) {
      current.add(p.message());
      p.tables()
          .forEach(t -> incomplete.computeIfAbsent(t, x -> new ArrayList<>()).add(p.message()));
      if (reported.add(p.message())) {
        p.tables().forEach(t -> metrics.captureProblem(t.qualified(), "not_capturable"));
        LOG.error("Capture of cached table(s) {} is incomplete: {}", p.tables(), p.message());
      }
    }
    Set<TableId> writesFail = new LinkedHashSet<>(); // nothing goes uncaptured: not stale
    for (TriggerDefiners.Gone g : TriggerDefiners.byTable(status)) {
      String key = "definer " + g.on() + " " + g.definer() + " " + g.triggers();
      current.add(key);
      writesFail.add(g.on());
      if (reported.add(key)) {
        g.cachedTables().forEach(t -> metrics.captureProblem(t.qualified(), "definer_gone"));
        LOG.error("{}{}", g.problem(), recreates ? "; the server recreates them now" : "");
      }
    }
    reported.retainAll(current);
    return new Found(incomplete, writesFail);
  }

  /** After an install: what is still wrong is reported again at the next check. */
  void forget() {
    reported.clear();
  }
}
