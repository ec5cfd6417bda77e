package io.tablecast.server.capture;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What {@code tablecast check} reports about a configuration, every finding at once: each cached
 * table (can it be captured, can this user read it), the outbox and each table's capture
 * (installed, current), the privileges serving needs (probed with statements that change nothing
 * and are rolled back; the dialect adds its own, {@link Dialect#privilegeFindings}), and the
 * running servers registered on the outbox.
 */
final class ConfigurationCheck {
  private final TriggerInstaller installer;
  private final Connection connection;
  private final Dialect dialect;
  private final Dialect.Installation installation;
  private final SourceConfig config;
  private final Function<List<TableSchema>, List<CaptureFinding>> more;

  ConfigurationCheck(
      TriggerInstaller installer,
      Connection connection,
      Dialect dialect,
      Dialect.Installation installation,
      SourceConfig config,
      Function<List<TableSchema>, List<CaptureFinding>> more) {
    this.installer = installer;
    this.connection = connection;
    this.dialect = dialect;
    this.installation = installation;
    this.config = config;
    this.more = more;
  }

  List<CaptureFinding> run() throws SQLException {
    List<CaptureFinding> out = new ArrayList<>(dialect.sourceFindings(connection));
    List<TableSchema> described = new ArrayList<>();
    RepeatedEntries repeated = new RepeatedEntries();
    for (CachedTable entry : installer.configuredEntries()) {
      String name = entry.table();
      String subject = installer.subject(name);
      try {
        TableSchema t = installer.describeOne(name);
        CaptureFinding again = repeated.repeated(t.id(), entry);
        if (again != null) {
          out.add(again);
          continue;
        }
        described.add(t);
        String read = probe("SELECT * FROM " + dialect.quote(t.id()) + " WHERE 1 = 0");
        out.add(
            read == null
                ? CaptureFinding.ok(
                    subject,
                    t.columns().size()
                        + (t.columns().size() == 1 ? " column" : " columns")
                        + ", primary key "
                        + t.primaryKey())
                : CaptureFinding.error(
                    subject, "this user cannot read it (" + read + "); grant SELECT on it"));
      } catch (IllegalArgumentException e) {
        out.add(CaptureFinding.error(subject, e.getMessage()));
      }
    }
    boolean outbox = Catalog.exists(connection, dialect.outboxExistsQuery(), installation.schema());
    if (!outbox) {
      out.add(
          config.installTriggers()
              ? CaptureFinding.info(
                  "outbox",
                  installation.outbox()
                      + " does not exist yet; install_triggers is on, so "
                      + "the server creates it and the triggers at start")
              : CaptureFinding.error(
                  "outbox",
                  installation.outbox()
                      + " does not exist; run `tablecast install` "
                      + "(or set install_triggers: true)"));
    } else {
      out.addAll(captureFindings(described));
      out.addAll(outboxPrivileges());
    }
    out.addAll(dialect.privilegeFindings(this::probe));
    out.addAll(more.apply(List.copyOf(described)));
    for (Registrations.Consumer c :
        Registrations.live(connection, dialect, installation.schema())) {
      out.add(
          CaptureFinding.info(
              "servers",
              c
                  + " is running on this outbox, caching "
                  + c.tables()
                  + (c.needsFrom() == null
                      ? " (a version that does not say what it still needs)"
                      : c.needsFrom() == 0
                          ? ", its position not known yet (it holds all pruning back)"
                          : ", still needing outbox rows from position "
                              + c.needsFrom()
                              + " (none is pruned from there on)")));
    }
    return out;
  }

  /** Each described table's capture: installed and current, or what is missing. */
  private List<CaptureFinding> captureFindings(List<TableSchema> described) throws SQLException {
    List<CaptureFinding> out = new ArrayList<>();
    List<CaptureFinding> problems = installer.installProblems(described);
    for (CaptureFinding p : problems) {
      out.add(
          config.installTriggers()
              ? CaptureFinding.info(
                  p.subject(),
                  p.message() + "; install_triggers is on, so the server installs it " + "at start")
              : p);
    }
    boolean outboxBroken = problems.stream().anyMatch(p -> p.subject().equals("outbox"));
    for (TableSchema t : described) {
      if (!outboxBroken
          && problems.stream().noneMatch(p -> p.subject().contains(t.id().qualified()))) {
        out.add(CaptureFinding.ok(t.id().qualified(), "capture installed"));
      }
    }
    return out;
  }

  /** Reading and pruning the outbox, and registering in the consumer registry. */
  private List<CaptureFinding> outboxPrivileges() throws SQLException {
    List<CaptureFinding> out = new ArrayList<>();
    String read = probe("SELECT id FROM " + installation.outbox() + " WHERE 1 = 0");
    String prune = probe("DELETE FROM " + installation.outbox() + " WHERE 1 = 0");
    if (read != null || prune != null) {
      out.add(
          CaptureFinding.error(
              "privileges",
              "serving needs SELECT and DELETE on "
                  + installation.outbox()
                  + (read != null ? "; SELECT failed: " + read : "")
                  + (prune != null ? "; DELETE failed: " + prune : "")));
    } else {
      out.add(CaptureFinding.ok("privileges", "SELECT and DELETE on " + installation.outbox()));
    }
    String registry = Registrations.table(dialect, installation.schema());
    String register = probe("UPDATE " + registry + " SET heartbeat_at = heartbeat_at WHERE 1 = 0");
    if (register == null
        && probe("UPDATE " + registry + " SET needs_from = needs_from WHERE 1 = 0") != null) {
      out.add(
          CaptureFinding.warn(
              "outbox",
              registry
                  + " was created by an older version: servers on this outbox cannot coordinate "
                  + "pruning, and one far behind another could miss rows the other pruned; run "
                  + "`tablecast install` with this version"));
    }
    if (register != null) {
      out.add(
          CaptureFinding.warn(
              "privileges",
              "cannot write "
                  + registry
                  + " ("
                  + register
                  + "): the server "
                  + "serves, but other configurations' install and uninstall will not know which tables it needs; run "
                  + "`tablecast install` with this version and grant INSERT, UPDATE, DELETE on it (docs/SECURITY.md)"));
    }
    return out;
  }

  /**
   * Runs a statement that changes nothing, rolled back; null when it ran, else the database's
   * error.
   */
  private String probe(String sql) throws SQLException {
    boolean auto = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
      return null;
    } catch (SQLException e) {
      return e.getMessage();
    } finally {
      connection.rollback();
      connection.setAutoCommit(auto);
    }
  }
}
