package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * Whether a generic mirror of {@code bench_rows} holds the table as it is, every column compared:
 * the proof of no loss after a run that moved a client or replaced a capture leader.
 */
final class MirrorCheck {
  private MirrorCheck() {}

  /** {@code bench_rows} as it is now: id → (version, name, price, qty). */
  static Map<Long, List<Object>> read(Db.Schema schema) throws SQLException {
    Map<Long, List<Object>> rows = new HashMap<>();
    try (Connection c = schema.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, version, name, price, qty FROM bench_rows")) {
      while (rs.next()) {
        rows.put(
            rs.getLong(1),
            state(rs.getLong(2), rs.getString(3), rs.getBigDecimal(4), rs.getInt(5)));
      }
    }
    return rows;
  }

  /**
   * Compares until the mirror equals {@code table} or {@code timeout} passed, telling {@code
   * progress} how many rows differ between attempts; returns how many differ at the end.
   */
  static int awaitEqual(
      TableMirror<Map<String, Object>> mirror,
      Map<Long, List<Object>> table,
      Duration timeout,
      IntConsumer progress)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int differ;
    while ((differ = differing(mirror, table)) > 0 && System.nanoTime() < deadline) {
      progress.accept(differ);
      Thread.sleep(250);
    }
    return differ;
  }

  /** Rows of the table the mirror lacks or holds otherwise, plus rows it has in excess. */
  static int differing(TableMirror<Map<String, Object>> mirror, Map<Long, List<Object>> table) {
    int differ = Math.max(0, mirror.size() - table.size());
    for (Map.Entry<Long, List<Object>> e : table.entrySet()) {
      Map<String, Object> m = mirror.get(e.getKey());
      if (m == null
          || !state(m.get("version"), m.get("name"), m.get("price"), m.get("qty"))
              .equals(e.getValue())) {
        differ++;
      }
    }
    return differ;
  }

  private static List<Object> state(Object version, Object name, Object price, Object qty) {
    return List.of(
        ((Number) version).longValue(),
        String.valueOf(name),
        new BigDecimal(price.toString()).stripTrailingZeros(),
        ((Number) qty).longValue());
  }
}
