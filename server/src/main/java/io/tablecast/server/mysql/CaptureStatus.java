package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import java.util.List;
import java.util.Set;

/**
 * What the cached tables' capture needs now, read from the catalog ({@link
 * MysqlDialect#captureStatus}): every trigger they need with its presence, and the changes that
 * cannot be captured at all (such as a foreign key added since start whose actions form a cycle
 * through several tables).
 *
 * @param required every trigger the cached tables need, per cached table
 * @param problems the changes that cannot be captured
 */
public record CaptureStatus(List<RequiredTrigger> required, List<Problem> problems) {

  /**
   * A change of cached tables that no trigger can capture.
   *
   * @param message one sentence naming the constraint(s) and the way out
   * @param tables the cached tables it changes (as far as the catalog tells)
   */
  public record Problem(String message, Set<TableId> tables) {
    public Problem {
      tables = Set.copyOf(tables);
    }
  }

  public CaptureStatus {
    required = List.copyOf(required);
    problems = List.copyOf(problems);
  }

  /** The required triggers present but run as an account that no longer exists. */
  public List<RequiredTrigger> definerGone() {
    return required.stream()
        .filter(t -> t.presence() == RequiredTrigger.Presence.DEFINER_GONE)
        .toList();
  }

  /** The required triggers the catalog does not show. */
  public List<RequiredTrigger> missing() {
    return required.stream().filter(t -> t.presence() == RequiredTrigger.Presence.MISSING).toList();
  }
}
