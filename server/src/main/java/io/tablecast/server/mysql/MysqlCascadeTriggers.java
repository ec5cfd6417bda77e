package io.tablecast.server.mysql;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.capture.Identifiers;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.mysql.CascadePaths.Event;
import io.tablecast.server.mysql.CascadePaths.Path;
import io.tablecast.server.mysql.CascadePaths.Step;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * MySQL/MariaDB: the key-recording triggers of the parents whose foreign-key actions change cached
 * tables (template {@code sql/triggers/mysql/cascade_trigger.sql}). InnoDB performs those actions
 * inside the parent's row change and fires no trigger of the children, so each parent gets up to
 * three triggers for each cached table its actions reach, that write the keys of the rows a change
 * reaches, along every {@link CascadePaths.Path} to that table, into the outbox; the tail re-reads
 * those rows by key as for any captured change (a key whose row is gone becomes a delete).
 *
 * <p>One table per trigger, as a table's own triggers: servers with different {@code cached_tables}
 * then want the same trigger for a table both cache and their own for the rest, so neither takes
 * the other's for a stale version of its own ({@link MysqlInstallScript}; they used to share one
 * trigger per parent and event, whose body differed with the set of cached tables, and each
 * server's install dropped the other's: {@code SeveralConfigurationsTest}). It costs a parent
 * change one more guard (an index probe) for each further cached table under the same foreign key.
 *
 * <p>When each fires, checked on MariaDB 10.11 ({@code MysqlCascadeCaptureTest}): a parent's BEFORE
 * DELETE trigger still sees the children and grandchildren the delete will cascade to (its AFTER
 * DELETE trigger sees none), a BEFORE UPDATE trigger sees the children with their old values, and
 * an AFTER UPDATE trigger sees them already updated. Hence:
 *
 * <ul>
 *   <li>{@code _cd}, BEFORE DELETE: every path of a delete; the rows are found by the parent's
 *       {@code OLD} values and keep their keys (deleted, or set to NULL, which no key column
 *       allows).
 *   <li>{@code _cu}, AFTER UPDATE: the paths of ON UPDATE CASCADE that carry the parent's new
 *       values; the rows are found by {@code NEW} values, which no later BEFORE trigger can still
 *       change. When the cascaded columns are part of the child's key, its old key is computed by
 *       putting the parent's {@code OLD} values back in, level by level, and both keys are
 *       recorded: the old one leaves the mirror, the new one arrives.
 *   <li>{@code _cn}, BEFORE UPDATE: the paths that set NULL somewhere; those rows can be found only
 *       before the change, by the old values, and keep their keys.
 * </ul>
 *
 * Cheap for changes that cascade nowhere: per first foreign key an {@code IF} checks that a
 * referenced column changed (updates) and that a child row exists (one index probe), so an update
 * of other columns, or the delete of a parent without children, neither optimizes nor runs the
 * INSERT's joins (docs/BENCHMARKS.md has the measurement). A self-referencing ON DELETE CASCADE (a
 * subtree) is a {@code WITH RECURSIVE} closure ({@code UNION}, so cyclic data ends).
 */
final class MysqlCascadeTriggers {

  /**
   * A parent's key-recording trigger and what it serves.
   *
   * @param trigger the trigger (its table is the parent)
   * @param serves per cached table it records changes of, the foreign keys along its paths
   */
  record CascadeTrigger(MysqlTriggers.Trigger trigger, Map<TableId, List<String>> serves) {}

  private MysqlCascadeTriggers() {}

  /**
   * The triggers of every parent in {@code paths}.
   *
   * @param cached the cached tables by id (the targets' key columns and types)
   */
  static List<CascadeTrigger> triggers(
      CascadePaths paths, Map<TableId, TableSchema> cached, String outbox) {
    List<CascadeTrigger> out = new ArrayList<>();
    for (TableId root : paths.roots()) {
      List<Path> deletes = paths.from(root, Event.DELETE);
      List<Path> beforeUpdate = new ArrayList<>();
      List<Path> afterUpdate = new ArrayList<>();
      for (Path p : paths.from(root, Event.UPDATE)) {
        (p.foundAfter() ? afterUpdate : beforeUpdate).add(p);
      }
      for (TableId target : targets(deletes, beforeUpdate, afterUpdate)) {
        add(out, root, "cd", "BEFORE", "DELETE", to(target, deletes), cached, outbox);
        add(out, root, "cn", "BEFORE", "UPDATE", to(target, beforeUpdate), cached, outbox);
        add(out, root, "cu", "AFTER", "UPDATE", to(target, afterUpdate), cached, outbox);
      }
    }
    return out;
  }

  /** The cached tables {@code paths} reach, in the order they first appear. */
  @SafeVarargs
  private static Set<TableId> targets(List<Path>... paths) {
    Set<TableId> out = new LinkedHashSet<>();
    for (List<Path> list : paths) {
      list.forEach(p -> out.add(p.target()));
    }
    return out;
  }

  private static List<Path> to(TableId target, List<Path> paths) {
    return paths.stream().filter(p -> p.target().equals(target)).toList();
  }

  /** Whether a trigger's name is that of a parent's key-recording trigger. */
  static boolean isKeyRecording(String triggerName) {
    return triggerName.matches(".*_c[dnu]_[0-9a-f]{8}");
  }

  /** One trigger of {@code root}: the paths of one event to one cached table. */
  private static void add(
      List<CascadeTrigger> out,
      TableId root,
      String suffix,
      String timing,
      String event,
      List<Path> paths,
      Map<TableId, TableSchema> cached,
      String outbox) {
    if (paths.isEmpty()) {
      return;
    }
    Map<ForeignKey, List<Path>> byFirstKey = new LinkedHashMap<>();
    paths.forEach(
        p -> byFirstKey.computeIfAbsent(p.steps().get(0).via(), k -> new ArrayList<>()).add(p));
    StringJoiner body = new StringJoiner("\n");
    Map<TableId, List<String>> serves = new LinkedHashMap<>();
    int n = 0;
    for (Map.Entry<ForeignKey, List<Path>> group : byFirstKey.entrySet()) {
      List<String> ctes = new ArrayList<>();
      StringJoiner selects = new StringJoiner("\n    UNION ALL\n    ");
      for (Path p : group.getValue()) {
        selects.add(new PathSelect(p, cached.get(p.target()), "t" + n++, ctes).sql());
        serves.computeIfAbsent(p.target(), t -> new ArrayList<>()).addAll(p.constraints());
      }
      String insert =
          "INSERT INTO "
              + outbox
              + " (table_name, op, new_key, old_key)\n    "
              + (ctes.isEmpty() ? "" : "WITH RECURSIVE " + String.join(",\n    ", ctes) + "\n    ")
              + selects
              + ";";
      body.add(guarded(group.getKey(), event, timing, insert));
    }
    serves.replaceAll((t, names) -> List.copyOf(new LinkedHashSet<>(names)));
    Map<String, String> values =
        Map.of(
            "timing",
            timing,
            "event",
            event,
            "table",
            MysqlIdentifiers.quote(root),
            "body",
            body.toString());
    out.add(
        new CascadeTrigger(
            MysqlTriggers.render(root, suffix, "mysql/cascade_trigger.sql", values), serves));
  }

  /**
   * {@code insert} under the conditions that let a change that cascades nowhere skip it: on update,
   * one of the referenced columns changed; and the first foreign key has a child row at all (one
   * index probe). Without them every parent change would optimize the INSERT's joins.
   */
  private static String guarded(ForeignKey first, String event, String timing, String insert) {
    String row = timing.equals("AFTER") ? "NEW." : "OLD.";
    StringJoiner children =
        new StringJoiner(
            " AND ",
            "EXISTS (SELECT 1 FROM " + MysqlIdentifiers.quote(first.child()) + " c WHERE ",
            ")");
    for (int k = 0; k < first.childColumns().size(); k++) {
      children.add(
          "c." + q(first.childColumns().get(k)) + " = " + row + q(first.parentColumns().get(k)));
    }
    String exists = "  IF " + children + " THEN\n    " + insert + "\n  END IF;";
    if (!event.equals("UPDATE")) {
      return exists;
    }
    // compared as bytes: InnoDB cascades a change the column's collation calls equal ('abc' ->
    // 'ABC' under a case-insensitive collation), and its children's keys change with it
    StringJoiner changed = new StringJoiner(" OR ");
    for (String col : first.parentColumns()) {
      changed.add(
          "NOT (CAST(OLD." + q(col) + " AS BINARY) <=> CAST(NEW." + q(col) + " AS BINARY))");
    }
    return "  IF "
        + changed
        + " THEN\n"
        + exists.replace("\n", "\n  ").replaceFirst("^", "  ")
        + "\n  END IF;";
  }

  /**
   * The SELECT of one path: the target's keys, found by joining the path's tables from the parent's
   * row, with recursive CTEs for closures (deletes only). In an AFTER UPDATE trigger the target's
   * old key is rebuilt from the parent's OLD values the path's actions copied in.
   */
  private static final class PathSelect {
    private final Path path;
    private final TableSchema target;
    private final String prefix;
    private final List<String> ctes;
    private final boolean after;

    /** Per node (0 = the parent's row), how its columns are read. */
    private final List<Node> nodes = new ArrayList<>();

    private String from = "";
    private final List<String> where = new ArrayList<>();

    /**
     * A table of the path as the SELECT sees it: a plain alias, or a CTE with positional columns.
     */
    private record Node(String alias, Step step, List<String> cteColumns) {}

    PathSelect(Path path, TableSchema target, String prefix, List<String> ctes) {
      this.path = path;
      this.target = target;
      this.prefix = prefix;
      this.ctes = ctes;
      this.after = path.foundAfter();
    }

    String sql() {
      nodes.add(new Node(null, null, null));
      List<Step> steps = path.steps();
      for (int i = 0; i < steps.size(); i++) {
        Step s = steps.get(i);
        String alias = prefix + "_" + (i + 1);
        String join = join(s.via(), alias, i);
        if (s.loops().isEmpty()) {
          from +=
              from.isEmpty()
                  ? "FROM " + table(s) + " " + alias
                  : " JOIN " + table(s) + " " + alias + " ON " + join;
          if (nodes.size() == 1) {
            where.add(join);
          }
          nodes.add(new Node(alias, s, null));
        } else {
          closure(s, alias, join, needed(i + 1));
        }
      }
      ColumnsOf last = new ColumnsOf(nodes.size() - 1);
      List<ColumnInfo> key = MysqlTriggers.keyColumns(target);
      Step end = path.last();
      String op = end.change().deleted() ? "'D'" : "'U'";
      String current = MysqlTriggers.jsonObject(key, c -> last.current(c.name()));
      boolean rekeys =
          after && key.stream().anyMatch(c -> end.change().columns().contains(c.name()));
      String newKey = end.change().deleted() ? "NULL" : current;
      String oldKey =
          end.change().deleted()
              ? current
              : rekeys ? MysqlTriggers.jsonObject(key, c -> last.old(c.name())) : "NULL";
      return "SELECT "
          + Identifiers.literal(target.id().qualified())
          + ", "
          + op
          + ", "
          + newKey
          + ", "
          + oldKey
          + " "
          + from
          + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where));
    }

    /**
     * Node {@code i}'s rows, a recursive CTE (a subtree deleted by a self-referencing key: only in
     * BEFORE DELETE triggers), replace everything joined so far.
     */
    private void closure(Step s, String alias, String join, List<String> needed) {
      if (after) {
        throw new IllegalStateException(
            "no closure in an AFTER UPDATE path: InnoDB refuses self-referencing "
                + "cascaded updates ("
                + s.via().name()
                + ")");
      }
      String cte = alias + "_r";
      StringJoiner names = new StringJoiner(", ", "(", ")");
      StringJoiner first = new StringJoiner(", ", "SELECT ", "");
      for (int c = 0; c < needed.size(); c++) {
        names.add("c" + c);
        first.add(alias + "." + q(needed.get(c)));
      }
      List<String> baseWhere = new ArrayList<>(where);
      String baseFrom;
      if (from.isEmpty()) {
        baseFrom = "FROM " + table(s) + " " + alias;
        baseWhere.add(join);
      } else {
        baseFrom = from + " JOIN " + table(s) + " " + alias + " ON " + join;
      }
      StringJoiner parts = new StringJoiner(" UNION ");
      parts.add(
          first
              + " "
              + baseFrom
              + (baseWhere.isEmpty() ? "" : " WHERE " + String.join(" AND ", baseWhere)));
      for (ForeignKey loop : s.loops()) {
        StringJoiner next = new StringJoiner(", ", "SELECT ", "");
        needed.forEach(col -> next.add("m." + q(col)));
        StringJoiner on = new StringJoiner(" AND ");
        for (int k = 0; k < loop.childColumns().size(); k++) {
          on.add(
              "m."
                  + q(loop.childColumns().get(k))
                  + " = "
                  + cte
                  + ".c"
                  + needed.indexOf(loop.parentColumns().get(k)));
        }
        parts.add(next + " FROM " + table(s) + " m JOIN " + cte + " ON " + on);
      }
      ctes.add(cte + " " + names + " AS (" + parts + ")");
      nodes.add(new Node(alias, s, needed));
      from = "FROM " + cte + " " + alias;
      where.clear();
    }

    /** {@code alias.F = previous.R}, column by column, for the step into node {@code i + 1}. */
    private String join(ForeignKey fk, String alias, int i) {
      ColumnsOf previous = new ColumnsOf(i);
      StringJoiner on = new StringJoiner(" AND ");
      for (int k = 0; k < fk.childColumns().size(); k++) {
        on.add(
            alias
                + "."
                + q(fk.childColumns().get(k))
                + " = "
                + previous.current(fk.parentColumns().get(k)));
      }
      return on.toString();
    }

    /**
     * The columns of node {@code i} a closure must carry: the next join's, its loops', the target's
     * key.
     */
    private List<String> needed(int i) {
      Set<String> out = new LinkedHashSet<>();
      List<Step> steps = path.steps();
      Step s = steps.get(i - 1);
      if (i < steps.size()) {
        out.addAll(steps.get(i).via().parentColumns());
      } else {
        out.addAll(target.primaryKey());
      }
      s.loops().forEach(l -> out.addAll(l.parentColumns()));
      return List.copyOf(out);
    }

    private static String table(Step s) {
      return MysqlIdentifiers.quote(s.table());
    }

    /**
     * How the SELECT reads node {@code index}'s columns: now, and (AFTER UPDATE) before the change.
     */
    private final class ColumnsOf {
      private final int index;

      ColumnsOf(int index) {
        this.index = index;
      }

      String current(String column) {
        Node n = nodes.get(index);
        if (index == 0) {
          return (after ? "NEW." : "OLD.") + q(column);
        }
        return n.cteColumns() == null
            ? n.alias() + "." + q(column)
            : n.alias() + ".c" + n.cteColumns().indexOf(column);
      }

      /**
       * The value before the cascade: the parent's OLD value where the path's actions copied it in.
       */
      String old(String column) {
        Node n = nodes.get(index);
        if (index == 0) {
          return "OLD." + q(column);
        }
        int at = n.step().via().childColumns().indexOf(column);
        return at < 0
            ? n.alias() + "." + q(column)
            : new ColumnsOf(index - 1).old(n.step().via().parentColumns().get(at));
      }
    }
  }

  private static String q(String column) {
    return MysqlIdentifiers.quote(column);
  }
}
