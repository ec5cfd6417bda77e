package io.tablecast.server.capture;

/**
 * Validates identifiers that go into generated SQL, for every database, and quotes literals. Any
 * name the database accepts is quoted ({@link Dialect#quote}) so that it stays one identifier
 * (quote characters doubled), except names holding a backslash, NUL or a control character: whether
 * a backslash escapes in a MySQL string literal depends on the session's {@code sql_mode}, so such
 * names are refused rather than guessed at. Each database adds its limit ({@link
 * Dialect#checkLength}) and, in its {@link Dialect#checkTable}, what its generated code cannot
 * carry.
 */
public final class Identifiers {
  private Identifiers() {}

  /**
   * Refuses names that generated SQL cannot carry safely or that exceed the database's limit.
   *
   * @param what what the name is, for the message ("table", "column", "schema")
   */
  public static String validate(Dialect dialect, String what, String name) {
    refuseUnsafe(what, name);
    dialect.checkLength(what, name);
    return name;
  }

  /**
   * Refuses a name that generated SQL cannot carry safely in any database: empty, or holding a
   * backslash, NUL or a control character.
   *
   * @param what what the name is, for the message ("table", "column", "schema")
   */
  public static void refuseUnsafe(String what, String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(what + " name must not be empty");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '\\' || c == 0 || Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            what
                + " name '"
                + printable(name)
                + "' contains a character Tablecast "
                + "does not accept in identifiers (backslash, NUL or a control character); rename it to cache the table");
      }
    }
  }

  /**
   * A string literal of a validated text (which holds no backslash): single quotes, doubled inside,
   * which both databases read the same whatever their escaping settings.
   */
  public static String literal(String text) {
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
