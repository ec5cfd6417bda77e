package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.testing.TestDatabases;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warning about slow reads of the outbox carries the database's plan for the tail's read, as it
 * would run next: what shows a read gone wrong (the scan the planner chose, JIT).
 */
class PgReadPlanTest {

  @Test
  void theSlowReadsWarningShowsThePlanOfTheTailsRead() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("read_plan");
    db.execute("CREATE TABLE planned (id INT PRIMARY KEY, v INT)");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("planned"), true, null, null);
    try (PgChangeSource source = (PgChangeSource) ChangeSources.open(config)) {
      source.snapshot((t, row) -> {});
      assertThat(source.readPlan())
          .startsWith("The database's plan for the read (EXPLAIN; if its row estimates are far")
          .contains("ANALYZE \"" + db.schema() + "\".\"tablecast_outbox\"")
          .contains("on tablecast_outbox")
          .contains("txid");
    }
  }
}
