package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.testing.TestDatabases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A server process with a real small heap ({@code -Xmx64m}) on a PostgreSQL table of 1,000,000
 * rows, whose images need about 64 MiB: it refuses to start, naming the table and {@code -Xmx},
 * instead of dying of an {@code OutOfMemoryError}, both when the catalog's estimate is right
 * (before the first row) and when it is far too low (statistics from when the table had 1,000 rows:
 * while loading). Before, both runs ended in "initial snapshot failed: Java heap space".
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the statistics are out of date, then not
class HeapLimitForkTest {

  private static final int ROWS = 1_000_000;
  private static TestDatabases.Isolated db;

  @BeforeAll
  static void table() {
    db = TestDatabases.Kind.POSTGRESQL.isolated("heap_fork");
    db.execute(
        "CREATE TABLE items (id BIGINT PRIMARY KEY, name TEXT NOT NULL) "
            + "WITH (autovacuum_enabled = false)",
        "INSERT INTO items SELECT n, 'item ' || n FROM generate_series(1, 1000) n",
        "ANALYZE items",
        "INSERT INTO items SELECT n, 'item ' || n FROM generate_series(1001, " + ROWS + ") n");
  }

  /** Runs {@link HeapLimitMain} in a JVM of {@code -Xmx64m}; returns its exit code and output. */
  private static Result serve() throws IOException, InterruptedException {
    Path out = Files.createTempFile("heap-fork", ".log");
    try {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx64m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  HeapLimitMain.class.getName(),
                  db.jdbcUrl(),
                  "items")
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("the server process did not end in 120 s");
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }

  record Result(int exit, String output) {}

  @Test
  @Order(1)
  void aTableFarBiggerThanItsStatisticsSayIsRefusedWhileLoadingNotByOutOfMemory() throws Exception {
    Result r = serve(); // the catalog says 1,000 rows
    assertThat(r.output).doesNotContain("OutOfMemoryError").doesNotContain("Java heap space");
    assertThat(r.exit).as(r.output).isEqualTo(3);
    assertThat(r.output)
        .contains("table " + db.table("items") + " does not fit in the heap")
        .contains("rows loaded of 1,000")
        .contains("TABLECAST_JAVA_OPTS=-Xmx");
  }

  @Test
  @Order(2)
  void aTableBiggerThanTheHeapIsRefusedBeforeItsFirstRowWhenTheCatalogKnowsItsSize()
      throws Exception {
    db.execute("ANALYZE items");
    Result r = serve();
    assertThat(r.output).doesNotContain("OutOfMemoryError").doesNotContain("Java heap space");
    assertThat(r.exit).as(r.output).isEqualTo(3);
    assertThat(r.output)
        .contains("the cached tables do not fit in the heap")
        .contains(db.table("items") + ": about 1,000,000 rows (catalog estimate)")
        .contains("TABLECAST_JAVA_OPTS=-Xmx");
  }
}
