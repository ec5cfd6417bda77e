package io.tablecast.cli;

import io.tablecast.client.MirrorShape;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The rows and columns {@code watch} and {@code dump} ask the server for: a subscription shape
 * (docs/CLIENT.md, Subscription shapes), applied by the server as for any client.
 */
final class ShapeOptions {

  @Option(
      names = "--filter",
      paramLabel = "CONDITION",
      description = {
        "Only the rows for which this holds, applied by the server: a small part of SQL's WHERE, "
            + "e.g. \"region = 'eu' AND price < 100\" (docs/CLIENT.md, Subscription shapes). A "
            + "row that starts or stops matching shows as an INSERT or a DELETE."
      })
  String filter;

  @Option(
      names = "--columns",
      split = ",",
      paramLabel = "COLUMN",
      description = "Only these columns besides the primary key, comma-separated")
  List<String> columns;

  /** The shape asked for; null for the whole table. */
  MirrorShape shape() {
    if (filter == null && columns == null) {
      return null;
    }
    MirrorShape shape = filter == null ? MirrorShape.allRows() : MirrorShape.rows(filter);
    return columns == null ? shape : shape.columns(columns.toArray(new String[0]));
  }
}
