package io.tablecast.server.mysql;

import io.tablecast.server.capture.Catalog;
import io.tablecast.server.capture.Dialect.Installation;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MySQL family's capture check: every trigger the cached tables need now (their own, and their
 * parents' key-recording triggers for every foreign-key action into them), found by name in {@code
 * information_schema.TRIGGERS}, and what cannot be captured ({@link CaptureStatus}).
 */
final class RequiredTriggers {
  private RequiredTriggers() {}

  /** The error for a required trigger the catalog does not show. */
  static IllegalStateException missing(RequiredTrigger t) {
    if (!t.recordsCascades()) {
      return new IllegalStateException(
          "capture triggers on table "
              + t.cachedTable()
              + " are missing or stale (was the table "
              + "altered?); run install (or set install_triggers: true)");
    }
    return new IllegalStateException(
        "capture trigger "
            + t.name()
            + " on "
            + t.on()
            + ", which records the rows "
            + "of cached table "
            + t.cachedTable()
            + " that the actions of foreign key(s) "
            + String.join(", ", t.foreignKeys())
            + " change, is missing or stale (was a foreign key added or changed?); run install (or set "
            + "install_triggers: true)");
  }

  /**
   * Every trigger the cached tables need, found by name on each table that carries them. A table
   * without any visible {@code tablecast_*} trigger whose triggers this user may not see counts as
   * {@link RequiredTrigger.Presence#NOT_VISIBLE}.
   */
  static CaptureStatus status(
      MysqlDialect dialect, Connection c, Installation inst, List<TableSchema> tables)
      throws SQLException {
    List<RequiredTrigger> required = new ArrayList<>();
    PresentTriggers present = new PresentTriggers(c);
    present.readSchemas(SchemaReads.readWhole(c, tables.stream().map(TableSchema::id).toList()));
    ForeignKeyCheck.Result cascades = ForeignKeyCheck.check(dialect, c, tables, inst.outbox());
    for (TableSchema t : tables) {
      for (MysqlTriggers.Trigger own : MysqlTriggers.triggers(t, inst.outbox())) {
        required.add(required(t.id(), own, List.of(), present));
      }
    }
    for (MysqlCascadeTriggers.CascadeTrigger ct : cascades.triggers()) {
      for (Map.Entry<TableId, List<String>> serves : ct.serves().entrySet()) {
        required.add(required(serves.getKey(), ct.trigger(), serves.getValue(), present));
      }
    }
    return new CaptureStatus(
        withGoneDefiners(dialect.definers(), c, required), cascades.problems());
  }

  /**
   * {@code trigger}, recording the rows of {@code cached} (along {@code foreignKeys} when on a
   * parent), with what the catalog shows of it.
   */
  private static RequiredTrigger required(
      TableId cached,
      MysqlTriggers.Trigger trigger,
      List<String> foreignKeys,
      PresentTriggers present)
      throws SQLException {
    return new RequiredTrigger(
        cached, trigger.table(), trigger.name(), foreignKeys, present.of(trigger), null);
  }

  /**
   * {@code required}, each present trigger whose definer account is gone marked so. Asked only in
   * the schemas where this user sees a present trigger: a user that sees none (the least-privilege
   * serving user, without {@code TRIGGER}) may not read {@code mysql.user} either, and the
   * statement failed at every capture check (error 1142, which the driver logs at WARN).
   */
  private static List<RequiredTrigger> withGoneDefiners(
      TriggerDefiners definers, Connection c, List<RequiredTrigger> required) throws SQLException {
    Set<String> schemas = new LinkedHashSet<>();
    for (RequiredTrigger t : required) {
      if (t.presence() == RequiredTrigger.Presence.PRESENT) {
        schemas.add(t.on().schema());
      }
    }
    Map<TableId, String> gone = definers.gone(c, schemas);
    if (gone.isEmpty()) {
      return required;
    }
    List<RequiredTrigger> out = new ArrayList<>(required.size());
    for (RequiredTrigger t : required) {
      String definer = gone.get(new TableId(t.on().schema(), t.name()));
      out.add(
          t.presence() == RequiredTrigger.Presence.PRESENT && definer != null
              ? new RequiredTrigger(
                  t.cachedTable(),
                  t.on(),
                  t.name(),
                  t.foreignKeys(),
                  RequiredTrigger.Presence.DEFINER_GONE,
                  definer)
              : t);
    }
    return out;
  }

  /** The {@code tablecast_*} trigger names of each table, read once per table. */
  private static final class PresentTriggers {
    private final Connection c;
    private final Map<TableId, Set<String>> names = new HashMap<>();
    private final Set<TableId> invisible = new HashSet<>();

    PresentTriggers(Connection c) {
      this.c = c;
    }

    /**
     * Reads the names of every table of {@code schemas} that has {@code tablecast_*} triggers in
     * one query (one per table cost a server of 400 cached tables 400 queries a check); a table
     * without any is still looked up alone, with whether this user may see its triggers.
     */
    void readSchemas(List<String> schemas) throws SQLException {
      if (schemas.isEmpty()) {
        return;
      }
      String sql =
          "SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, TRIGGER_NAME FROM information_schema.TRIGGERS"
              + " WHERE EVENT_OBJECT_SCHEMA IN ("
              + String.join(", ", Collections.nCopies(schemas.size(), "?"))
              + ") AND TRIGGER_NAME LIKE 'tablecast\\_%'";
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < schemas.size(); i++) {
          ps.setString(i + 1, schemas.get(i));
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            names
                .computeIfAbsent(
                    new TableId(rs.getString(1), rs.getString(2)), k -> new HashSet<>())
                .add(rs.getString(3));
          }
        }
      }
    }

    RequiredTrigger.Presence of(MysqlTriggers.Trigger trigger) throws SQLException {
      TableId table = trigger.table();
      if (!names.containsKey(table)) {
        Set<String> found = new HashSet<>(names(c, table));
        names.put(table, found);
        if (found.isEmpty() && !TriggerPrivilege.holds(c, table)) {
          invisible.add(table);
        }
      }
      if (invisible.contains(table)) {
        return RequiredTrigger.Presence.NOT_VISIBLE;
      }
      return names.get(table).contains(trigger.name())
          ? RequiredTrigger.Presence.PRESENT
          : RequiredTrigger.Presence.MISSING;
    }
  }

  /** Names of the {@code tablecast_*} triggers on one table, whatever they write to. */
  static List<String> names(Connection c, TableId id) throws SQLException {
    return Catalog.strings(
        c,
        "SELECT TRIGGER_NAME FROM information_schema.TRIGGERS "
            + "WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? AND TRIGGER_NAME LIKE 'tablecast\\_%'",
        id);
  }
}
