package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableSchema;

/** The MySQL family's package-private read SQL, for the tests of other packages. */
public final class MysqlQueries {
  private MysqlQueries() {}

  /** {@link MysqlTriggers#rowsByKey}: the tail's read of changed rows by key. */
  public static String rowsByKey(TableSchema table, int keys) {
    return MysqlTriggers.rowsByKey(MysqlFlavor.MARIADB, table, keys);
  }
}
