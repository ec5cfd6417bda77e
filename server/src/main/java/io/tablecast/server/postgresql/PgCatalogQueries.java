package io.tablecast.server.postgresql;

import io.tablecast.server.capture.CaptureFinding;
import io.tablecast.server.capture.Catalog;
import io.tablecast.server.capture.CatalogColumn;
import io.tablecast.server.capture.InaccessibleTableException;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.postgresql.CaptureCheck.Member;
import io.tablecast.server.tail.DatabaseInstance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * How a PostgreSQL table is described from {@code pg_catalog}: checked, its columns and kinds, its
 * key.
 */
final class PgCatalogQueries {
  private PgCatalogQueries() {}

  /** A base table, named without what PostgreSQL's dollar quoting of the triggers would break. */
  static void checkTable(Connection c, TableId id) throws SQLException {
    PgIdentifiers.refuseDollarTag("schema", id.schema());
    PgIdentifiers.refuseDollarTag("table", id.name());
    String listed =
        Catalog.single(
            c,
            "SELECT table_type FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
            id);
    Catalog.requireBaseTable(c, id, listed != null ? listed : unlistedKind(c, id));
  }

  /**
   * What {@code information_schema.tables} leaves out under {@code id}'s name, from {@code
   * pg_class}, which every role may read: a relation that is not a table or view (a materialized
   * view, a sequence...), named as {@link Catalog#requireBaseTable} refuses it, or null when there
   * is none.
   *
   * @throws InaccessibleTableException a table or view the user has no privilege on, which {@code
   *     information_schema} hides as if it did not exist
   */
  private static String unlistedKind(Connection c, TableId id) throws SQLException {
    try (PreparedStatement ps =
            Catalog.prepare(
                c,
                "SELECT c.relkind::text, current_user FROM pg_catalog.pg_class c"
                    + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                    + " WHERE n.nspname = ? AND c.relname = ?",
                id);
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return null;
      }
      return switch (rs.getString(1)) {
        case "r", "p", "v", "f" ->
            throw new InaccessibleTableException(
                id,
                rs.getString(2),
                "GRANT SELECT ON " + PgIdentifiers.quote(id) + " TO " + roleName(rs.getString(2)));
        case "m" -> "MATERIALIZED VIEW";
        case "S" -> "SEQUENCE";
        case "i", "I" -> "INDEX";
        case "c" -> "COMPOSITE TYPE";
        default -> "relation of kind " + rs.getString(1);
      };
    }
  }

  /**
   * No partition or child of the table may be a foreign table, and row-level security must not
   * apply to this user's reads of it.
   */
  static List<String> tableProblems(Connection c, TableId id) throws SQLException {
    List<String> problems = new ArrayList<>();
    PgCoverage.Snapshot tree = PgCoverage.read(c, id.schema(), List.of(id), List.of());
    for (Member m : tree.members().get(id)) {
      if (tree.rowSecured().containsKey(m.oid())) {
        problems.add(rowSecurityProblem(id, tree.rowSecured().get(m.oid())));
      }
      if (tree.foreign().contains(m.oid())) {
        problems.add(foreignMemberProblem(id, m));
      }
    }
    return problems;
  }

  /** A member of {@code table} that is a foreign table, and the way out. */
  static String foreignMemberProblem(TableId table, Member member) {
    return "table "
        + table
        + " has "
        + PgCoverage.describe(member)
        + ", a foreign table: its rows change on another server, where no trigger of this database"
        + " fires, so Tablecast cannot capture "
        + table
        + "; detach "
        + member.id()
        + " (ALTER TABLE ... DETACH PARTITION or NO INHERIT) or leave "
        + table
        + " out of cached_tables";
  }

  /**
   * Row-level security of {@code table} applies to {@code user} (PostgreSQL's {@code
   * row_security_active}: enabled on it, the user neither a superuser, nor BYPASSRLS, nor its owner
   * unless FORCE ROW LEVEL SECURITY), and the ways out.
   */
  static String rowSecurityProblem(TableId table, String user) {
    return "table "
        + table
        + " has row-level security, which applies to "
        + user
        + ", the user this configuration connects as: a server's snapshot and reconciliation"
        + " would read only the rows the policies show "
        + user
        + ", while the triggers record every row's change, so mirrors would hold neither the table"
        + " nor the policies' view of it; give the user BYPASSRLS (ALTER ROLE "
        + roleName(user)
        + " BYPASSRLS), serve as the table's owner (without FORCE ROW LEVEL SECURITY), or leave "
        + table
        + " out of cached_tables";
  }

  /**
   * Binds the schemas and the names of {@code tables} as text arrays to parameters 1 and 2 of a
   * catalog query that unnests them ({@code unnest(?::text[], ?::text[]) AS x(s, t)}).
   */
  static void bindTableNames(Connection c, PreparedStatement ps, List<TableSchema> tables)
      throws SQLException {
    ps.setArray(1, c.createArrayOf("text", tables.stream().map(t -> t.id().schema()).toArray()));
    ps.setArray(2, c.createArrayOf("text", tables.stream().map(t -> t.id().name()).toArray()));
  }

  /** A role's name as a statement names it: quoted unless it is a lower-case identifier. */
  private static String roleName(String user) {
    return user.matches("[a-z_][a-z0-9_]*") ? user : PgIdentifiers.quote(user);
  }

  /** A column as {@code pg_attribute} gives it: its name, type oid and printed type. */
  private record Attribute(String name, long type, String dbType) {}

  /** Every column with the kind of its type ({@link PgTypes}), or why it cannot be captured. */
  static List<CatalogColumn> columns(Connection c, TableId id) throws SQLException {
    PgTypes.Resolver types = new PgTypes.Resolver(c);
    List<Attribute> read = new ArrayList<>();
    List<CatalogColumn> columns = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT a.attname, a.atttypid, a.atttypmod, t.typname, e.typname "
                + "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
                + "LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem AND t.typcategory = 'A' "
                + "WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum")) {
      ps.setString(1, PgIdentifiers.quote(id));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String dbType =
              rs.getString(5) != null
                  ? rs.getString(5) + "[]"
                  : rs.getString(4) + PgTypes.modifier(rs.getString(4), rs.getInt(3));
          read.add(new Attribute(rs.getString(1), rs.getLong(2), dbType));
        }
      }
    }
    types.read(read.stream().map(Attribute::type).toList()); // every column's type at once
    for (Attribute a : read) {
      PgTypes.Form form = types.form(a.type());
      columns.add(
          form.kind() == null
              ? CatalogColumn.unsupported(
                  a.name(), a.dbType(), "which Tablecast cannot capture: it " + form.refusal())
              : CatalogColumn.of(a.name(), a.dbType(), form.kind()));
    }
    return columns;
  }

  /**
   * The primary key or, without one, the unique index on NOT NULL columns with the fewest key
   * columns (then by name), not partial, without expressions, valid; its key columns only (not
   * INCLUDE ones). From {@code pg_catalog}, not {@code information_schema}: the latter hides
   * constraints from a user that only holds SELECT, and the server is meant to run as such a user
   * (docs/SECURITY.md).
   */
  static List<String> primaryKey(Connection c, TableId id) throws SQLException {
    return Catalog.strings(
        c,
        "SELECT a.attname FROM (SELECT i.indrelid, i.indkey, i.indnkeyatts FROM pg_index i "
            + "JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace "
            + "JOIN pg_class ic ON ic.oid = i.indexrelid "
            + "WHERE n.nspname = ? AND t.relname = ? AND (i.indisprimary OR (i.indisunique "
            + "AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL AND NOT EXISTS ("
            + "SELECT 1 FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) "
            + "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum "
            + "WHERE k.ord <= i.indnkeyatts AND NOT a.attnotnull))) "
            + "ORDER BY i.indisprimary DESC, i.indnkeyatts, ic.relname LIMIT 1) i "
            + "JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) ON true "
            + "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
            + "WHERE k.ord <= i.indnkeyatts ORDER BY k.ord",
        id);
  }

  /**
   * {@code pg_class.reltuples} of the table, plus its partitions' for a partitioned table (whose
   * own is 0 or -1); -1 when none was gathered yet (never vacuumed nor analyzed). Inheritance
   * children are not counted: the load's own check sees their rows as they arrive.
   */
  static long estimatedRows(Connection c, TableId id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT sum(reltuples) FILTER (WHERE reltuples >= 0) FROM pg_class WHERE oid IN "
                + "(SELECT ?::regclass UNION SELECT relid FROM pg_partition_tree(?::regclass) "
                + "WHERE isleaf)")) {
      ps.setString(1, PgIdentifiers.quote(id));
      ps.setString(2, PgIdentifiers.quote(id));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return -1;
        }
        double sum = rs.getDouble(1);
        return rs.wasNull() ? -1 : Math.round(sum);
      }
    }
  }

  /**
   * The PostgreSQL server {@code c} reaches: its cluster's system identifier (a physical standby
   * shares it; "PostgreSQL" for a user not allowed to read it) and when its postmaster started (a
   * promoted standby started apart; a restart starts anew), and when it last recovered from a crash
   * without a restart: a backend that crashes (the OOM killer's) has the postmaster end every
   * session and recover, keeping its start time, emptying unlogged tables and losing commits made
   * with {@code synchronous_commit = off}. Recovery from a crash resets the shared statistics
   * (PostgreSQL 15 was run: {@code DatabaseFailoverTest}), a restart keeps them, so their reset
   * time tells; {@code pg_stat_archiver}'s, which monitoring resets least often (a manual reset
   * only costs a needless re-read).
   */
  static DatabaseInstance instance(Connection c) throws SQLException {
    Instant started;
    Instant recovered;
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT pg_postmaster_start_time(), " + PgOutboxQueries.RECOVERED)) {
      rs.next();
      started = rs.getObject(1, OffsetDateTime.class).toInstant();
      OffsetDateTime reset = rs.getObject(2, OffsetDateTime.class);
      recovered = reset == null ? null : reset.toInstant();
    }
    String name = "PostgreSQL";
    if (c.getAutoCommit()) { // a failed statement would end a transaction
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT system_identifier FROM pg_control_system()")) {
        rs.next();
        name = "PostgreSQL cluster " + rs.getLong(1);
      } catch (SQLException e) {
        if (!"42501".equals(e.getSQLState())) {
          throw e;
        } // not granted to this user (it is public by default): the start time tells alone
      }
    }
    return new DatabaseInstance(name, started, Duration.ZERO, recovered);
  }

  /**
   * An error when {@code c} reaches a standby in recovery: it replays the primary's WAL, which
   * fires no trigger, and takes no writes of its own (no triggers, no outbox, no pruning).
   */
  static List<CaptureFinding> standbyFindings(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT pg_is_in_recovery(), (SELECT sender_host || ':' || sender_port "
                    + "FROM pg_stat_wal_receiver)")) {
      rs.next();
      if (!rs.getBoolean(1)) {
        return List.of();
      }
      String primary = rs.getString(2);
      return List.of(
          CaptureFinding.error(
              "source",
              "this database is a standby in recovery"
                  + (primary == null ? "" : " of " + primary)
                  + ": it replays the primary's changes, which fire no trigger, and takes no "
                  + "writes of its own. Point source.jdbc_url at the primary"));
    }
  }
}
