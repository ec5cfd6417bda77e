package io.tablecast.server.mysql;

import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.RowNormalizer;
import io.tablecast.server.capture.RowTextsFetch;
import io.tablecast.server.capture.SnapshotRead;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.tail.OutboxRows;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.tail.RowKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB: the outbox rows of one read name changed rows by primary key; this collects those
 * keys and reads the rows in the same consistent snapshot as the outbox, so every transaction the
 * read saw is applied whole and as of one moment. A key whose row is there becomes an event with
 * the row as it is now (the hub tells an insert from an update by its image), a key whose row is
 * gone a delete. Several changes of one row in one read become one event: its state at that moment.
 * A row that is there but cannot be read (its JSON form is larger than {@code max_allowed_packet})
 * is refused with its table and key named, never taken for a delete.
 *
 * <p>Each key image is read once, without a tree, into its key in the table version's row form and
 * the values to bind ({@link RowNormalizer#keyImage}); each row read is written once in the row
 * form, from its columns' texts when the table is read so ({@link MysqlTriggers#rowSelect}), else
 * from its {@code JSON_OBJECT} ({@link RowNormalizer#encode}), and found by the key slice at its
 * start, which equals the key of the outbox image by design. The event carries that key and those
 * bytes. Only a {@code JSON_OBJECT} can be too large for {@code max_allowed_packet}.
 */
final class ChangedRows {
  /** Keys per statement. */
  static final int KEYS_PER_READ = 500;

  private static final Logger LOG = RecentEvents.logger(ChangedRows.class);

  /** Marks a row that is there but could not be read (see {@link OutboxRows#tooLarge}). */
  private static final byte[] TOO_LARGE = new byte[0];

  /** A changed row that could not be read: its key's values as text (e.g. {@code [5]}), and why. */
  record Refusal(String key, String why) {}

  /**
   * A changed key: its values as the trigger printed them (bound to the read), the key in the row
   * form, and the outbox's image of it (kept when the table's metadata lock is not granted).
   */
  private record Changed(List<String> bound, RowKey key, String image) {}

  private final CapturePlan plan;
  private final ChangedRowStatements statements;

  /** Told the table of each changed row that could not be read and was not delivered. */
  private final Consumer<String> refused;

  /** Per table, the keys of the rows that could not be read, and why; filled by {@link #read}. */
  private final Map<String, Map<RowKey, Refusal>> refusals = new LinkedHashMap<>();

  /**
   * Tables with an outbox row whose key lacks a column of the table's primary key as the plan
   * describes it: recorded by triggers made for an older key (the key changed, and the plan took it
   * before those rows were read). Their rows cannot be addressed: the caller re-reads these tables
   * whole in the same snapshot.
   */
  private final java.util.Set<String> unkeyed = new java.util.LinkedHashSet<>();

  /** Per table, the changed keys, in first-seen order. */
  private final Map<String, Map<RowKey, Changed>> byTable = new LinkedHashMap<>();

  /** The tables whose metadata lock was not granted, and their kept keys. */
  private final LockedTables locks;

  /** The tables no longer there under their name: their kept keys wait for their re-read. */
  private final Predicate<String> gone;

  /** The tables whose changed rows {@link #read} read (for {@link LockedTables#after}). */
  private final Set<TableId> read = new LinkedHashSet<>();

  ChangedRows(
      CapturePlan plan,
      ChangedRowStatements statements,
      Consumer<String> refused,
      LockedTables locks,
      Predicate<String> gone) {
    this.plan = plan;
    this.statements = statements;
    this.refused = refused;
    this.locks = locks;
    this.gone = gone;
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
    // an UPDATE that kept its key records the same image twice: read once
    String before = oldKey != null && oldKey.equals(newKey) ? null : oldKey;
    for (String image : new String[] {before, newKey}) {
      if (image != null) {
        RowNormalizer.KeyImage k = n.keyImage(image);
        if (k == null) {
          unkeyed.add(table);
          continue;
        }
        RowKey key = RowKey.of(k.key());
        byTable
            .computeIfAbsent(table, t -> new LinkedHashMap<>())
            .putIfAbsent(key, new Changed(k.bound(), key, image));
      }
    }
    return true;
  }

  boolean isEmpty() {
    return byTable.isEmpty() && unkeyed.isEmpty();
  }

  /** The tables to re-read whole because some of their outbox rows carry an older primary key. */
  java.util.Set<String> unkeyed() {
    return unkeyed;
  }

  /** Per table, the rows {@link #read} found but could not read, by key, and why. */
  Map<String, Map<RowKey, Refusal>> refusals() {
    return refusals;
  }

  /** The tables whose changed rows {@link #read} read, kept ones included. */
  Set<TableId> readTables() {
    return read;
  }

  /** Whether {@link #read} delivered a change of the row of {@code table} with {@code key}. */
  boolean delivered(String table, RowKey key) {
    Map<RowKey, Changed> keys = byTable.get(table);
    Map<RowKey, Refusal> refused = refusals.get(table);
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

  /**
   * Reads the rows of the recorded keys on {@code c} (in the outbox read's snapshot) into events.
   */
  @SuppressWarnings(
      "ReferenceEquality") // TOO_LARGE is a marker: identity is meant, an empty row would equal it
  List<RowEvent> read(Connection c) throws SQLException {
    addKeptKeys();
    List<RowEvent> events = new ArrayList<>();
    List<String> held = new ArrayList<>();
    for (Map.Entry<String, Map<RowKey, Changed>> e : byTable.entrySet()) {
      List<Changed> keys = new ArrayList<>(e.getValue().values());
      RowNormalizer n = plan.normalizer(e.getKey());
      TableId id = n.table().id();
      Map<RowKey, byte[]> rows = new HashMap<>();
      try {
        if (locks.waiting(id)) {
          held.add(e.getKey()); // its lock not seen free since: not tried again
          locks.keep(id, images(keys));
          continue;
        }
        for (int from = 0; from < keys.size(); from += KEYS_PER_READ) {
          List<Changed> chunk = keys.subList(from, Math.min(keys.size(), from + KEYS_PER_READ));
          readChunk(c, n, chunk, rows);
        }
      } catch (SQLException x) {
        if (!locks.refused(x)) {
          throw x;
        }
        held.add(e.getKey()); // the snapshot goes on: only the statement failed
        locks.hold(id, images(keys), x);
        continue;
      }
      read.add(id);
      for (Changed k : keys) {
        byte[] row = rows.get(k.key());
        if (row == TOO_LARGE) {
          // neither the new row nor a delete: the mirrors keep the old row, and say so loudly
          String key = n.form().keyToNode(k.key().bytes()).toString();
          String why = OutboxRows.tooLarge(e.getKey(), key);
          LOG.error(
              "{}; this change is not delivered, the table's mirrors keep the row as it was", why);
          refused.accept(e.getKey());
          refusals
              .computeIfAbsent(e.getKey(), t -> new LinkedHashMap<>())
              .put(k.key(), new Refusal(key, why));
          continue;
        }
        events.add(
            row != null
                ? new RowEvent.Upsert(e.getKey(), n.table(), k.key().bytes(), row, null)
                : new RowEvent.Delete(e.getKey(), n.table(), k.key().bytes(), null));
      }
    }
    held.forEach(byTable::remove); // not delivered
    return events;
  }

  /**
   * Adds the keys kept for the tables whose metadata lock was seen free since (none of them is lost
   * if this read fails: they stay kept until {@link LockedTables#after} a read that succeeded).
   */
  private void addKeptKeys() {
    for (Map.Entry<TableId, List<String>> kept : locks.freeKeys().entrySet()) {
      String table = kept.getKey().qualified();
      if (gone.test(table) || plan.normalizer(table) == null) {
        continue; // its re-read, once it is back, ends the hold
      }
      byTable.computeIfAbsent(table, t -> new LinkedHashMap<>()); // read, if only to end the hold
      for (String image : kept.getValue()) {
        add(table, image, null);
      }
    }
  }

  private static List<String> images(List<Changed> keys) {
    List<String> out = new ArrayList<>(keys.size());
    keys.forEach(k -> out.add(k.image()));
    return out;
  }

  private void readChunk(
      Connection c, RowNormalizer n, List<Changed> chunk, Map<RowKey, byte[]> rows)
      throws SQLException {
    TableSchema t = n.table();
    boolean texts = statements.select(t).shape() == SnapshotRead.Shape.COLUMN_TEXTS;
    try (PreparedStatement ps = c.prepareStatement(statements.rowsByKey(t, chunk.size()))) {
      int i = 1;
      for (Changed k : chunk) {
        for (String v : k.bound()) {
          ps.setString(i++, v);
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (texts) { // no JSON, so no JSON_OBJECT too large for max_allowed_packet either
            byte[] row = n.encodeColumnTexts(RowTextsFetch.texts(rs, t.columns().size()));
            rows.put(RowKey.ofRow(row), row);
            continue;
          }
          String json = rs.getString(1);
          if (json == null) {
            // the row is there, but JSON_OBJECT gave NULL: too large for max_allowed_packet
            rows.put(RowKey.of(n.key(n.parse(rs.getString(2)))), TOO_LARGE);
            continue;
          }
          byte[] row = n.encode(json);
          rows.put(RowKey.ofRow(row), row);
        }
      }
    }
  }
}
