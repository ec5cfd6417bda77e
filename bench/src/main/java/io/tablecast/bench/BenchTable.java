package io.tablecast.bench;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.LongConsumer;

/** The benchmark table: five columns of common types, filled with deterministic rows. */
public final class BenchTable {
  public static final String NAME = "bench_rows";
  public static final String DDL =
      "CREATE TABLE bench_rows (id BIGINT NOT NULL PRIMARY KEY, version BIGINT NOT NULL, "
          + "name VARCHAR(32) NOT NULL, price DECIMAL(10,2) NOT NULL, qty INT NOT NULL)";

  /**
   * Declared payload bytes of one row: BIGINT 8 + BIGINT 8 + VARCHAR (~10 chars + 1) +
   * DECIMAL(10,2) 5 + INT 4.
   */
  public static final int DECLARED_ROW_BYTES = 8 + 8 + 11 + 5 + 4;

  /** A typed row, for typed-mirror measurements. */
  public record Row(long id, long version, String name, java.math.BigDecimal price, int qty) {}

  private BenchTable() {}

  /**
   * Creates the table and inserts ids 1..rows with multi-row INSERTs; reports rows inserted so far.
   */
  public static void create(Db.Schema schema, long rows, LongConsumer progress) {
    schema.execute(DDL);
    int perStatement = 1000;
    try (Connection c = schema.connect();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      long id = 1;
      int statements = 0;
      while (id <= rows) {
        StringBuilder sb =
            new StringBuilder(64 * perStatement).append("INSERT INTO bench_rows VALUES ");
        long end = Math.min(rows, id + perStatement - 1);
        for (long i = id; i <= end; i++) {
          if (i > id) {
            sb.append(',');
          }
          sb.append('(')
              .append(i)
              .append(",0,'row-")
              .append(i)
              .append("',")
              .append(i % 1000)
              .append(".99,")
              .append(i % 100)
              .append(')');
        }
        s.execute(sb.toString());
        id = end + 1;
        if (++statements % 20 == 0) {
          c.commit();
          progress.accept(end);
        }
      }
      c.commit();
      progress.accept(rows);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot fill bench_rows: " + e.getMessage(), e);
    }
  }
}
