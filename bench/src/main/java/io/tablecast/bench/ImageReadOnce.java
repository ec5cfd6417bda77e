package io.tablecast.bench;

import io.tablecast.server.capture.Dialect;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.mysql.MysqlFamily;
import io.tablecast.server.postgresql.PgFamily;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;

/**
 * What the tail spends reading one outbox image, no outbox: PostgreSQL's whole-row image of the
 * benchmark table ({@code to_jsonb(NEW)::text}, as its trigger writes it) read into the row form
 * ({@code RowNormalizer.encodeExact}, once per image of every change), and MySQL's key image
 * ({@code RowNormalizer.keyImage}, once per changed row), and the same row read as its columns'
 * texts ({@code RowNormalizer.encodeColumnTexts}: every row of a snapshot, and every row MySQL's
 * tail reads by key). Each database is asked once for its dialect (the bench's databases, else the
 * shared ones: {@link Db}). Prints the median nanoseconds per image over the rounds after the first
 * three (warm-up). To compare builds, put the other build's server jar first on the class path:
 * {@code java -cp OLD/tablecast-server.jar: tablecast-bench.jar io.tablecast.bench.ImageReadOnce
 * [IMAGES (100000)] [ROUNDS (15)]}.
 */
public final class ImageReadOnce {
  private ImageReadOnce() {}

  public static void main(String[] args) throws SQLException {
    int images = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    TableSchema schema = BenchImageRows.schema();
    RowNormalizer pg = new RowNormalizer(schema, dialect(Db.POSTGRESQL));
    RowNormalizer my = new RowNormalizer(schema, dialect(Db.MARIADB));
    String[] rows = new String[images];
    String[] keys = new String[images];
    String[][] texts = new String[images][];
    for (int i = 0; i < images; i++) {
      long id = 1_000_000L + i * 7919L % 1_000_000L;
      // jsonb prints keys by length, then bytes; MySQL's JSON_OBJECT as the trigger lists them
      rows[i] =
          String.format(
              Locale.ROOT,
              "{\"id\": %d, \"qty\": %d, \"name\": \"row-%d\", \"price\": %d.99, \"version\": %d}",
              id,
              id % 100,
              id,
              id % 1000,
              i % 50);
      keys[i] = "{\"id\": " + id + "}";
      // in table order (BenchImageRows: id, version, name, price, qty)
      texts[i] =
          new String[] {
            Long.toString(id), Long.toString(i % 50), "row-" + id, id % 1000 + ".99", "" + id % 100
          };
    }
    long[] row = new long[rounds];
    long[] key = new long[rounds];
    long[] columns = new long[rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      for (String image : rows) {
        sink += pg.encodeExact(image).length;
      }
      row[r] = System.nanoTime() - start;
      start = System.nanoTime();
      for (String image : keys) {
        sink += my.keyImage(image).key().length;
      }
      key[r] = System.nanoTime() - start;
      start = System.nanoTime();
      for (String[] columnTexts : texts) {
        sink += my.encodeColumnTexts(columnTexts).length;
      }
      columns[r] = System.nanoTime() - start;
    }
    System.out.printf(
        Locale.ROOT,
        "%d images, %d rounds: PostgreSQL whole-row image %.0f ns, MySQL key image %.0f ns, a row"
            + " as column texts %.0f ns (median per image of the rounds after the first three;"
            + " the first round's: %.0f, %.0f, %.0f ns; %d)%n",
        images,
        rounds,
        median(row, 3) / images,
        median(key, 3) / images,
        median(columns, 3) / images,
        row[0] / (double) images,
        key[0] / (double) images,
        columns[0] / (double) images,
        sink & 1);
  }

  private static Dialect dialect(Db db) throws SQLException {
    try (Connection c = DriverManager.getConnection(db.baseUrl())) {
      return db.mysqlFamily() ? new MysqlFamily().detect(c) : new PgFamily().detect(c);
    }
  }

  private static double median(long[] times, int skip) {
    long[] kept = Arrays.copyOfRange(times, Math.min(skip, times.length - 1), times.length);
    Arrays.sort(kept);
    return kept[kept.length / 2];
  }
}
