package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.internal.RowIndex;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * What a secondary index holds per row beside the rows, counted object by object (JOL), on rows of
 * the benchmark's shape ({@code bench_rows}: id, version, a 10-character name, a decimal price,
 * qty): a unique hash index on the name (one row per key), a hash index on qty (100 keys of 200
 * rows) and a sorted index on the price (1,000 keys of 20 rows). The figures are printed for
 * docs/BENCHMARKS.md; the bounds fail a change that makes an entry much bigger.
 */
class IndexFootprintTest {
  static final int ROWS = 20_000;

  static {
    // JOL reads field offsets without attaching an agent to this JVM
    System.setProperty("jol.magicFieldOffset", "true");
  }

  /** The benchmark's typed row. */
  public record Row(long id, long version, String name, BigDecimal price, int qty) {}

  private static double bytesPerRow(IndexDefinition<Row> definition) {
    MirrorRows<Row> rows =
        new MirrorRows<>(new MirrorIndexes<>("bench.bench_rows", (i, k, p) -> {}));
    rows.addIndex(definition);
    RowIndex<Row> fresh = new RowIndex<>(ROWS);
    for (long id = 1; id <= ROWS; id++) {
      fresh.put(
          id,
          new Row(
              id,
              0,
              "row-" + (100_000 + id),
              new BigDecimal((id % 1000) + ".99"),
              (int) (id % 100)));
    }
    rows.replace(fresh, 1);
    List<SecondaryIndex<Row>> indexes = rows.indexes.all();
    assertThat(indexes.get(0).allKeys()).hasSize(ROWS);
    // Sizes only, never GraphLayout.subtract: subtract matches objects by address, and a GC that
    // moves the rows between the two address reads counted them as the index's (118 bytes per
    // row in one CI run). Each walk's own total is exact whatever the GC does.
    long indexAndRows = GraphLayout.parseInstance(indexes.get(0), fresh).totalSize();
    long beside = indexAndRows - GraphLayout.parseInstance(fresh).totalSize();
    // the definition and its key function are per index, not per row
    long definitionBytes = GraphLayout.parseInstance(definition).totalSize();
    double perRow = (beside - definitionBytes) / (double) ROWS;
    System.out.printf("%s: %.1f bytes per row beside the rows%n", definition, perRow);
    return perRow;
  }

  @Test
  void aUniqueHashIndexHoldsAtMost72BytesPerRow() {
    assertThat(bytesPerRow(IndexDefinition.<Row>hash("by_name", Row::name).unique()))
        .isLessThanOrEqualTo(72);
  }

  @Test
  void aHashIndexWithManyRowsPerKeyHoldsAtMost80BytesPerRow() {
    assertThat(bytesPerRow(IndexDefinition.<Row>hash("by_qty", Row::qty))).isLessThanOrEqualTo(80);
  }

  @Test
  void aSortedIndexHoldsAtMost88BytesPerRow() {
    assertThat(bytesPerRow(IndexDefinition.<Row>sorted("by_price", Row::price)))
        .isLessThanOrEqualTo(88);
  }
}
