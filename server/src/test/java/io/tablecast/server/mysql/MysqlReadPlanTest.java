package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.testing.TestDatabases;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warning about slow reads of the outbox carries MySQL's or MariaDB's plan for the tail's next
 * read, as PostgreSQL's does: the access type, key and row estimate that show a read gone wrong (a
 * scan of the whole outbox where a range of its primary key should do).
 */
class MysqlReadPlanTest {

  @Test
  void theSlowReadsWarningShowsThePlanOfTheTailsRead() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("read_plan");
    db.execute("CREATE TABLE planned (id INT PRIMARY KEY, v INT)");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("planned"), true, null, null);
    try (MysqlChangeSource source = (MysqlChangeSource) ChangeSources.open(config)) {
      source.snapshot((t, row) -> {});
      assertThat(source.readPlan())
          .startsWith("The database's plan for the read (EXPLAIN; if its row estimates are far")
          .contains("ANALYZE TABLE `" + db.schema() + "`.`tablecast_outbox`")
          .contains("table=tablecast_outbox")
          .contains("key=PRIMARY")
          .contains("type=range");
    }
  }
}
