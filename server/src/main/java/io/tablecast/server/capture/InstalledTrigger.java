package io.tablecast.server.capture;

/**
 * A capture trigger present in the catalog: the table it is on, its name, and the cached table it
 * captures for. Found by what it does, not by configuration ({@link Dialect#installedTriggers}), so
 * that triggers of tables since removed from {@code cached_tables} are found too.
 *
 * @param table the relation the trigger is on
 * @param name the trigger's name
 * @param owner the cached table whose changes it records: {@code table} itself, except on
 *     PostgreSQL partitions and inheritance children, whose triggers record their rows as rows of
 *     the cached ancestor, and on MySQL parents, whose key-recording triggers record the rows of a
 *     cached table their foreign-key actions change
 */
public record InstalledTrigger(TableId table, String name, TableId owner) {
  /** A trigger that captures the table it is on. */
  public InstalledTrigger(TableId table, String name) {
    this(table, name, table);
  }
}
