package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.tail.ChangeSource;
import io.tablecast.server.tail.ChangeSources;
import io.tablecast.server.tail.HeapTooSmallException;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestHeap;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A table bigger than the heap is refused at start, before its rows are read, naming every table
 * with the rows the catalog estimates and the bytes a row of its first rows takes, the heap there
 * is and the setting to change (docs/GUARANTEES.md, A table bigger than the heap). A heap of the
 * test's own (4 MiB) makes it deterministic; {@link HeapLimitForkTest} runs a real small heap.
 */
class HeapSizingTest {

  private static final int ROWS = 50_000;

  private static TestDatabases.Isolated tables(TestDatabases.Kind kind) {
    TestDatabases.Isolated db = kind.isolated("heap_sizing");
    db.execute(
        "CREATE TABLE items (id BIGINT PRIMARY KEY, name VARCHAR(100) NOT NULL)",
        "CREATE TABLE countries (code CHAR(2) PRIMARY KEY, name VARCHAR(100) NOT NULL)",
        "INSERT INTO countries VALUES ('fr', 'France'), ('de', 'Germany')");
    List<String> inserts = new ArrayList<>();
    for (int from = 1; from <= ROWS; from += 1000) {
      StringBuilder sql = new StringBuilder("INSERT INTO items VALUES ");
      for (int id = from; id < from + 1000; id++) {
        sql.append(id == from ? "" : ", ").append("(").append(id).append(", 'item ").append(id);
        sql.append("')");
      }
      inserts.add(sql.toString());
    }
    db.execute(inserts.toArray(String[]::new));
    db.execute(
        kind == TestDatabases.Kind.MYSQL
            ? "ANALYZE TABLE items, countries"
            : "ANALYZE items, countries");
    return db;
  }

  private static ServerConfig config(TestDatabases.Isolated db) {
    return ServerConfig.builder()
        .listen("127.0.0.1", 0)
        .source(
            new SourceConfig(
                db.jdbcUrl(), null, null, List.of("items", "countries"), true, null, null))
        .build();
  }

  private static ChangeSource open(SourceConfig s) {
    try {
      return ChangeSources.open(s);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static TablecastServer start(TestDatabases.Isolated db, TestHeap heap)
      throws InterruptedException {
    return TablecastServer.start(
        config(db),
        HeapSizingTest::open,
        Authenticator.allowAll(),
        MicrometerServerMetrics.prometheus(),
        heap);
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aTableBiggerThanTheHeapIsRefusedAtStartNamingItTheMemoryAndTheSetting(
      TestDatabases.Kind kind) {
    TestDatabases.Isolated db = tables(kind);
    TestHeap heap = new TestHeap(4L << 20, 1L << 20);

    assertThatThrownBy(() -> start(db, heap).close())
        .isInstanceOf(IllegalStateException.class)
        .hasRootCauseInstanceOf(HeapTooSmallException.class)
        .hasMessageContaining("the cached tables do not fit in the heap")
        .hasMessageContaining(db.table("items") + ": about ")
        .hasMessageContaining("rows (catalog estimate) x ")
        .hasMessageContaining("bytes a row (measured on its first 1,000)")
        .hasMessageContaining(db.table("countries") + ": 2 rows")
        .hasMessageContaining("maximum heap 4 MiB")
        .hasMessageContaining("heap_reserve_percent")
        .hasMessageContaining("TABLECAST_JAVA_OPTS=-Xmx");
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void tablesThatFitAreServedWhole(TestDatabases.Kind kind) throws Exception {
    TestDatabases.Isolated db = tables(kind);
    try (TablecastServer server = start(db, new TestHeap(64L << 20, 1L << 20))) {
      assertThat(server.hub().tableNames())
          .containsExactlyInAnyOrder(db.table("items"), db.table("countries"));
    }
  }
}
