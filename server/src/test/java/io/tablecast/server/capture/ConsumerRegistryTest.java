package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several configurations on one outbox: a running server's registration keeps another
 * configuration's uninstall from removing the capture it reads.
 */
class ConsumerRegistryTest {

  private static SourceConfig config(TestDatabases.Isolated db, String... tables) {
    return new SourceConfig(db.jdbcUrl(), null, null, List.of(tables), true, null, null);
  }

  private static HikariDataSource pool(TestDatabases.Isolated db) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(db.jdbcUrl());
    hc.setMaximumPoolSize(2);
    return new HikariDataSource(hc);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void uninstallIsRefusedNamingTheRunningServerThatNeedsTheTableUnlessForced(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("registry");
    db.execute("CREATE TABLE ta (id INT PRIMARY KEY)", "CREATE TABLE tb (id INT PRIMARY KEY)");
    CapturePlan planA;
    try (TriggerInstaller a = TriggerInstaller.connect(config(db, "ta"))) {
      a.install();
      planA = a.plan();
    }
    try (HikariDataSource pool = pool(db);
        ConsumerRegistry serverA = ConsumerRegistry.register(planA, pool, "server-a");
        TriggerInstaller b = TriggerInstaller.connect(config(db, "tb"))) {
      b.install();
      try (Connection c = db.connect()) {
        assertThat(Registrations.live(c, b.dialect(), db.schema()))
            .singleElement()
            .satisfies(
                consumer -> {
                  assertThat(consumer.serverName()).isEqualTo("server-a");
                  assertThat(consumer.tables()).containsExactly(db.table("ta"));
                });
      }
      assertThatThrownBy(b::uninstall)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("server 'server-a'")
          .hasMessageContaining(db.table("ta"))
          .hasMessageContaining("--force");
      assertThatThrownBy(() -> b.uninstall(Set.of("ta"), false))
          .hasMessageContaining("server 'server-a'");
      b.uninstall(Set.of("tb"), false); // a table nobody running needs
      assertThat(outboxRows(db, "ta")).isZero();
      db.execute("INSERT INTO ta VALUES (1)", "INSERT INTO tb VALUES (1)");
      assertThat(outboxRows(db, "ta")).isEqualTo(1); // server A's capture survived every refusal
      assertThat(outboxRows(db, "tb")).isZero();
      b.uninstall(Set.of(), true);
      assertThat(exists(db, "tablecast_outbox")).isFalse();
      assertThat(exists(db, "tablecast_consumers")).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerThatStoppedOrStoppedHeartbeatingNoLongerHoldsItsTables(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("registry_gone");
    db.execute("CREATE TABLE ta (id INT PRIMARY KEY)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "ta"))) {
      installer.install();
      try (HikariDataSource pool = pool(db)) {
        ConsumerRegistry.register(installer.plan(), pool, "closed")
            .close(); // stopped: unregistered at once
        ConsumerRegistry.register(
            installer.plan(), pool, "crashed"); // never closed, heartbeat ages below
        db.execute(
            "UPDATE tablecast_consumers SET heartbeat_at = heartbeat_at - INTERVAL '"
                + (ConsumerRegistry.LIVENESS.toSeconds() + 1)
                + "' SECOND");
        try (Connection c = db.connect()) {
          assertThat(Registrations.live(c, installer.dialect(), db.schema())).isEmpty();
        }
        installer.uninstall(); // nobody live: the plain uninstall goes through
      }
      assertThat(exists(db, "tablecast_outbox")).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRegistryOfAnOlderVersionStillRegistersAndInstallBringsItsNeedsColumn(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("registry_old");
    db.execute("CREATE TABLE ta (id INT PRIMARY KEY)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, "ta"));
        HikariDataSource pool = pool(db);
        Connection c = db.connect()) {
      installer.install();
      db.execute("ALTER TABLE tablecast_consumers DROP COLUMN needs_from"); // as before it
      try (ConsumerRegistry old = ConsumerRegistry.register(installer.plan(), pool, "older")) {
        assertThat(Registrations.live(c, installer.dialect(), db.schema()))
            .extracting(Registrations.Consumer::serverName)
            .containsExactly("older");
        assertThat(Registrations.lowestNeed(c, installer.dialect(), db.schema())).isEmpty();
        assertThat(installer.check())
            .filteredOn(f -> f.subject().equals("servers"))
            .singleElement()
            .satisfies(f -> assertThat(f.message()).contains("does not say what it still needs"));
      }
      assertThat(installer.check())
          .filteredOn(f -> f.message().contains("created by an older version"))
          .singleElement()
          .satisfies(f -> assertThat(f.message()).contains("`tablecast install`"));
      installer.install(); // adds the column
      assertThat(installer.check())
          .noneMatch(f -> f.message().contains("created by an older version"));
      try (ConsumerRegistry current = ConsumerRegistry.register(installer.plan(), pool, "new")) {
        assertThat(
                Registrations.lowestNeed(c, installer.dialect(), db.schema())
                    .map(Registrations.Need::from))
            .hasValue(0L); // needs everything until its source says what
        assertThat(installer.check()) // what `tablecast check` prints of it
            .filteredOn(f -> f.subject().equals("servers"))
            .singleElement()
            .satisfies(
                f ->
                    assertThat(f.message())
                        .contains("server 'new'")
                        .contains("its position not known yet (it holds all pruning back)"));
      }
    }
  }

  private static long outboxRows(TestDatabases.Isolated db, String table) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT COUNT(*) FROM tablecast_outbox WHERE table_name = '"
                    + db.table(table)
                    + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static boolean exists(TestDatabases.Isolated db, String table) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '"
                    + db.schema()
                    + "' AND table_name = '"
                    + table
                    + "'")) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }
}
