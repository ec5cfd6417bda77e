package io.tablecast.bench;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.util.List;

/**
 * The benchmark table ({@link BenchTable}) as the server's image holds it, for benchmarks of the
 * image without a database ({@link ReconcilePassOnce}, {@link SnapshotCopyOnce}). A class of its
 * own, not part of {@code BenchTable}: those benchmarks run an older build's server classes by
 * putting its jar first on the class path, and that jar's {@code BenchTable} would hide new
 * methods.
 */
final class BenchImageRows {
  private BenchImageRows() {}

  /** The table as the server describes it. */
  static TableSchema schema() {
    return new TableSchema(
        new TableId("public", BenchTable.NAME),
        List.of(
            new ColumnInfo("id", "int8", ColumnKind.INTEGER),
            new ColumnInfo("version", "int8", ColumnKind.INTEGER),
            new ColumnInfo("name", "varchar", ColumnKind.STRING),
            new ColumnInfo("price", "numeric", ColumnKind.DECIMAL),
            new ColumnInfo("qty", "int4", ColumnKind.INTEGER)),
        List.of("id"));
  }

  /** Row {@code id} as {@code BenchTable.create} fills it, at {@code version}, in {@code form}. */
  static byte[] row(RowForm form, long id, long version) {
    ObjectNode row = JsonNodeFactory.instance.objectNode();
    row.put("id", id).put("version", version).put("name", "row-" + id);
    row.put("price", (id % 1000) + ".99").put("qty", id % 100);
    return form.encode(row);
  }
}
