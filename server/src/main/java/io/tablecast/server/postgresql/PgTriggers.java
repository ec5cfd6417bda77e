package io.tablecast.server.postgresql;

import io.tablecast.server.capture.Identifiers;
import io.tablecast.server.capture.SqlTemplates;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PostgreSQL capture SQL: the outbox, the two capture functions, and the statements that attach
 * the capture of one cached table to one of its relations. Templates: {@code
 * sql/triggers/postgresql/}.
 *
 * <p>Triggers are named per cached table ({@code tablecast_capture_<hash8>} and {@code
 * tablecast_truncate_<hash8>}, the hash of the table's {@code schema.table}) and carry that name as
 * their first argument: a partition's clone of its parent's trigger then never collides with the
 * partition's own trigger when the partition is cached too, and a child of two cached parents
 * carries one trigger for each.
 */
final class PgTriggers {
  /** The dollar-quote tag of the PL/pgSQL in {@code postgresql/*.sql}. */
  static final String DOLLAR_TAG = "$tablecast$";

  /** The function of tables whose values print the same under any writer session settings. */
  static final String PLAIN_FUNCTION = "tablecast_capture";

  /**
   * The function of the others: it runs with the settings the server reads with (docs/TYPES.md).
   */
  static final String PINNED_FUNCTION = "tablecast_capture_pinned";

  /**
   * The output settings of {@link #PINNED_FUNCTION} and of the server's table reads: each makes a
   * value print the same whatever the writer's session set ({@code TimeZone}: timestamptz inside
   * arrays, composites and ranges; {@code DateStyle}: dates in ranges; {@code IntervalStyle};
   * {@code lc_monetary}: money; {@code bytea_output}: bytea inside arrays and composites).
   */
  static final List<String> PINNED_SETTINGS =
      List.of(
          "TimeZone=UTC",
          "DateStyle=ISO, MDY",
          "IntervalStyle=postgres",
          "lc_monetary=C",
          "bytea_output=hex");

  private static final String ROW_PREFIX = SqlTemplates.TRIGGER_PREFIX + "capture_";
  private static final String TRUNCATE_PREFIX = SqlTemplates.TRIGGER_PREFIX + "truncate_";

  private PgTriggers() {}

  /** The outbox and both capture functions. */
  static List<String> outbox(String schema) {
    PgIdentifiers.refuseDollarTag("schema", schema);
    String quoted = PgIdentifiers.quote(schema);
    List<String> out =
        new ArrayList<>(
            SqlTemplates.statements(
                SqlTemplates.render(
                    "postgresql/outbox.sql",
                    Map.of("schema", quoted, "schema_literal", Identifiers.literal(schema)))));
    out.add(function(schema, PLAIN_FUNCTION));
    out.add(function(schema, PINNED_FUNCTION));
    return out;
  }

  private static String function(String schema, String name) {
    StringBuilder settings = new StringBuilder();
    if (name.equals(PINNED_FUNCTION)) {
      for (String s : PINNED_SETTINGS) {
        int eq = s.indexOf('=');
        settings
            .append(" SET ")
            .append(s, 0, eq)
            .append(" = ")
            .append(Identifiers.literal(s.substring(eq + 1)));
      }
    }
    return SqlTemplates.render(
        "postgresql/capture_function.sql",
        Map.of(
            "schema",
            PgIdentifiers.quote(schema),
            "function",
            name,
            "settings",
            settings.toString()));
  }

  /** The body of a capture function as {@code pg_proc.prosrc} holds it. */
  static String functionBody(String schema, String name) {
    String s = function(schema, name);
    int start = s.indexOf(DOLLAR_TAG);
    return s.substring(start + DOLLAR_TAG.length(), s.lastIndexOf(DOLLAR_TAG));
  }

  /**
   * The name of the row trigger capturing {@code table} (on the table and each of its relations).
   */
  static String rowTrigger(TableId table) {
    return ROW_PREFIX + SqlTemplates.hash8(table.qualified());
  }

  /** The name of the TRUNCATE trigger capturing {@code table}. */
  static String truncateTrigger(TableId table) {
    return TRUNCATE_PREFIX + SqlTemplates.hash8(table.qualified());
  }

  /** Whether {@code name} is a capture trigger name of this version. */
  static boolean isCurrentName(String name) {
    return name.matches("tablecast_(capture|truncate)_[0-9a-f]{8}");
  }

  /**
   * The row trigger of {@code table} on {@code relation} (the table itself or an inheritance
   * child).
   */
  static String rowTrigger(String schema, TableId table, TableId relation, String function) {
    return SqlTemplates.render(
        "postgresql/trigger.sql", values(schema, table, relation, rowTrigger(table), function));
  }

  /**
   * The TRUNCATE trigger of {@code table} on {@code relation}: 'T' on the table itself, 'R'
   * elsewhere.
   */
  static String truncateTrigger(String schema, TableId table, TableId relation) {
    Map<String, String> values =
        values(schema, table, relation, truncateTrigger(table), PLAIN_FUNCTION);
    values.put("truncate_literal", table.equals(relation) ? "'T'" : "'R'");
    return SqlTemplates.render("postgresql/truncate_trigger.sql", values);
  }

  /** Enables a partition's clone of the row trigger of {@code table} ALWAYS, unless it is. */
  static String enableCloneAlways(String schema, TableId table, TableId partition) {
    return SqlTemplates.render(
        "postgresql/enable_always.sql",
        values(schema, table, partition, rowTrigger(table), PLAIN_FUNCTION));
  }

  private static Map<String, String> values(
      String schema, TableId table, TableId relation, String trigger, String function) {
    PgIdentifiers.refuseDollarTag("schema", schema);
    for (TableId id : List.of(table, relation)) {
      PgIdentifiers.refuseDollarTag("schema", id.schema());
      PgIdentifiers.refuseDollarTag("table", id.name());
    }
    String quotedRelation = PgIdentifiers.quote(relation);
    String quotedFunction = PgIdentifiers.quote(schema) + "." + function;
    Map<String, String> values = new java.util.HashMap<>();
    values.put("relation", quotedRelation);
    values.put("relation_literal", Identifiers.literal(quotedRelation));
    values.put("trigger", PgIdentifiers.quote(trigger));
    values.put("trigger_literal", Identifiers.literal(trigger));
    values.put("function", quotedFunction);
    values.put("function_literal", Identifiers.literal(quotedFunction + "()"));
    values.put("table_literal", Identifiers.literal(table.qualified()));
    return values;
  }

  /**
   * The capture function each table's row triggers call: pinned when a column's text depends on
   * session settings.
   */
  static Map<TableId, String> functions(Connection c, List<TableSchema> tables)
      throws SQLException {
    Map<TableId, String> out = new LinkedHashMap<>();
    PgTypes.Resolver types = new PgTypes.Resolver(c);
    for (TableSchema t : tables) {
      boolean pinned = false;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT atttypid FROM pg_catalog.pg_attribute "
                  + "WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped")) {
        ps.setString(1, PgIdentifiers.quote(t.id()));
        List<Long> typeOids = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            typeOids.add(rs.getLong(1));
          }
        }
        for (long type : typeOids) {
          pinned |= types.form(type).pinned();
        }
      }
      out.put(t.id(), pinned ? PINNED_FUNCTION : PLAIN_FUNCTION);
    }
    return out;
  }

  /**
   * Whether both capture functions exist in {@code schema} with the current bodies and settings,
   * SECURITY DEFINER.
   */
  static boolean functionsCurrent(Connection c, String schema) throws SQLException {
    Map<String, String> found = new LinkedHashMap<>();
    Map<String, String> config = new LinkedHashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT p.proname, p.prosrc, array_to_string(p.proconfig, '|'), p.prosecdef "
                + "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ? AND p.proname IN (?, ?)")) {
      ps.setString(1, schema);
      ps.setString(2, PLAIN_FUNCTION);
      ps.setString(3, PINNED_FUNCTION);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.put(rs.getString(1), rs.getString(2));
          config.put(
              rs.getString(1),
              (rs.getBoolean(4) ? "" : "not security definer|")
                  + (rs.getString(3) == null ? "" : rs.getString(3)));
        }
      }
    }
    return functionBody(schema, PLAIN_FUNCTION).equals(found.get(PLAIN_FUNCTION))
        && functionBody(schema, PINNED_FUNCTION).equals(found.get(PINNED_FUNCTION))
        && "".equals(config.get(PLAIN_FUNCTION))
        && String.join("|", PINNED_SETTINGS).equalsIgnoreCase(config.get(PINNED_FUNCTION));
  }
}
