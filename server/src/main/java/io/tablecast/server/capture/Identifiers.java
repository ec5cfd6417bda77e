package io.tablecast.server.capture;

import java.nio.charset.StandardCharsets;

/**
 * Validates and quotes identifiers that go into generated SQL. Any name the database accepts
 * is quoted so that it stays one identifier (quote characters doubled), except names holding a
 * backslash, NUL or a control character: whether a backslash escapes in a MySQL string literal
 * depends on the session's {@code sql_mode}, so such names are refused rather than guessed at.
 */
final class Identifiers {
  private Identifiers() {}

  /**
   * Refuses names that generated SQL cannot carry safely or that exceed the database's limit.
   *
   * @param what what the name is, for the message ("table", "column", "schema")
   */
  static String validate(Dialect dialect, String what, String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(what + " name must not be empty");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '\\' || c == 0 || Character.isISOControl(c)) {
        throw new IllegalArgumentException(what + " name '" + printable(name) + "' contains a character Tablecast "
            + "does not accept in identifiers (backslash, NUL or a control character); rename it to cache the table");
      }
    }
    int max = dialect == Dialect.POSTGRESQL ? 63 : 64;
    int length = dialect == Dialect.POSTGRESQL ? name.getBytes(StandardCharsets.UTF_8).length : name.length();
    if (length > max) {
      throw new IllegalArgumentException(what + " name '" + name + "' is longer than " + max
          + (dialect == Dialect.POSTGRESQL ? " bytes" : " characters") + ", the " + dialect + " limit");
    }
    return name;
  }

  /**
   * PostgreSQL: refuses a schema or table name holding {@link PgTriggers.DOLLAR_TAG}, which
   * would end the dollar-quoted PL/pgSQL the name is written into.
   */
  static void refuseDollarTag(Dialect dialect, String what, String name) {
    if (dialect == Dialect.POSTGRESQL && name.contains(PgTriggers.DOLLAR_TAG)) {
      throw new IllegalArgumentException(what + " name '" + name + "' contains " + PgTriggers.DOLLAR_TAG
          + ", the dollar-quote tag of Tablecast's generated PL/pgSQL; rename it to cache the table");
    }
  }

  /** Quotes a validated identifier: backticks (MySQL) or double quotes (PostgreSQL), doubled inside. */
  static String quote(Dialect dialect, String name) {
    return dialect == Dialect.POSTGRESQL
        ? "\"" + name.replace("\"", "\"\"") + "\""
        : "`" + name.replace("`", "``") + "`";
  }

  static String quote(Dialect dialect, TableId id) {
    return quote(dialect, id.schema()) + "." + quote(dialect, id.name());
  }

  /**
   * A string literal of a validated text (which holds no backslash): single quotes, doubled
   * inside, which both databases read the same whatever their escaping settings.
   */
  static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  private static String printable(String name) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      sb.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return sb.toString();
  }
}
