package io.tablecast.server.capture;

import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * What {@link TriggerInstaller#uninstall(Set, boolean)} does: removes the capture of some tables,
 * or all of it with the outbox, refused while a running server needs what would be removed (unless
 * forced). Runs on the installer's connection.
 */
final class CaptureRemoval {

  /** Logs under {@link TriggerInstaller}, as before this was split out of it. */
  private static final Logger LOG = RecentEvents.logger(TriggerInstaller.class);

  private final TriggerInstaller installer;
  private final Connection connection;
  private final Dialect dialect;
  private final String defaultSchema;

  CaptureRemoval(
      TriggerInstaller installer, Connection connection, Dialect dialect, String defaultSchema) {
    this.installer = installer;
    this.connection = connection;
    this.dialect = dialect;
    this.defaultSchema = defaultSchema;
  }

  /**
   * Removes capture. With no {@code tables}: every Tablecast trigger that writes to this outbox
   * (also on tables no longer in {@code cached_tables}), the PostgreSQL function, the registry and
   * the outbox. With {@code tables}: only the capture of those tables (qualified or in the outbox's
   * schema); the outbox stays.
   *
   * @param force remove even what a running server needs (it then stops receiving changes)
   * @throws IllegalStateException naming every running server that needs what would be removed,
   *     unless {@code force}
   */
  Removal uninstall(Set<String> tables, boolean force) throws SQLException {
    List<InstalledTrigger> installed = installer.installedTriggers();
    List<Registrations.Consumer> live = Registrations.live(connection, dialect, defaultSchema);
    Set<TableId> only = new LinkedHashSet<>();
    tables.forEach(t -> only.add(TableId.parse(t, defaultSchema)));
    List<String> refusals = new ArrayList<>();
    for (Registrations.Consumer c : live) {
      List<String> needed =
          c.tables().stream()
              .filter(t -> only.isEmpty() || only.contains(TableId.parse(t, defaultSchema)))
              .toList();
      if (!needed.isEmpty()) {
        refusals.add(c + " (registered " + c.id() + ") needs the capture of " + needed);
      }
    }
    if (!refusals.isEmpty() && !force) {
      throw new IllegalStateException(
          "refusing to uninstall: "
              + String.join("; ", refusals)
              + ". Stop "
              + (refusals.size() == 1 ? "it" : "them")
              + " first, or pass --force ("
              + (refusals.size() == 1 ? "it stops" : "they stop")
              + " receiving changes).");
    }
    for (String r : refusals) {
      LOG.warn("Uninstalling with --force although {}", r);
    }
    if (!only.isEmpty()) {
      List<String> drops = new ArrayList<>();
      Set<TableId> on = new LinkedHashSet<>(only);
      Set<TableId> captured = new LinkedHashSet<>();
      for (InstalledTrigger t : installed) {
        captured.add(t.owner());
        // with the triggers on its PostgreSQL partitions and children, and (MySQL) on the parents
        // whose foreign-key actions change it
        if (only.contains(t.owner())) {
          drops.add(dialect.dropSql(t));
          on.add(t.table());
        }
      }
      installer.execute("uninstall", drops, List.copyOf(on));
      List<TableId> removed = new ArrayList<>();
      List<TableId> without = new ArrayList<>();
      for (TableId id : only) {
        if (captured.contains(id)) {
          removed.add(id);
          LOG.info("Capture removed from {}", id);
        } else {
          without.add(id);
        }
      }
      captured.removeAll(only);
      return new Removal(removed, without, List.copyOf(captured));
    }
    installer.execute(
        "uninstall",
        dialect.uninstallStatements(connection, installer.installation(), installed),
        installed.stream().map(InstalledTrigger::table).distinct().toList());
    try (Statement s = connection.createStatement()) {
      for (TableId id : installed.stream().map(InstalledTrigger::table).distinct().toList()) {
        LOG.info("Capture removed from {}", id);
      }
      s.execute("DROP TABLE IF EXISTS " + Registrations.table(dialect, defaultSchema));
      s.execute("DROP TABLE IF EXISTS " + installer.outbox());
      LOG.info("Outbox {} dropped", installer.outbox());
    }
    return new Removal(
        installed.stream().map(InstalledTrigger::owner).distinct().toList(), List.of(), List.of());
  }

  /**
   * What an uninstall did.
   *
   * @param removedFrom the tables whose capture triggers were dropped
   * @param notCaptured the tables asked for that had no capture triggers of this outbox (a name
   *     mistyped, or removed already)
   * @param stillCaptured with tables asked for, the tables whose capture stays
   */
  record Removal(
      List<TableId> removedFrom, List<TableId> notCaptured, List<TableId> stillCaptured) {

    /** What was done, for the command line; {@code everything} when no tables were asked for. */
    String said(boolean everything) {
      if (everything) {
        return "uninstalled";
      }
      StringBuilder said = new StringBuilder();
      if (!removedFrom.isEmpty()) {
        said.append("uninstalled capture of ").append(removedFrom);
      }
      if (!notCaptured.isEmpty()) {
        said.append(said.length() == 0 ? "" : "; ")
            .append("nothing to remove on ")
            .append(notCaptured)
            .append(": no capture triggers of this outbox (a name mistyped, or removed already;")
            .append(" captured here: ")
            .append(stillCaptured)
            .append(")");
      }
      return said.toString();
    }
  }
}
