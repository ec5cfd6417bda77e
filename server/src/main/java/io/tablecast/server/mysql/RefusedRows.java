package io.tablecast.server.mysql;

import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * MySQL/MariaDB: the changed rows that could not be read (see {@link
 * io.tablecast.server.tail.OutboxRows#tooLarge}) and whose changes were therefore not delivered,
 * per table, until a later change of the same row is read: while one is held, its table's mirrors
 * may differ from the table, and the batches say so ({@link CommittedBatch.Staleness}). Tail thread
 * only.
 */
final class RefusedRows {

  /** Per table, the keys refused and why. */
  private final Map<String, Map<RowKey, ChangedRows.Refusal>> byTable = new HashMap<>();

  /**
   * Takes what a successful read found: rows it refused, and held rows it has now read. Returns the
   * staleness changes to publish with its batch.
   */
  List<CommittedBatch.Staleness> after(ChangedRows read) {
    List<CommittedBatch.Staleness> out = new ArrayList<>();
    for (Map.Entry<String, Map<RowKey, ChangedRows.Refusal>> t : byTable.entrySet()) {
      t.getValue()
          .entrySet()
          .removeIf(
              held -> {
                boolean readNow = read.delivered(t.getKey(), held.getKey());
                if (readNow) {
                  out.add(new CommittedBatch.Staleness(t.getKey(), cause(held.getValue()), null));
                }
                return readNow;
              });
    }
    byTable.values().removeIf(Map::isEmpty);
    read.refusals()
        .forEach(
            (table, keys) ->
                keys.forEach(
                    (key, refusal) -> {
                      if (byTable
                              .computeIfAbsent(table, x -> new LinkedHashMap<>())
                              .put(key, refusal)
                          == null) {
                        out.add(new CommittedBatch.Staleness(table, cause(refusal), refusal.why()));
                      }
                    }));
    return out;
  }

  private static String cause(ChangedRows.Refusal refusal) {
    return "row " + refusal.key();
  }
}
