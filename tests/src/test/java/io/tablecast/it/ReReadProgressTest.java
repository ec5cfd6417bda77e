package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table re-read while serving (here after an {@code ALTER TABLE}; also after a {@code TRUNCATE}
 * or a repaired capture), and every table read again (here after the outbox was truncated; also
 * after a failover), show their progress as the snapshot at start does (docs/INSTALL.md, "Long work
 * shows its progress"): such a read holds the tail, and so every table's changes, for as long as
 * the table is large; before, the log said nothing until it was over. {@code bin/tablecast serve}
 * with the first progress line at once ({@code -Dtablecast.progress.delay_ms=0}; by default one
 * every 10 s).
 */
class ReReadProgressTest {
  private static final int ROWS = 20_000;

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aTableReReadWhileServingShowsItsProgress(Kind kind) throws Exception {
    try (Pipeline p =
        Pipeline.create(
            kind,
            "reread_progress",
            List.of("CREATE TABLE items (id INT PRIMARY KEY, v VARCHAR(40))"),
            "items")) {
      try (Connection c = p.connect();
          PreparedStatement s = c.prepareStatement("INSERT INTO items VALUES (?, ?)")) {
        for (int i = 1; i <= ROWS; i++) {
          s.setInt(1, i);
          s.setString(2, "item " + i);
          s.addBatch();
        }
        s.executeBatch();
      }
      String items = p.db.table("items");
      try (ServeProcess serve = serve(p, items)) {
        serve.awaitStarted(Duration.ofSeconds(60));
        assertThat(serve.log()).doesNotContain("re-read " + items);

        p.sql("ALTER TABLE items ADD COLUMN note VARCHAR(20)"); // no row reveals it: re-read
        await()
            .atMost(Duration.ofSeconds(60))
            .alias("the re-read is over (its log: " + serve.log() + ")")
            .until(() -> serve.log().contains("resync of " + items + " (" + ROWS + " rows read)"));
        String log = serve.log();
        assertThat(log).as("its progress, before it was over").contains("re-read " + items + ": ");
        assertThat(log.indexOf("re-read " + items + ": "))
            .isLessThan(log.indexOf("resync of " + items));
      }
    }
  }

  /**
   * The outbox truncated while serving: MySQL/MariaDB hand out its ids from 1 again, and every
   * cached table is read whole again in one snapshot, as long as a start's; its progress shows.
   */
  @Test
  void everyTableReadAgainAfterTheOutboxWasTruncatedShowsItsProgress() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.MYSQL,
            "reread_all_progress",
            List.of("CREATE TABLE items (id INT PRIMARY KEY, v VARCHAR(40))"),
            "items")) {
      String items = p.db.table("items");
      try (ServeProcess serve = serve(p, items);
          TablecastClient client =
              TablecastClient.builder()
                  .servers("127.0.0.1:" + serve.awaitStarted(Duration.ofSeconds(60)))
                  .build()) {
        TableMirror<Map<String, Object>> mirror = client.mirror(items);
        assertThat(mirror.awaitReady(Duration.ofSeconds(30))).isTrue();
        for (int i = 1; i <= 5; i++) {
          p.sql("INSERT INTO " + items + " VALUES (" + i + ", 'before')");
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> mirror.get(5) != null);
        assertThat(serve.log()).doesNotContain("re-read of every table");

        p.sql("TRUNCATE TABLE " + p.db.table("tablecast_outbox"));
        await()
            .atMost(Duration.ofSeconds(60))
            .alias("every table read again, its progress shown (the log: " + serve.log() + ")")
            .until(() -> serve.log().contains("re-read of every table: "));
        p.sql("INSERT INTO " + items + " VALUES (6, 'after')");
        await().atMost(Duration.ofSeconds(30)).until(() -> mirror.get(6) != null);
      }
    }
  }

  /** {@code bin/tablecast serve} on {@code table}, the first progress line of any work at once. */
  private ServeProcess serve(Pipeline p, String table) throws Exception {
    Path cfg = dir.resolve("tablecast.yaml");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "server_name: reread-progress",
            "listen: { host: 127.0.0.1, port: 0 }",
            "source:",
            "  jdbc_url: '" + p.db.jdbcUrl() + "'",
            "  install_triggers: true",
            "  capture_check_interval: 1s",
            "cached_tables: [" + table + "]",
            ""));
    return ServeProcess.start(cfg, dir.resolve("serve.log"), "-Dtablecast.progress.delay_ms=0");
  }
}
