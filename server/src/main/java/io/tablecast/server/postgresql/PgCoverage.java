package io.tablecast.server.postgresql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.postgresql.CaptureCheck.Coverage;
import io.tablecast.server.postgresql.CaptureCheck.Issue;
import io.tablecast.server.postgresql.CaptureCheck.Member;
import io.tablecast.server.postgresql.CaptureCheck.Problem;
import io.tablecast.server.postgresql.CaptureCheck.Role;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL: which relations make up each cached table (the table, and recursively its partitions
 * and inheritance children, through {@code pg_inherits}), which capture triggers sit on them and
 * elsewhere, and what is wrong with them. One query for the tree and its triggers, plus one over
 * the capture triggers outside it; both use catalog indexes only ({@code pg_inherits} by parent,
 * {@code pg_trigger} by relation), except the look at every capture trigger at install and start
 * ({@code anywhere}).
 */
final class PgCoverage {
  /**
   * Parameters: the cached tables' quoted names (text[]), the plain and the pinned function
   * (regprocedure text). Members are found through {@code pg_inherits}; each is then looked up by
   * oid ({@code OFFSET 0} keeps the lookups per member, on the catalogs' oid indexes, instead of
   * hash joins over all of {@code pg_class} and {@code pg_trigger}): measured 0.4 ms for ten plain
   * tables, about 20 µs more per partition or child (docs/CONFIGURATION.md,
   * capture_check_interval).
   */
  private static final String TREE =
      "WITH RECURSIVE"
          + " fns AS (SELECT to_regprocedure(?)::oid AS plain, to_regprocedure(?)::oid AS pinned),"
          + " cached AS (SELECT c.ord, to_regclass(c.quoted)::oid AS relid FROM unnest(?::text[]) WITH ORDINALITY"
          + " AS c(quoted, ord)),"
          + " tree AS (SELECT ord, relid, 0 AS depth FROM cached WHERE relid IS NOT NULL"
          + " UNION ALL SELECT tree.ord, i.inhrelid, tree.depth + 1 FROM tree"
          + " JOIN pg_catalog.pg_inherits i ON i.inhparent = tree.relid),"
          + " members AS (SELECT ord, relid, min(depth) AS depth FROM tree GROUP BY ord, relid)"
          + " SELECT m.ord, m.relid, r.nspname, r.relname, r.relkind, r.relispartition, m.depth,"
          + " t.tgname, t.tgenabled, t.tgparentid <> 0, t.tgargs, t.tgfoid = (SELECT pinned FROM fns), t.tgtype & 32 <> 0,"
          + " CASE WHEN m.depth = 0 AND row_security_active(m.relid) THEN current_user END"
          + " FROM members m"
          + " CROSS JOIN LATERAL (SELECT (SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.oid = c.relnamespace)"
          + " AS nspname, c.relname, c.relkind, c.relispartition FROM pg_catalog.pg_class c WHERE c.oid = m.relid"
          + " OFFSET 0) r"
          + " LEFT JOIN LATERAL (SELECT * FROM pg_catalog.pg_trigger t WHERE t.tgrelid = m.relid"
          + " AND t.tgfoid IN ((SELECT plain FROM fns), (SELECT pinned FROM fns)) OFFSET 0) t ON true"
          + " ORDER BY m.ord, m.depth, m.relid, t.tgname";

  private static final String TRIGGERS =
      "SELECT t.tgrelid, n.nspname, r.relname, t.tgname, t.tgenabled,"
          + " t.tgparentid <> 0, t.tgargs, t.tgfoid = to_regprocedure(?)::oid, t.tgtype & 32 <> 0"
          + " FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class r ON r.oid = t.tgrelid"
          + " JOIN pg_catalog.pg_namespace n ON n.oid = r.relnamespace"
          + " WHERE t.tgfoid IN (to_regprocedure(?)::oid, to_regprocedure(?)::oid)";

  private PgCoverage() {}

  /**
   * A capture trigger found in the catalog.
   *
   * @param owner the cached table it captures for (its first argument), or null for a trigger of an
   *     earlier version, which took no argument
   */
  record Trigger(
      long relation,
      TableId on,
      String name,
      char enabled,
      boolean cloned,
      String owner,
      boolean pinned,
      boolean truncate) {}

  /**
   * The catalog's view: per cached table its members (none when it no longer exists), the capture
   * triggers on each member, the members that are foreign tables, the cached tables whose row-level
   * security applies to this user (by oid, the user's name), and the capture triggers read outside
   * the trees.
   */
  record Snapshot(
      Map<TableId, List<Member>> members,
      Map<Long, List<Trigger>> onMembers,
      Set<Long> foreign,
      Map<Long, String> rowSecured,
      List<Trigger> elsewhere) {}

  /**
   * Reads the catalog.
   *
   * @param elsewhere relations outside the trees whose capture triggers to read too (former
   *     members, to find triggers left on them), or null for every capture trigger anywhere
   */
  static Snapshot read(
      Connection c, String schema, List<TableId> tables, Collection<Long> elsewhere)
      throws SQLException {
    String plain = function(schema, PgTriggers.PLAIN_FUNCTION);
    String pinned = function(schema, PgTriggers.PINNED_FUNCTION);
    Map<TableId, List<Member>> members = new LinkedHashMap<>();
    Map<Long, List<Trigger>> onMembers = new LinkedHashMap<>();
    Set<Long> foreign = new HashSet<>();
    Map<Long, String> rowSecured = new HashMap<>();
    tables.forEach(t -> members.put(t, new ArrayList<>()));
    try (PreparedStatement ps = c.prepareStatement(TREE)) {
      String[] quoted = tables.stream().map(t -> PgIdentifiers.quote(t)).toArray(String[]::new);
      ps.setString(1, plain);
      ps.setString(2, pinned);
      ps.setArray(3, c.createArrayOf("text", quoted));
      try (ResultSet rs = ps.executeQuery()) {
        long group = -1;
        int groupOrd = -1;
        boolean collect = false; // a relation in two trees has its triggers read once
        while (rs.next()) {
          int ord = rs.getInt(1);
          long oid = rs.getLong(2);
          TableId id = new TableId(rs.getString(3), rs.getString(4));
          if (ord != groupOrd || oid != group) {
            Role role =
                rs.getInt(7) == 0 ? Role.TABLE : rs.getBoolean(6) ? Role.PARTITION : Role.CHILD;
            members.get(tables.get(ord - 1)).add(new Member(oid, id, role));
            if (rs.getString(5).charAt(0) == 'f') {
              foreign.add(oid);
            }
            if (rs.getString(14) != null) {
              rowSecured.put(oid, rs.getString(14));
            }
            collect = !onMembers.containsKey(oid);
            onMembers.putIfAbsent(oid, new ArrayList<>());
            groupOrd = ord;
            group = oid;
          }
          if (collect && rs.getString(8) != null) {
            onMembers.get(oid).add(trigger(rs, oid, id, 8));
          }
        }
      }
    }
    List<Trigger> others = new ArrayList<>();
    List<Long> outside =
        elsewhere == null
            ? null
            : elsewhere.stream()
                .filter(oid -> !onMembers.containsKey(oid))
                .toList(); // relations that left
    if (outside == null || !outside.isEmpty()) {
      String sql = TRIGGERS + (outside == null ? "" : " AND t.tgrelid = ANY(?::int8[]::oid[])");
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, pinned);
        ps.setString(2, plain);
        ps.setString(3, pinned);
        if (outside != null) {
          ps.setArray(4, c.createArrayOf("int8", outside.toArray()));
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            long oid = rs.getLong(1);
            if (!onMembers.containsKey(oid)) {
              others.add(trigger(rs, oid, new TableId(rs.getString(2), rs.getString(3)), 4));
            }
          }
        }
      }
    }
    return new Snapshot(members, onMembers, foreign, rowSecured, others);
  }

  /** Columns from {@code first}: name, enabled, clone, args, pinned, truncate. */
  private static Trigger trigger(ResultSet rs, long relation, TableId on, int first)
      throws SQLException {
    byte[] args = rs.getBytes(first + 3);
    String owner = null;
    if (args != null && args.length > 0) {
      int end = 0;
      while (end < args.length && args[end] != 0) {
        end++;
      }
      owner = new String(args, 0, end, StandardCharsets.UTF_8);
    }
    return new Trigger(
        relation,
        on,
        rs.getString(first),
        rs.getString(first + 1).charAt(0),
        rs.getBoolean(first + 2),
        owner,
        rs.getBoolean(first + 4),
        rs.getBoolean(first + 5));
  }

  private static String function(String schema, String name) {
    return PgIdentifiers.quote(schema) + "." + name + "()";
  }

  /**
   * What is wrong, per cached table.
   *
   * @param functions the function each table's row triggers must call ({@link
   *     PgTriggers#PINNED_FUNCTION} or {@link PgTriggers#PLAIN_FUNCTION}), or null to accept either
   *     (the tail's periodic check)
   */
  static CaptureCheck problems(Snapshot s, Map<TableId, String> functions) {
    List<Coverage> out = new ArrayList<>();
    for (Map.Entry<TableId, List<Member>> e : s.members().entrySet()) {
      TableId table = e.getKey();
      List<Problem> problems = new ArrayList<>();
      if (e.getValue().isEmpty()) {
        problems.add(
            new Problem(
                table,
                table,
                null,
                Issue.UNCAPTURABLE,
                "table "
                    + table
                    + " no longer exists "
                    + "(or is not visible to this user, dropped or renamed away): the mirror"
                    + " keeps its last rows, and follows it again once it exists again"));
      }
      for (Member m : e.getValue()) {
        if (s.rowSecured().containsKey(m.oid())) {
          problems.add(
              new Problem(
                  table,
                  m.id(),
                  null,
                  Issue.ROW_SECURITY,
                  PgCatalogQueries.rowSecurityProblem(table, s.rowSecured().get(m.oid()))));
        }
        if (s.foreign().contains(m.oid())) {
          problems.add(
              new Problem(
                  table,
                  m.id(),
                  null,
                  Issue.UNCAPTURABLE,
                  PgCatalogQueries.foreignMemberProblem(table, m)));
          continue;
        }
        List<Trigger> triggers = s.onMembers().getOrDefault(m.oid(), List.of());
        String function = functions == null ? null : functions.get(table);
        check(
            problems,
            table,
            m,
            find(triggers, PgTriggers.rowTrigger(table), table),
            PgTriggers.rowTrigger(table),
            function);
        check(
            problems,
            table,
            m,
            find(triggers, PgTriggers.truncateTrigger(table), table),
            PgTriggers.truncateTrigger(table),
            null);
        for (Trigger t : triggers) {
          if (!t.cloned()
              && ((t.owner() == null && m.role() == Role.TABLE)
                  || (table.qualified().equals(t.owner())
                      && !PgTriggers.isCurrentName(t.name())))) {
            problems.add(
                stray(
                    table,
                    t,
                    "is a capture trigger of an earlier Tablecast version on "
                        + m.id()
                        + " (it would record each change a second time)"));
          }
        }
      }
      for (Trigger t : s.elsewhere()) {
        if (!t.cloned() && table.qualified().equals(t.owner())) {
          problems.add(
              stray(
                  table,
                  t,
                  "captures the rows of "
                      + t.on()
                      + " as rows of "
                      + table
                      + ", but "
                      + t.on()
                      + " is no longer part of "
                      + table
                      + " (detached, or NO INHERIT): its changes would reach the "
                      + "mirrors of "
                      + table));
        }
      }
      out.add(new Coverage(table, e.getValue(), problems));
    }
    return new CaptureCheck(out);
  }

  private static Trigger find(List<Trigger> triggers, String name, TableId table) {
    for (Trigger t : triggers) {
      if (t.name().equals(name) && table.qualified().equals(t.owner())) {
        return t;
      }
    }
    return null;
  }

  private static void check(
      List<Problem> problems, TableId table, Member m, Trigger t, String name, String function) {
    String fix = "; run `tablecast install` (or set install_triggers: true)";
    String always =
        "ALTER TABLE "
            + PgIdentifiers.quote(m.id())
            + " ENABLE ALWAYS TRIGGER "
            + PgIdentifiers.quote(name);
    String what = "capture trigger " + name + " of " + table + " on " + describe(m);
    if (t == null) {
      problems.add(
          new Problem(
              table,
              m.id(),
              name,
              Issue.MISSING,
              "the " + what + " is missing: changes of its rows " + "are not captured" + fix));
    } else if (t.enabled() == 'D') {
      problems.add(
          new Problem(
              table,
              m.id(),
              name,
              Issue.DISABLED,
              "the "
                  + what
                  + " is disabled: changes of its "
                  + "rows are not captured; run "
                  + always
                  + fix.replace("; run", ", or")));
    } else if (t.enabled() != 'A') {
      problems.add(
          new Problem(
              table,
              m.id(),
              name,
              Issue.NOT_ALWAYS,
              "the "
                  + what
                  + " fires only for sessions with "
                  + "session_replication_role = "
                  + (t.enabled() == 'R' ? "replica" : "origin")
                  + " (as ALTER TABLE ... "
                  + "ENABLE TRIGGER and pg_restore --disable-triggers leave it): other writers, such as logical replication "
                  + "subscribers, bypass it; run "
                  + always
                  + fix.replace("; run", ", or")));
    } else if (function != null
        && !t.cloned()
        && !t.truncate()
        && t.pinned() != function.equals(PgTriggers.PINNED_FUNCTION)) {
      problems.add(
          new Problem(
              table,
              m.id(),
              name,
              Issue.MISSING,
              "the "
                  + what
                  + " calls the wrong capture "
                  + "function for the table's column types (was a column's type changed?)"
                  + fix));
    }
  }

  private static Problem stray(TableId table, Trigger t, String why) {
    return new Problem(
        table,
        t.on(),
        t.name(),
        Issue.STRAY,
        "trigger "
            + t.name()
            + " on "
            + t.on()
            + " "
            + why
            + "; run DROP TRIGGER "
            + PgIdentifiers.quote(t.name())
            + " ON "
            + PgIdentifiers.quote(t.on())
            + ", or `tablecast install` (or set install_triggers: true)");
  }

  static String describe(Member m) {
    return switch (m.role()) {
      case TABLE -> "the table itself";
      case PARTITION -> "its partition " + m.id();
      case CHILD -> "its inheritance child " + m.id();
    };
  }
}
