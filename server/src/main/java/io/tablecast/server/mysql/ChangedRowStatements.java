package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statements that read changed rows by key ({@link ChangedRows}), made once per table version
 * and kept for the tail's next reads: making a table's row select looks at every column (how it
 * reads as text, how its name is quoted), 3-6 µs for a table of five columns, at every read of a
 * busy tail (about a thousand a second), where a kept one costs tens of nanoseconds
 * (docs/BENCHMARKS.md, "The server's CPU per 1,000 changes against the start, again"). The
 * statements for up to {@link #KEPT_SIZES} keys are kept whole, a busy tail's common reads; more
 * keys are joined from the kept head. A table's entry is made again when the plan describes it by
 * another version (after {@code ALTER TABLE}), so there is one entry per cached table.
 */
final class ChangedRowStatements {
  /** Numbers of keys whose whole statements are kept, from 1. */
  static final int KEPT_SIZES = 32;

  private final MysqlFlavor flavor;
  private final Map<TableId, Statements> byTable = new ConcurrentHashMap<>();

  /** One table version's select and statements; {@code bySize} filled as sizes are asked. */
  private static final class Statements {
    final TableSchema table;
    final MysqlTriggers.RowSelect select;
    final MysqlTriggers.RowsByKey rowsByKey;
    final String[] bySize = new String[KEPT_SIZES + 1];

    Statements(MysqlFlavor flavor, TableSchema table, MysqlTriggers.RowSelect select) {
      this.table = table;
      this.select = select;
      this.rowsByKey = MysqlTriggers.RowsByKey.of(flavor, table, select);
    }
  }

  ChangedRowStatements(MysqlFlavor flavor) {
    this.flavor = flavor;
  }

  /** How the rows of {@code table} are selected: their columns as texts, or as JSON. */
  MysqlTriggers.RowSelect select(TableSchema table) {
    return of(table).select;
  }

  /**
   * The statement that reads the rows of {@code keys} keys of {@code table} ({@link
   * MysqlTriggers#rowsByKey}).
   */
  String rowsByKey(TableSchema table, int keys) {
    Statements s = of(table);
    if (keys > KEPT_SIZES) {
      return s.rowsByKey.sql(keys);
    }
    String sql = s.bySize[keys];
    if (sql == null) { // a race makes the same string twice, and either is right
      sql = s.rowsByKey.sql(keys);
      s.bySize[keys] = sql;
    }
    return sql;
  }

  @SuppressWarnings("ReferenceEquality") // the plan's own version of the table: equal is not enough
  private Statements of(TableSchema table) {
    Statements s = byTable.get(table.id());
    if (s == null || s.table != table) { // new, or another version of the table
      s = new Statements(flavor, table, MysqlTriggers.rowSelect(flavor, table));
      byTable.put(table.id(), s);
    }
    return s;
  }
}
