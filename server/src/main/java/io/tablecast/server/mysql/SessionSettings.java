package io.tablecast.server.mysql;

/**
 * MySQL/MariaDB: the statement every connection of the server runs first ({@link
 * MysqlDialect#sessionSetup}), so that its sessions are the same whatever the database's global
 * settings, or a {@code sessionVariables} option in the URL, say.
 *
 * <ul>
 *   <li>{@code sql_mode}: the modes both MySQL 8 and MariaDB know that change nothing the server
 *       reads. A global ANSI_QUOTES, NO_BACKSLASH_ESCAPES, PIPES_AS_CONCAT or ORACLE changes how
 *       its SQL parses and how the catalog prints expressions (a JSON column's {@code json_valid}
 *       check in double quotes was taken for text); the capture triggers keep the mode they were
 *       created in.
 *   <li>{@code time_zone = SYSTEM}: {@code innodb_trx.trx_started} is the server process's local
 *       time, whatever the session's zone, and the gap rule compares it with the database's clock
 *       ({@link TrxLooks}); every other time the server reads goes through {@code UNIX_TIMESTAMP}.
 *   <li>No limit on its statements: a whole-table read takes as long as the table is large (MariaDB
 *       {@code max_statement_time}, MySQL {@code max_execution_time}; cut short, it was retried for
 *       ever), returns every row ({@code sql_select_limit} cut it without a word) and examines them
 *       all ({@code max_join_size} refuses that unless {@code sql_big_selects}).
 *   <li>{@code wait_timeout} at the databases' default, 8 hours: a global one of seconds or minutes
 *       (set to reap the connections of interactive clients or of leaking applications) closed the
 *       pool's idle connections under it, and each next use found its connection dead (a WARN of
 *       the pool, a new connection on the tail's path). The pool ends its connections itself, idle
 *       ones after 10 minutes and every one after 30.
 *   <li>MariaDB: no {@code idle_transaction_timeout}, {@code idle_readonly_transaction_timeout} or
 *       {@code idle_write_transaction_timeout} (10.3+; MySQL has none): a global one ended the
 *       session of a read whose transaction waited for the server longer than it (the rows a whole
 *       read handed on, a loaded machine, a collection), and the read failed. A read whose answer
 *       is lost is given up on and its session ended by the server itself ({@code
 *       tail.LostAnswers}).
 * </ul>
 */
final class SessionSettings {
  private SessionSettings() {}

  static String statement(MysqlFlavor flavor) {
    return "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,"
        + "NO_ENGINE_SUBSTITUTION', time_zone = 'SYSTEM', "
        + (flavor == MysqlFlavor.MARIADB ? "max_statement_time = 0" : "max_execution_time = 0")
        + ", sql_select_limit = 18446744073709551615, sql_big_selects = 1, sql_safe_updates = 0"
        + ", wait_timeout = 28800"
        + (flavor == MysqlFlavor.MARIADB
            ? ", idle_transaction_timeout = 0, idle_readonly_transaction_timeout = 0"
                + ", idle_write_transaction_timeout = 0"
            : "");
  }
}
