package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;

/** MySQL/MariaDB identifiers: quoted with backticks (doubled inside), at most 64 characters. */
final class MysqlIdentifiers {
  static final int MAX_LENGTH = 64;

  private MysqlIdentifiers() {}

  /** A validated identifier in backticks. */
  static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  static String quote(TableId id) {
    return quote(id.schema()) + "." + quote(id.name());
  }

  /**
   * @param database the dialect's name, for the message
   */
  static void checkLength(String database, String what, String name) {
    if (name.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          what
              + " name '"
              + name
              + "' is longer than "
              + MAX_LENGTH
              + " characters, the "
              + database
              + " limit");
    }
  }
}
