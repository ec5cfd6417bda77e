package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL: the drift check's chunks tile each table in the database's own key order (a
 * composite key of text under the database's collation and an integer), pass after pass, and a
 * chunk whose batch was not handed on is read again.
 */
class PgDriftCheckTest {

  @Test
  void chunksTileTheTableInKeyOrderAndAreReadAgainUntilPublished() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("drift_chunks");
    db.execute("CREATE TABLE items (region text, n int, v text, PRIMARY KEY (region, n))",
        "INSERT INTO items SELECT r, n, r || n FROM unnest(ARRAY['eu', 'EU', 'us', 'Ünï', 'a b']) r, "
            + "generate_series(1, 5) n");
    SourceConfig config = new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null);
    CapturePlan plan;
    try (TriggerInstaller installer = TriggerInstaller.connect(config)) {
      installer.describe();
      installer.install();
      plan = installer.plan();
    }
    List<String> inKeyOrder = new ArrayList<>();
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT region || '/' || n FROM items ORDER BY region, n")) {
      while (rs.next()) {
        inKeyOrder.add(rs.getString(1));
      }
    }
    PgDriftCheck check = new PgDriftCheck(plan, Duration.ofMillis(1), 10);
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      List<String> seen = new ArrayList<>();
      List<CommittedBatch.Chunk> chunks = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        CommittedBatch.TableRead read = check.read(c);
        if (i == 1) { // not handed on (the outbox read failed): the same range comes again
          CommittedBatch.TableRead again = check.read(c);
          assertThat(again.rows()).isEqualTo(read.rows());
        }
        check.published();
        chunks.add(read.chunk());
        read.rows().forEach(r -> seen.add(r.get("region").asText() + "/" + r.get("n").asInt()));
      }
      c.commit();
      assertThat(seen).isEqualTo(inKeyOrder);
      assertThat(chunks).containsExactly(new CommittedBatch.Chunk(true, false), new CommittedBatch.Chunk(false, false),
          new CommittedBatch.Chunk(false, true));
      assertThat(check.read(c).chunk()).as("the next pass").isEqualTo(new CommittedBatch.Chunk(true, false));
      c.rollback();
    }
  }
}
