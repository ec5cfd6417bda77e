package io.tablecast.server.mysql;

/**
 * Where MariaDB and MySQL 8 differ for Tablecast, every difference in one place. The MySQL family's
 * code reads these values and never asks which flavor it runs on. Only MariaDB runs in this
 * project's tests and benchmarks (MySQL 8 runs where Testcontainers starts it, see DEVELOPERS.md);
 * docs/TYPES.md lists the differences for users.
 */
enum MysqlFlavor {
  MARIADB(
      "LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
      "LOCK IN SHARE MODE NOWAIT",
      true,
      true),
  /** MySQL 8. */
  MYSQL("JSON", "FOR SHARE NOWAIT", false, false);

  /**
   * The type of the outbox's key columns: MariaDB's JSON is a LONGTEXT alias whose comparisons
   * follow the default collation, so the outbox says binary collation outright.
   */
  final String outboxKeyType;

  /** How a locking read that fails at once on a locked row is written ({@link LockProbe}). */
  final String lockNowait;

  /**
   * Whether {@code information_schema.CHECK_CONSTRAINTS} exists: always on MariaDB, where it tells
   * a JSON column (a LONGTEXT with a {@code json_valid} check); missing on MySQL 8.0.15 and older,
   * where JSON is a type of its own and the query's failure is ignored.
   */
  final boolean checkConstraintsRequired;

  /**
   * Whether {@code JSON_OBJECT} embeds a DATE, TIME, DATETIME or DOUBLE value as its text, so that
   * such a column can be read as its text ({@link MysqlTypes#readAsText}): MariaDB does (checked on
   * zero dates, times beyond a day, and doubles from the smallest normal to 1e300); MySQL 8 turns a
   * date-time into a JSON date-time, printed with six fraction digits whatever the column's, and
   * its printing of doubles in JSON was never compared here.
   */
  final boolean jsonObjectEmbedsTexts;

  MysqlFlavor(
      String outboxKeyType,
      String lockNowait,
      boolean checkConstraintsRequired,
      boolean jsonObjectEmbedsTexts) {
    this.outboxKeyType = outboxKeyType;
    this.lockNowait = lockNowait;
    this.checkConstraintsRequired = checkConstraintsRequired;
    this.jsonObjectEmbedsTexts = jsonObjectEmbedsTexts;
  }

  /**
   * {@code select} (a statement beginning with {@code SELECT}) waiting at most {@code seconds} for
   * the metadata lock of each table it reads ({@code lock_wait_timeout} for that statement alone),
   * so that DDL queued on a table cannot hold it for longer ({@link LockedTables}): MariaDB's
   * {@code SET STATEMENT ... FOR}, MySQL 8's {@code SET_VAR} hint (never run here).
   */
  String boundedLockWait(String select, int seconds) {
    if (!select.startsWith("SELECT ")) {
      throw new IllegalArgumentException("not a SELECT: " + select);
    }
    return this == MARIADB
        ? "SET STATEMENT lock_wait_timeout = " + seconds + " FOR " + select
        : "SELECT /*+ SET_VAR(lock_wait_timeout = " + seconds + ") */ " + select.substring(7);
  }

  /** The flavor of a server whose {@code SELECT VERSION()} is {@code version}. */
  static MysqlFlavor of(String version) {
    return version != null && version.contains("MariaDB") ? MARIADB : MYSQL;
  }
}
