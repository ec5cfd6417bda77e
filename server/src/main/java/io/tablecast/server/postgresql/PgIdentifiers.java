package io.tablecast.server.postgresql;

import io.tablecast.server.capture.TableId;
import java.nio.charset.StandardCharsets;

/**
 * PostgreSQL identifiers: quoted with double quotes (doubled inside), at most 63 bytes, and never
 * holding the dollar-quote tag of the generated PL/pgSQL.
 */
final class PgIdentifiers {
  static final int MAX_BYTES = 63;

  private PgIdentifiers() {}

  /** A validated identifier in double quotes. */
  static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  static String quote(TableId id) {
    return quote(id.schema()) + "." + quote(id.name());
  }

  /**
   * @param database the dialect's name, for the message
   */
  static void checkLength(String database, String what, String name) {
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_BYTES) {
      throw new IllegalArgumentException(
          what
              + " name '"
              + name
              + "' is longer than "
              + MAX_BYTES
              + " bytes, the "
              + database
              + " limit");
    }
  }

  /**
   * Refuses a schema or table name holding {@link PgTriggers#DOLLAR_TAG}, which would end the
   * dollar-quoted PL/pgSQL the name is written into.
   */
  static void refuseDollarTag(String what, String name) {
    if (name.contains(PgTriggers.DOLLAR_TAG)) {
      throw new IllegalArgumentException(
          what
              + " name '"
              + name
              + "' contains "
              + PgTriggers.DOLLAR_TAG
              + ", the dollar-quote tag of Tablecast's generated PL/pgSQL; rename it to cache the table");
    }
  }
}
