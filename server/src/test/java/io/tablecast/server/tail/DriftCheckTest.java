package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reconciliation's key ranges tile each table in the database's own key order, pass after pass, and
 * a range whose batch was not handed on is read again: on both databases, with composite keys of
 * text (under the column's collation, case-insensitive on MariaDB) and integers, and an ENUM key,
 * which MySQL/MariaDB orders by its number and not by its text.
 */
class DriftCheckTest {
  /** The ranges' bound of a server of default settings. */
  private static final Duration ANSWER = SourceConfig.DEFAULT_ANSWER_TIMEOUT;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void rangesTileATableWithACompositeTextKeyInKeyOrderAndAreReadAgainUntilPublished(Kind kind)
      throws Exception {
    TestDatabases.Isolated db = kind.isolated("drift_chunks");
    db.execute(
        "CREATE TABLE items (region varchar(20), n int, v varchar(40), PRIMARY KEY (region, n))",
        "INSERT INTO items VALUES " + values(List.of("eu", "Fr", "us", "Ünï", "a b"), 5));
    assertTiled(db, "SELECT region, n FROM items ORDER BY region, n", 10, 25);
  }

  @Test
  void anEnumKeyIsTiledInDeclarationOrder() throws Exception {
    TestDatabases.Isolated db = Kind.MYSQL.isolated("drift_enum");
    db.execute(
        "CREATE TABLE items (region ENUM('zz', 'aa', 'mm'), n int, v varchar(40), PRIMARY KEY (region, n))",
        "INSERT INTO items VALUES " + values(List.of("aa", "mm", "zz"), 4));
    assertTiled(db, "SELECT region, n FROM items ORDER BY region, n", 5, 12);
  }

  /**
   * Ten ranges every interval, a tenth of it apart, so that each holds the tail only briefly
   * (docs/CONFIGURATION.md, reconcile_interval); the tenth is counted from the last read.
   */
  @Test
  void aRangeIsReadEveryTenthOfTheInterval() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("drift_cadence");
    db.execute(
        "CREATE TABLE items (region varchar(20), n int, v varchar(40), PRIMARY KEY (region, n))",
        "INSERT INTO items VALUES " + values(List.of("eu"), 3));
    CapturePlan plan = plan(db);
    DriftCheck check = new DriftCheck(() -> plan, Duration.ofSeconds(5), ANSWER, unaltered(), 1);
    check.snapshotTaken();
    assertThat(check.prepare()).as("just after the snapshot").isFalse();
    Thread.sleep(600); // a tenth of 5 s, and some
    assertThat(check.prepare()).as("a tenth of the interval later").isTrue();
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      assertThat(check.read(c).rows()).hasSize(1);
      c.commit();
    }
    check.published();
    assertThat(check.prepare()).as("just after a range").isFalse();
  }

  /** A range also ends once its rows' JSON reaches 1.6 MiB (docs/CONFIGURATION.md). */
  @Test
  void aRangeOfLargeRowsEndsAtItsShareOfJson() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("drift_large");
    db.execute(
        "CREATE TABLE items (region varchar(20), n int, v text, PRIMARY KEY (region, n))",
        "INSERT INTO items SELECT 'eu', g, repeat('x', 1000000) FROM generate_series(1, 3) g");
    CapturePlan plan = plan(db);
    DriftCheck check = new DriftCheck(() -> plan, Duration.ofMillis(1), ANSWER, unaltered());
    Thread.sleep(2);
    assertThat(check.prepare()).isTrue();
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      CommittedBatch.TableRead first = check.read(c);
      c.commit();
      assertThat(first.rows()).as("1 MB + 1 MB of JSON passes 1.6 MiB").hasSize(2);
      assertThat(first.chunk()).isEqualTo(new CommittedBatch.Chunk(true, false));
    }
  }

  /**
   * A table read as one text per column (no JSON built): every range gives each row's bytes exactly
   * as the snapshot read does, pass after pass, also once the driver has seen the range's statement
   * often enough to prepare it on the server (pgjdbc then reads some types in binary).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void rangesOfATableReadAsColumnTextsGiveTheSnapshotsBytesInEveryPass(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("drift_texts");
    db.execute(
        kind == Kind.POSTGRESQL
            ? "CREATE TABLE items (id int8 PRIMARY KEY, n numeric, ch char(5), by bytea, ok bool, "
                + "ip inet, mo money, big numeric(30,0))"
            : "CREATE TABLE items (id BIGINT PRIMARY KEY, n DECIMAL(20,10), ch CHAR(5), "
                + "vc VARCHAR(20) CHARACTER SET latin1, ok TINYINT(1), e ENUM('x','y'), "
                + "big BIGINT UNSIGNED, y YEAR)",
        kind == Kind.POSTGRESQL
            ? "INSERT INTO items VALUES (1, 0.0000001, 'ab', '\\x00ff', true, '10.0.0.1', 12.5, "
                + "123456789012345678901234567890), (2, 'NaN', NULL, '', false, '::1/128', -0.01, 0), "
                + "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
            : "INSERT INTO items VALUES (1, 0.0000001, 'ab', 'café', 2, 'y', 18446744073709551615, "
                + "2024), (2, -1.5, '', '', 0, 'x', 0, 1901), "
                + "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
    CapturePlan plan = plan(db);
    TableSchema table = plan.tables().get(0);
    assertThat(plan.snapshotRead(table).shape()).isEqualTo(SnapshotRead.Shape.COLUMN_TEXTS);
    DriftCheck check = new DriftCheck(() -> plan, Duration.ofMillis(1), ANSWER, unaltered(), 1);
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      List<String> snapshot = hex(OutboxRows.readTable(plan, c, table, new WholeReads()));
      for (int pass = 0; pass < 4; pass++) { // 16 range reads: past pgjdbc's prepareThreshold
        List<String> ranges = new ArrayList<>();
        for (int range = 0; range < 4; range++) {
          Thread.sleep(2);
          assertThat(check.prepare()).isTrue();
          ranges.addAll(hex(check.read(c).rows()));
          check.published();
        }
        assertThat(ranges).as("pass %d", pass).containsExactlyInAnyOrderElementsOf(snapshot);
      }
      c.rollback();
    }
  }

  static List<String> hex(List<byte[]> rows) {
    return rows.stream().map(HexFormat.of()::formatHex).toList();
  }

  static CapturePlan plan(TestDatabases.Isolated db) throws Exception {
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null);
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.describe();
      installer.install();
      return installer.plan();
    }
  }

  /** A pass start that takes the table as known and fails the test on an ALTER TABLE. */
  static DriftCheck.PassStart unaltered() {
    return new DriftCheck.PassStart() {
      @Override
      public TableSchema begin(TableSchema known) {
        return known;
      }

      @Override
      public void alteredDuringPass(TableSchema known) {
        throw new AssertionError("not altered: " + known);
      }
    };
  }

  private static String values(List<String> regions, int per) {
    List<String> rows = new ArrayList<>();
    for (String r : regions) {
      for (int n = 1; n <= per; n++) {
        rows.add("('" + r + "', " + n + ", '" + r + n + "')");
      }
    }
    return String.join(", ", rows);
  }

  private static void assertTiled(
      TestDatabases.Isolated db, String inOrder, int chunkRows, int rowCount) throws Exception {
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null);
    CapturePlan plan;
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.describe();
      installer.install();
      plan = installer.plan();
    }
    List<String> expected = new ArrayList<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(inOrder)) {
      while (rs.next()) {
        expected.add(rs.getString(1) + "/" + rs.getInt(2));
      }
    }
    assertThat(expected).hasSize(rowCount);
    List<TableSchema> begun = new ArrayList<>();
    DriftCheck check =
        new DriftCheck(
            () -> plan,
            Duration.ofMillis(1),
            ANSWER,
            new DriftCheck.PassStart() {
              @Override
              public TableSchema begin(TableSchema known) {
                begun.add(known);
                return known;
              }

              @Override
              public void alteredDuringPass(TableSchema known) {
                throw new AssertionError("not altered: " + known);
              }
            },
            chunkRows);
    int ranges = rowCount / chunkRows + 1;
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      List<String> seen = new ArrayList<>();
      List<CommittedBatch.Chunk> chunks = new ArrayList<>();
      for (int i = 0; i < ranges; i++) {
        Thread.sleep(2);
        assertThat(check.prepare()).isTrue();
        CommittedBatch.TableRead read = check.read(c);
        if (i == 1) { // not handed on (the outbox read failed): the same range comes again
          assertThat(Rows.json(read.schema(), check.read(c).rows()))
              .isEqualTo(Rows.json(read.schema(), read.rows()));
        }
        check.published();
        chunks.add(read.chunk());
        Rows.json(read.schema(), read.rows())
            .forEach(r -> seen.add(r.get("region").asText() + "/" + r.get("n").asInt()));
      }
      c.commit();
      assertThat(seen).isEqualTo(expected);
      assertThat(chunks.get(0)).isEqualTo(new CommittedBatch.Chunk(true, false));
      assertThat(chunks.get(ranges - 1)).isEqualTo(new CommittedBatch.Chunk(false, true));
      assertThat(chunks.subList(1, ranges - 1)).allMatch(ch -> !ch.first() && !ch.last());
      assertThat(begun).as("the pass began once").hasSize(1);
      Thread.sleep(2);
      assertThat(check.prepare()).isTrue();
      assertThat(check.read(c).chunk())
          .as("the next pass")
          .isEqualTo(new CommittedBatch.Chunk(true, false));
      assertThat(begun).hasSize(2);
      c.rollback();
    }
  }
}
