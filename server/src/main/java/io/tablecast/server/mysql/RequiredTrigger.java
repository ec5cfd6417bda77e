package io.tablecast.server.mysql;

import io.tablecast.server.capture.TableId;
import java.util.List;

/**
 * A capture trigger a cached table needs now, and whether the catalog shows it: one of the table's
 * own triggers, or (MySQL/MariaDB) a key-recording trigger of a parent whose foreign-key actions
 * change the table without firing its triggers. Read by {@link MysqlDialect#captureStatus}.
 *
 * @param cachedTable the cached table whose changes the trigger records
 * @param on the table the trigger is on: {@code cachedTable} itself, or a parent (cached or not)
 * @param name the trigger's name (it ends with a hash of its body: a stale body is a missing name)
 * @param foreignKeys for a parent's trigger, the foreign keys along which its recorded changes
 *     reach {@code cachedTable}; empty for the table's own triggers
 * @param presence whether the catalog shows it
 * @param goneDefiner the account it runs as, with presence {@link Presence#DEFINER_GONE}; else null
 */
public record RequiredTrigger(
    TableId cachedTable,
    TableId on,
    String name,
    List<String> foreignKeys,
    Presence presence,
    String goneDefiner) {

  /** What the catalog says about a trigger. */
  public enum Presence {
    PRESENT,
    MISSING,
    /**
     * The connection's user cannot see the triggers of {@code on} (MySQL/MariaDB show triggers only
     * to holders of the TRIGGER privilege on the table, which a serving user should lack).
     */
    NOT_VISIBLE,
    /**
     * Present, but the account it runs as (its {@code DEFINER}) no longer exists: every write of
     * {@code on} fails ({@link TriggerDefiners}).
     */
    DEFINER_GONE
  }

  public RequiredTrigger {
    foreignKeys = List.copyOf(foreignKeys);
  }

  /** Whether this is a parent's key-recording trigger rather than the table's own. */
  public boolean recordsCascades() {
    return !foreignKeys.isEmpty();
  }
}
