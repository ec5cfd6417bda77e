package io.tablecast.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.row.RowForm;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How a typed mirror's row is written to and read from its warm-restart file: as its type's JSON,
 * written and read by the mapper without a tree (what {@code MirrorPersistence} does), against the
 * row form, which a typed row reaches through a tree ({@code valueToTree}, then encoded) and leaves
 * through one ({@code toNode}, then {@code treeToValue}). One row of {@code bench_rows}; no
 * database. Run it alone with JMH:
 *
 * <pre>
 * java -cp bench/target/tablecast-bench.jar org.openjdk.jmh.Main TypedRowFileBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TypedRowFileBenchmark {
  private static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("version", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("name", "varchar(32)", ColumnKind.STRING),
          new ColumnInfo("price", "decimal(10,2)", ColumnKind.DECIMAL),
          new ColumnInfo("qty", "int", ColumnKind.INTEGER));

  private final ObjectMapper mapper =
      MessageCodec.jsonMapper()
          .copy()
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private final RowForm form = new RowForm(COLUMNS, List.of("id"));
  private final BenchTable.Row row =
      new BenchTable.Row(123_456L, 3L, "name-123456", new BigDecimal("12.50"), 42);
  private byte[] json;
  private byte[] packed;

  @Setup
  public void setUp() throws IOException {
    json = writeJson();
    packed = writeRowForm();
  }

  @Benchmark
  public byte[] writeJson() throws IOException {
    return mapper.writeValueAsBytes(row);
  }

  @Benchmark
  public byte[] writeRowForm() {
    JsonNode tree = mapper.valueToTree(row);
    ObjectNode image = mapper.createObjectNode();
    for (ColumnInfo c : COLUMNS) {
      JsonNode v = tree.get(c.name());
      image.set(c.name(), v.isBigDecimal() ? image.textNode(v.decimalValue().toPlainString()) : v);
    }
    return form.encode(image);
  }

  @Benchmark
  public BenchTable.Row readJson() throws IOException {
    return mapper.readValue(json, 0, json.length, BenchTable.Row.class);
  }

  @Benchmark
  public BenchTable.Row readRowForm() throws IOException {
    return mapper.treeToValue(form.toNode(packed), BenchTable.Row.class);
  }
}
