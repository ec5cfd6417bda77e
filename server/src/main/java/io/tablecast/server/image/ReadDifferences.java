package io.tablecast.server.image;

import io.tablecast.server.tail.RowEvent;
import java.util.List;

/**
 * What a read of a table found against its image: the events that make the image agree with it, and
 * how many of the rows read shared their primary key with another row read (a PostgreSQL parent's
 * key does not bind its inheritance children), which no image can hold: one row per key.
 *
 * @param events the differences to publish
 * @param duplicateRows rows read beyond one per key; -1 when the read was not a whole table (a key
 *     range that does not end a reconciliation pass)
 */
record ReadDifferences(List<RowEvent> events, long duplicateRows) {

  /**
   * Whether the read covered the whole table, so that {@link #duplicateRows} counts all of them.
   */
  boolean whole() {
    return duplicateRows >= 0;
  }
}
