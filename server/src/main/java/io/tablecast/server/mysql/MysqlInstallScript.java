package io.tablecast.server.mysql;

import io.tablecast.server.capture.Dialect.Installation;
import io.tablecast.server.capture.InstalledTrigger;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MySQL family's install script ({@link MysqlDialect#installStatements}): the outbox, the
 * triggers the cached tables need ({@link MysqlTriggers}, {@link MysqlCascadeTriggers}) and the
 * drops of stale ones, in an order that leaves no write uncaptured; and which of its statements
 * install still has to run against a database where some triggers are present ({@link
 * MysqlDialect#toRun}).
 */
final class MysqlInstallScript {
  private MysqlInstallScript() {}

  /** The statement that drops one installed trigger. */
  static String drop(InstalledTrigger t) {
    return "DROP TRIGGER IF EXISTS "
        + MysqlIdentifiers.quote(t.table().schema())
        + "."
        + MysqlIdentifiers.quote(t.name());
  }

  /**
   * New triggers first (the cached tables' own, then their parents' key-recording triggers), then
   * the drops of stale ones: no write goes uncaptured in between.
   *
   * @throws IllegalStateException listing every foreign-key action that cannot be captured
   */
  static List<String> statements(
      MysqlDialect dialect,
      Connection c,
      Installation inst,
      List<TableSchema> tables,
      List<InstalledTrigger> installed,
      List<InstalledTrigger> unconfigured)
      throws SQLException {
    List<Wanted> wanted = wanted(dialect, c, inst, tables);
    List<String> out = new ArrayList<>(MysqlTriggers.outbox(dialect.flavor(), inst.outbox()));
    for (InstalledTrigger moved : installed) {
      if (renamedAway(moved)) {
        // renamed away with its table: it records another table's name, and holds the name that
        // table's own trigger needs (trigger names are per schema). Dropped first.
        out.add(drop(moved));
      }
    }
    Map<TableId, String> goneDefiners =
        dialect
            .definers()
            .gone(c, wanted.stream().map(w -> w.trigger().table().schema()).distinct().toList());
    Set<TableId> cached = new HashSet<>();
    tables.forEach(t -> cached.add(t.id()));
    Set<InstalledTrigger> wantedNames = new HashSet<>();
    for (Wanted w : wanted) {
      MysqlTriggers.Trigger trigger = w.trigger();
      if (goneDefiners.containsKey(new TableId(trigger.table().schema(), trigger.name()))) {
        out.addAll(replacing(dialect.flavor(), trigger)); // its writers all fail meanwhile
      } else {
        out.add(trigger.sql());
      }
      wantedNames.add(new InstalledTrigger(trigger.table(), trigger.name(), w.records()));
    }
    for (InstalledTrigger existing :
        installed) { // stale ones go only after their replacements exist
      // a trigger recording a table cached here that this configuration does not want is stale:
      // any configuration caching that table wants the same triggers; the others' are left alone
      if (!renamedAway(existing)
          && cached.contains(existing.owner())
          && !wantedNames.contains(existing)) {
        out.add(drop(existing));
      }
    }
    for (InstalledTrigger t : unconfigured) {
      out.add(drop(t));
    }
    return out;
  }

  /**
   * The statements that recreate {@code trigger}, present but run as an account that no longer
   * exists ({@link TriggerDefiners}), as the account that runs them: MariaDB replaces it in one
   * statement, under the table's metadata lock, so that no write runs between; MySQL (8.0.22 and
   * later refuse to drop a definer's account without {@code SET_USER_ID}; never run here) drops it
   * first.
   */
  static List<String> replacing(MysqlFlavor flavor, MysqlTriggers.Trigger trigger) {
    String create = "CREATE TRIGGER IF NOT EXISTS ";
    if (!trigger.sql().startsWith(create)) {
      throw new IllegalStateException("not a capture trigger's statement: " + trigger.sql());
    }
    String rest = trigger.sql().substring(create.length());
    return flavor == MysqlFlavor.MARIADB
        ? List.of("CREATE OR REPLACE TRIGGER " + rest)
        : List.of(
            drop(new InstalledTrigger(trigger.table(), trigger.name())), "CREATE TRIGGER " + rest);
  }

  /**
   * Without the triggers already there: {@code CREATE TRIGGER IF NOT EXISTS} of one that exists
   * still waits for the table's metadata lock behind every open transaction that wrote to it, and
   * every writer that comes after waits behind it. A trigger's name ends with a hash of its body,
   * so one present under the name is the one wanted.
   */
  static List<String> toRun(List<String> script, List<InstalledTrigger> installed) {
    Map<String, String> present = new LinkedHashMap<>(); // CREATE ... name -> ON table
    for (InstalledTrigger t : installed) {
      if (!renamedAway(t)) { // one renamed away with its table is not the one wanted
        present.put(
            "CREATE TRIGGER IF NOT EXISTS "
                + MysqlIdentifiers.quote(t.table().schema())
                + "."
                + MysqlIdentifiers.quote(t.name())
                + " ",
            " ON " + MysqlIdentifiers.quote(t.table()) + " FOR EACH ROW");
      }
    }
    List<String> out = new ArrayList<>();
    for (String statement : script) {
      if (present.entrySet().stream()
          .noneMatch(p -> statement.startsWith(p.getKey()) && statement.contains(p.getValue()))) {
        out.add(statement);
      }
    }
    return out;
  }

  /**
   * A row trigger whose table was renamed: it still records the old name (its owner), and holds the
   * name the renamed table's own trigger needs. A parent's key-recording trigger records another
   * table by design.
   */
  private static boolean renamedAway(InstalledTrigger t) {
    return !t.table().equals(t.owner()) && !MysqlCascadeTriggers.isKeyRecording(t.name());
  }

  /** A trigger this configuration needs, and the cached table whose rows it records. */
  private record Wanted(MysqlTriggers.Trigger trigger, TableId records) {}

  /** The own triggers of the cached tables, then their parents' key-recording triggers. */
  private static List<Wanted> wanted(
      MysqlDialect dialect, Connection c, Installation inst, List<TableSchema> tables)
      throws SQLException {
    List<Wanted> out = new ArrayList<>();
    for (TableSchema t : tables) {
      MysqlTriggers.triggers(t, inst.outbox()).forEach(own -> out.add(new Wanted(own, t.id())));
    }
    for (MysqlCascadeTriggers.CascadeTrigger ct :
        ForeignKeyCheck.check(dialect, c, tables, inst.outbox()).orRefuse()) {
      out.add(new Wanted(ct.trigger(), ct.serves().keySet().iterator().next()));
    }
    return out;
  }
}
