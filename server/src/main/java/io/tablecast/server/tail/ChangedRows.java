package io.tablecast.server.tail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MySQL/MariaDB: the outbox rows of one read name changed rows by primary key; this collects
 * those keys and reads the rows in the same consistent snapshot as the outbox, so every
 * transaction the read saw is applied whole and as of one moment. A key whose row is there
 * becomes an event with the row as it is now (the hub tells an insert from an update by its
 * image), a key whose row is gone a delete. Several changes of one row in one read become one
 * event: its state at that moment. A row that is there but cannot be read (its JSON form is
 * larger than {@code max_allowed_packet}) is refused with its table and key named, never taken
 * for a delete.
 */
final class ChangedRows {
  /** Keys per statement. */
  static final int KEYS_PER_READ = 500;
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  private static final Logger LOG = LoggerFactory.getLogger(ChangedRows.class);
  /** Marks a row that is there but could not be read (see {@link OutboxRows#tooLarge}). */
  private static final ObjectNode TOO_LARGE = NODES.objectNode();

  private record Changed(TableSchema table, JsonNode rawKey, ObjectNode key) {}

  private final CapturePlan plan;
  /** Told the table of each changed row that could not be read and was not delivered. */
  private final Consumer<String> refused;
  /** Per table, the keys of the rows that could not be read, and why; filled by {@link #read}. */
  private final Map<String, Map<ArrayNode, String>> refusals = new LinkedHashMap<>();
  /** Per table, the changed keys (normalized key values -> key), in first-seen order. */
  private final Map<String, Map<ArrayNode, Changed>> byTable = new LinkedHashMap<>();

  ChangedRows(CapturePlan plan, Consumer<String> refused) {
    this.plan = plan;
    this.refused = refused;
  }

  /**
   * Records one outbox row's keys. Returns false when its table is not cached here (another
   * server's table sharing this outbox).
   */
  boolean add(String table, String newKey, String oldKey) {
    RowNormalizer n = plan.normalizer(table);
    if (n == null) {
      return false;
    }
    for (String image : new String[] {oldKey, newKey}) {
      if (image != null) {
        JsonNode raw = n.parse(image);
        ObjectNode key = n.normalizePresent(raw);
        byTable.computeIfAbsent(table, t -> new LinkedHashMap<>())
            .putIfAbsent(keyOf(n.table(), key), new Changed(n.table(), raw, key));
      }
    }
    return true;
  }

  boolean isEmpty() {
    return byTable.isEmpty();
  }

  /** Per table, the rows {@link #read} found but could not read, by key, and why. */
  Map<String, Map<ArrayNode, String>> refusals() {
    return refusals;
  }

  /** Whether {@link #read} delivered a change of the row of {@code table} with {@code key}. */
  boolean delivered(String table, ArrayNode key) {
    Map<ArrayNode, Changed> keys = byTable.get(table);
    Map<ArrayNode, String> refused = refusals.get(table);
    return keys != null && keys.containsKey(key) && (refused == null || !refused.containsKey(key));
  }

  /** The tables with changed keys, as the plan of this read describes them. */
  List<TableSchema> tables() {
    List<TableSchema> out = new ArrayList<>();
    for (String table : byTable.keySet()) {
      out.add(plan.normalizer(table).table());
    }
    return out;
  }

  /** Reads the rows of the recorded keys on {@code c} (in the outbox read's snapshot) into events. */
  List<RowEvent> read(Connection c) throws SQLException {
    List<RowEvent> events = new ArrayList<>();
    for (Map.Entry<String, Map<ArrayNode, Changed>> e : byTable.entrySet()) {
      List<Changed> keys = new ArrayList<>(e.getValue().values());
      RowNormalizer n = plan.normalizer(e.getKey());
      Map<ArrayNode, ObjectNode> rows = new LinkedHashMap<>();
      for (int from = 0; from < keys.size(); from += KEYS_PER_READ) {
        List<Changed> chunk = keys.subList(from, Math.min(keys.size(), from + KEYS_PER_READ));
        readChunk(c, n, chunk, rows);
      }
      for (Changed k : keys) {
        ArrayNode key = keyOf(k.table(), k.key());
        ObjectNode row = rows.get(key);
        if (row == TOO_LARGE) {
          // neither the new row nor a delete: the mirrors keep the old row, and say so loudly
          String why = OutboxRows.tooLarge(e.getKey(), key);
          LOG.error("{}; this change is not delivered, the table's mirrors keep the row as it was", why);
          refused.accept(e.getKey());
          refusals.computeIfAbsent(e.getKey(), t -> new LinkedHashMap<>()).put(key, why);
          continue;
        }
        events.add(row != null ? new RowEvent(e.getKey(), Op.INSERT, null, row)
            : new RowEvent(e.getKey(), Op.DELETE, k.key(), null));
      }
    }
    return events;
  }

  private void readChunk(Connection c, RowNormalizer n, List<Changed> chunk, Map<ArrayNode, ObjectNode> rows)
      throws SQLException {
    TableSchema t = n.table();
    try (PreparedStatement ps = c.prepareStatement(plan.rowsByKeyQuery(t, chunk.size()))) {
      int i = 1;
      for (Changed k : chunk) {
        for (String v : CapturePlan.keyValues(t, k.rawKey())) {
          ps.setString(i++, v);
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String json = rs.getString(1);
          if (json == null) { // the row is there, but JSON_OBJECT gave NULL: too large for max_allowed_packet
            rows.put(keyOf(t, n.normalizePresent(n.parse(rs.getString(2)))), TOO_LARGE);
            continue;
          }
          ObjectNode row = n.normalize(json);
          rows.put(keyOf(t, row), row);
        }
      }
    }
  }

  /** The key values of a (possibly partial) normalized row, in key order. */
  private static ArrayNode keyOf(TableSchema t, ObjectNode row) {
    ArrayNode key = NODES.arrayNode();
    for (String column : t.primaryKey()) {
      key.add(row.get(column));
    }
    return key;
  }
}
