package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The outbox's indexes: one (its primary key {@code (txid, id)}) in a new install, since every
 * index is a write in each writer's transaction; and an outbox created before, with a primary key
 * on {@code id} and an index on {@code txid}, kept as it is and still read and pruned.
 */
class PgOutboxShapeTest {
  private static final ChangeSources.Tuning SHORT_REST =
      ChangeSources.Tuning.DEFAULT.withPruneRest(Duration.ofMillis(100));

  /** The outbox as versions before 2026-12-04 created it: a primary key on id ... */
  private static final String OLD_OUTBOX =
      "CREATE TABLE tablecast_outbox (id bigserial PRIMARY KEY, table_name text NOT NULL,"
          + " op char(1) NOT NULL, new_row jsonb, old_row jsonb,"
          + " txid xid8 NOT NULL DEFAULT pg_current_xact_id(),"
          + " created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp())";

  /** ... and an index on txid. */
  private static final String OLD_TXID_INDEX =
      "CREATE INDEX tablecast_outbox_txid ON tablecast_outbox (txid)";

  @Test
  void aNewOutboxHasOneIndexItsPrimaryKeyOnTheTransactionThenTheId() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("shape_new");
    db.execute("CREATE TABLE shaped (id INT PRIMARY KEY, v INT)");
    try (ChangeSource source = open(db)) {
      source.snapshot((t, row) -> {});
      assertThat(indexes(db)).containsExactly("tablecast_outbox_pkey (txid, id) primary");
      assertDeliveredAndPruned(db, source);
      // a second start (install again) adds nothing
    }
    try (ChangeSource again = open(db)) {
      again.snapshot((t, row) -> {});
      assertThat(indexes(db)).containsExactly("tablecast_outbox_pkey (txid, id) primary");
    }
  }

  @Test
  void anOutboxOfBeforeKeepsItsTwoIndexesAndIsStillReadAndPruned() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("shape_old");
    db.execute("CREATE TABLE shaped (id INT PRIMARY KEY, v INT)", OLD_OUTBOX, OLD_TXID_INDEX);
    try (ChangeSource source = open(db)) {
      source.snapshot((t, row) -> {});
      assertThat(indexes(db))
          .containsExactly("tablecast_outbox_pkey (id) primary", "tablecast_outbox_txid (txid)");
      assertDeliveredAndPruned(db, source);
    }
  }

  @Test
  void anOutboxOfBeforeConvertedWithInstallMdsStatementsUnderARunningServerKeepsEveryChange()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("shape_convert");
    db.execute("CREATE TABLE shaped (id INT PRIMARY KEY, v INT)", OLD_OUTBOX, OLD_TXID_INDEX);
    try (ChangeSource source = open(db)) {
      source.snapshot((t, row) -> {});
      Set<Integer> delivered = new TreeSet<>();
      try (Connection open = db.connect()) {
        open.setAutoCommit(false);
        try (Statement s = open.createStatement()) {
          s.execute("INSERT INTO shaped VALUES (10, 0)"); // in progress across the conversion
        }
        db.execute("INSERT INTO shaped VALUES (11, 0)");
        poll(source, delivered);
        List<String> conversion = conversionStatements();
        CompletableFuture<Void> converted =
            CompletableFuture.runAsync(
                () -> {
                  try (Connection c = db.connect();
                      Statement s = c.createStatement()) {
                    for (String sql : conversion) {
                      s.execute(sql);
                    }
                  } catch (SQLException e) {
                    throw new IllegalStateException(e);
                  }
                });
        // the conversion waits for the open writer's lock on the outbox, as it would for a user's
        await().atMost(Duration.ofSeconds(10)).until(() -> waitingForALock(db));
        open.commit();
        converted.get(10, TimeUnit.SECONDS);
      }
      assertThat(indexes(db)).containsExactly("tablecast_outbox_pkey (txid, id) primary");
      db.execute("INSERT INTO shaped VALUES (12, 0)");
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                poll(source, delivered);
                return delivered.size() == 3 && outboxRows(db) == 0;
              });
      assertThat(delivered).containsExactly(10, 11, 12);
    }
  }

  @Test
  void theConversionGivesUpAfterItsLockTimeoutWhileAWriterStaysOpenAndChangesNothing()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("shape_timeout");
    db.execute("CREATE TABLE shaped (id INT PRIMARY KEY, v INT)", OLD_OUTBOX, OLD_TXID_INDEX);
    try (ChangeSource source = open(db);
        Connection open = db.connect()) {
      source.snapshot((t, row) -> {});
      open.setAutoCommit(false);
      try (Statement s = open.createStatement()) {
        s.execute("INSERT INTO shaped VALUES (20, 0)"); // stays open past the lock timeout
      }
      long started = System.nanoTime();
      SQLException refused = null;
      try (Connection c = db.connect();
          Statement s = c.createStatement()) {
        for (String sql : conversionStatements()) {
          s.execute(sql);
        }
      } catch (SQLException e) {
        refused = e;
      }
      assertThat((Throwable) refused).as("the conversion, a writer open").isNotNull();
      assertThat(refused.getSQLState()).isEqualTo("55P03"); // lock_not_available
      assertThat(Duration.ofNanos(System.nanoTime() - started).toSeconds()).isLessThan(30L);
      assertThat(indexes(db))
          .containsExactly("tablecast_outbox_pkey (id) primary", "tablecast_outbox_txid (txid)");
      open.commit();
      Set<Integer> delivered = new TreeSet<>();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () -> {
                poll(source, delivered);
                return delivered.contains(20);
              });
    }
  }

  private static boolean waitingForALock(TestDatabases.Isolated db) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    + " AND query LIKE 'ALTER TABLE tablecast_outbox%'")) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }

  /** The statements of the sql block under INSTALL.md's heading on converting an outbox. */
  private static List<String> conversionStatements() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "INSTALL.md"));
    int heading = doc.indexOf("### Upgrading: the PostgreSQL outbox of an earlier version");
    assertThat(heading).as("INSTALL.md's heading").isPositive();
    int start = doc.indexOf("```sql\n", heading) + "```sql\n".length();
    String block = doc.substring(start, doc.indexOf("```", start));
    List<String> out = new ArrayList<>();
    for (String statement : block.split(";")) {
      if (!statement.isBlank()) {
        out.add(statement.strip());
      }
    }
    assertThat(out).as("INSTALL.md's statements").hasSize(5);
    return out;
  }

  @Test
  void anOutboxOfBeforeWithoutItsTxidIndexGetsIt() throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("shape_older");
    db.execute("CREATE TABLE shaped (id INT PRIMARY KEY, v INT)", OLD_OUTBOX);
    try (ChangeSource source = open(db)) {
      source.snapshot((t, row) -> {});
      assertThat(indexes(db))
          .containsExactly("tablecast_outbox_pkey (id) primary", "tablecast_outbox_txid (txid)");
    }
  }

  private static ChangeSource open(TestDatabases.Isolated db) throws Exception {
    SourceConfig config =
        new SourceConfig(
            db.jdbcUrl(), null, null, List.of("shaped"), true, Duration.ofMillis(1), null);
    return ChangeSources.open(config, MicrometerServerMetrics.inMemory(), SHORT_REST);
  }

  /** Writes in three transactions, one of them out of order; all arrive, then the outbox drains. */
  private static void assertDeliveredAndPruned(TestDatabases.Isolated db, ChangeSource source)
      throws Exception {
    Set<Integer> delivered = new TreeSet<>();
    try (Connection late = db.connect()) {
      late.setAutoCommit(false);
      try (Statement s = late.createStatement()) {
        s.execute("INSERT INTO shaped VALUES (1, 0)"); // the lowest txid, committed last
      }
      db.execute("INSERT INTO shaped VALUES (2, 0)", "INSERT INTO shaped VALUES (3, 0)");
      poll(source, delivered);
      late.commit();
    }
    db.execute("UPDATE shaped SET v = 1 WHERE id = 2");
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              poll(source, delivered);
              return delivered.size() == 3 && outboxRows(db) == 0;
            });
    assertThat(delivered).containsExactly(1, 2, 3);
  }

  private static void poll(ChangeSource source, Set<Integer> delivered) throws Exception {
    for (RowEvent e : source.poll(Duration.ofMillis(20)).events()) {
      delivered.add(Rows.after(e).get("id").asInt());
    }
  }

  private static long outboxRows(TestDatabases.Isolated db) throws Exception {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM tablecast_outbox")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The outbox's indexes as "name (columns)", " primary" for its primary key, by name. */
  private static List<String> indexes(TestDatabases.Isolated db) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT ic.relname, i.indisprimary, (SELECT string_agg(a.attname, ', ' ORDER BY k.n)"
                    + " FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)"
                    + " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)"
                    + " FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
                    + " WHERE i.indrelid = 'tablecast_outbox'::regclass ORDER BY ic.relname");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            rs.getString(1) + " (" + rs.getString(3) + ")" + (rs.getBoolean(2) ? " primary" : ""));
      }
    }
    return out;
  }
}
