package io.tablecast.server.mysql;

import io.tablecast.server.capture.Dialect;
import io.tablecast.server.capture.Identifiers;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * MySQL/MariaDB: foreign-key actions change child rows without firing their triggers. This reads
 * the acting foreign keys into the cached tables from the catalog ({@link ForeignKeyGraph}) and
 * gives the parents' key-recording triggers that capture those changes ({@link
 * MysqlCascadeTriggers}), or names the actions that cannot be captured ({@link
 * CascadePaths#problems()}).
 */
final class ForeignKeyCheck {
  private ForeignKeyCheck() {}

  /**
   * The triggers the cached tables need on their parents now, and what cannot be captured.
   *
   * @param problems the actions that cannot be captured, each naming its constraint and the way out
   */
  record Result(
      List<MysqlCascadeTriggers.CascadeTrigger> triggers, List<CaptureStatus.Problem> problems) {
    Result {
      triggers = List.copyOf(triggers);
      problems = List.copyOf(problems);
    }

    /**
     * The triggers.
     *
     * @throws IllegalStateException listing every problem, when there is one
     */
    List<MysqlCascadeTriggers.CascadeTrigger> orRefuse() {
      if (!problems.isEmpty()) {
        throw refusal(problems);
      }
      return triggers;
    }
  }

  /**
   * @param dialect whose identifier rules the foreign keys' names must follow (they go into
   *     triggers)
   */
  static Result check(Dialect dialect, Connection c, List<TableSchema> tables, String outbox)
      throws SQLException {
    Map<TableId, TableSchema> cached = new LinkedHashMap<>();
    tables.forEach(t -> cached.put(t.id(), t));
    ForeignKeyGraph graph = ForeignKeyGraph.load(c, cached.keySet());
    List<CaptureStatus.Problem> problems = new ArrayList<>();
    for (ForeignKey k : graph.keys()) {
      try {
        validate(dialect, k);
      } catch (IllegalArgumentException e) {
        problems.add(
            new CaptureStatus.Problem(
                "foreign key " + k.name() + " cannot be followed: " + e.getMessage(),
                cached.containsKey(k.child()) ? Set.of(k.child()) : Set.of()));
      }
    }
    if (!problems.isEmpty()) {
      return new Result(List.of(), problems);
    }
    CascadePaths paths = CascadePaths.of(graph, cached.keySet());
    problems.addAll(paths.problems());
    return new Result(MysqlCascadeTriggers.triggers(paths, cached, outbox), problems);
  }

  /** The error listing every foreign-key action that cannot be captured. */
  static IllegalStateException refusal(List<CaptureStatus.Problem> problems) {
    StringBuilder sb =
        new StringBuilder(
            "foreign-key actions change cached tables in ways Tablecast cannot capture "
                + "(MySQL/MariaDB fire no triggers for them, so the cache would drift):");
    for (CaptureStatus.Problem p : problems) {
      sb.append("\n  - ").append(p.message());
    }
    return new IllegalStateException(sb.toString());
  }

  /** The names the parents' triggers will quote: refused like the cached tables' own. */
  private static void validate(Dialect dialect, ForeignKey k) {
    for (TableId t : List.of(k.child(), k.parent())) {
      Identifiers.validate(dialect, "schema", t.schema());
      Identifiers.validate(dialect, "table", t.name());
    }
    for (String col : k.childColumns()) {
      Identifiers.validate(dialect, "column of table " + k.child().qualified() + ":", col);
    }
    for (String col : k.parentColumns()) {
      Identifiers.validate(dialect, "column of table " + k.parent().qualified() + ":", col);
    }
  }
}
