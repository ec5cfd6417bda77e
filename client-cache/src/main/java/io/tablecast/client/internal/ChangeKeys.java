package io.tablecast.client.internal;

import io.tablecast.client.internal.MirrorSink.RowChange;
import io.tablecast.protocol.Message.Change;
import io.tablecast.protocol.Op;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The keys of a batch's changes of one table, as {@link TableFeed} applies them. */
final class ChangeKeys {
  private static final Logger log = LoggerFactory.getLogger(ChangeKeys.class);

  private ChangeKeys() {}

  /** The changes with their keys (and the previous key of an update that changed it). */
  static List<RowChange> keyed(String table, List<Change> changes, List<String> primaryKey) {
    List<RowChange> keyed = new ArrayList<>(changes.size());
    for (Change c : changes) {
      Object key = RowKeys.ofChange(c.key(), c.after());
      Object oldKey = oldKey(c, key, primaryKey);
      if (c.op() == Op.DELETE) {
        keyed.add(new RowChange(key, oldKey, null));
      } else if (c.after() == null) {
        log.error("{} of {} key {} has no row image; ignored", c.op(), table, key);
      } else {
        keyed.add(new RowChange(key, oldKey, c.after()));
      }
    }
    return keyed;
  }

  /** The previous key of an update that changed the primary key, else null. */
  static Object oldKey(Change c, Object key, List<String> primaryKey) {
    if (c.op() != Op.UPDATE || c.before() == null || primaryKey.isEmpty()) {
      return null;
    }
    try {
      Object old = RowKeys.fromRow(c.before(), primaryKey);
      return old.equals(key) ? null : old;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
