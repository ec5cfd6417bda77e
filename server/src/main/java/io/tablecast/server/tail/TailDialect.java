package io.tablecast.server.tail;

import io.tablecast.server.capture.Dialect;
import java.util.Map;

/**
 * A {@link Dialect} with what the tail needs of its database: the transaction isolation and driver
 * properties of the source's connections, and its {@link ChangeSource}. Every registered database's
 * dialect implements it ({@link ChangeSources} opens the source through it).
 */
public interface TailDialect extends Dialect {

  /**
   * The isolation level of the source pool's connections, as {@code HikariConfig} names it ({@code
   * TRANSACTION_READ_COMMITTED}, ...): the pool's default, so that nothing needs resetting when a
   * connection is given back.
   */
  String poolIsolation();

  /**
   * A statement each connection of the source pool runs after the dialect's {@code sessionSetup},
   * or null: settings that concern a pooled connection's life, not the SQL the server runs (so
   * {@code tablecast print-sql} does not print them).
   *
   * @param driverOptions the driver options of the source's URL and connection properties, names in
   *     lower case (a setting may depend on how the driver talks to the database)
   */
  default String poolSessionSetup(Map<String, String> driverOptions) {
    return null;
  }

  /** Driver properties of the source pool's connections, beside those of the URL. */
  default Map<String, String> poolProperties() {
    return Map.of();
  }

  /**
   * Driver properties of the source pool's connections where the URL and connection properties do
   * not set them (names as the driver spells them; matched without case).
   */
  default Map<String, String> poolDefaults() {
    return Map.of();
  }

  /**
   * What the database says of its sessions, with which the tail tells a read whose answer was lost
   * from a slow one ({@link LostAnswers}); null when it cannot say, and such a read waits for the
   * operating system to give its connection up.
   */
  default SessionProbe sessions() {
    return null;
  }

  /**
   * The change source of {@code source.plan()}'s tables, reading from {@code source.pool()} (which
   * it closes when closed). Call {@link ChangeSource#snapshot} next.
   */
  ChangeSource open(SourceContext source);
}
