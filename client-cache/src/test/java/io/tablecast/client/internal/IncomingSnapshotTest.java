package io.tablecast.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message.Change;
import io.tablecast.protocol.Message.SnapshotBegin;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.PackedRows;
import io.tablecast.protocol.row.RowForm;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a snapshot in flight holds as its rows arrive: a typed mirror's own copy of them, mapped as
 * they come, and the rows themselves only for a mirror that takes them at the end (a generic one);
 * the changes of later batches reach both alike.
 */
class IncomingSnapshotTest {
  private static final String T = "shop.items";
  private static final List<ColumnInfo> COLUMNS =
      List.of(
          new ColumnInfo("id", "bigint", ColumnKind.INTEGER),
          new ColumnInfo("name", "text", ColumnKind.STRING));
  private static final RowForm FORM = new RowForm(COLUMNS, List.of("id"));
  private static final SnapshotSizing.Settings ROOMY =
      new SnapshotSizing.Settings(new SnapshotSizingTest.Heap(1L << 30), 20);

  /** A mirror's copy that maps a row to its name. */
  static final class Copy implements MirrorSink.MappedSnapshot {
    final Map<Object, String> names = new LinkedHashMap<>();
    long installedAt = -1;
    int putAsBytes;
    long reserved = -1;

    @Override
    public void reserve(long rows) {
      reserved = rows;
    }

    @Override
    public void put(Object key, ObjectNode row) {
      names.put(key, row.get("name").asText());
    }

    @Override
    public void put(Object key, RowForm form, byte[] bytes) {
      putAsBytes++;
      names.put(key, form.toNode(bytes).get("name").asText());
    }

    @Override
    public void remove(Object key) {
      names.remove(key);
    }

    @Override
    public int size() {
      return names.size();
    }

    @Override
    public long objectBytes() {
      return 16;
    }

    @Override
    public MirrorSink.SnapshotDiff install(long position) {
      installedAt = position;
      return MirrorSink.SnapshotDiff.NONE;
    }
  }

  /** A typed mirror (its own {@link Copy}), a generic one, or a near cache. */
  static final class Sink implements MirrorSink {
    final boolean typed;
    final boolean whole;
    Copy copy;
    Map<Object, ObjectNode> installed;

    Sink(boolean typed, boolean whole) {
      this.typed = typed;
      this.whole = whole;
    }

    @Override
    public MappedSnapshot mapsOnArrival(long expectedRows) {
      copy = typed ? new Copy() : null;
      return copy;
    }

    @Override
    public boolean holdsWholeTable() {
      return whole;
    }

    @Override
    public boolean keepsRowBytes() {
      return !typed;
    }

    @Override
    public SnapshotDiff install(Map<Object, ObjectNode> rows, long position) {
      installed = new LinkedHashMap<>(rows);
      return SnapshotDiff.NONE;
    }

    @Override
    public String table() {
      return T;
    }

    @Override
    public boolean isReady() {
      return false;
    }

    @Override
    public String setSchema(List<ColumnInfo> columns, List<String> primaryKey) {
      return null;
    }

    @Override
    public void snapshotProgress(long rowsReceived, long rowsExpected) {}

    @Override
    public void apply(List<RowChange> changes, long position, long captureMillis) {}

    @Override
    public void advance(long position) {}

    @Override
    public void stale(String reason) {}

    @Override
    public void fail(ErrorCode code, String message) {}

    @Override
    public void tooLarge(String message) {}

    @Override
    public Map<Object, ObjectNode> images() {
      return null;
    }
  }

  private static ObjectNode row(long id, String name) {
    ObjectNode row = MessageCodec.jsonMapper().createObjectNode().put("id", id).put("name", name);
    return PackedRow.of(FORM, FORM.encode(row));
  }

  private static List<ObjectNode> chunk(long from, int n) {
    List<ObjectNode> rows = new ArrayList<>();
    for (long id = from; id < from + n; id++) {
      rows.add(row(id, "item " + id));
    }
    return rows;
  }

  private static IncomingSnapshot begin(MirrorSink... mirrors) {
    return new IncomingSnapshot(
        T, new SnapshotBegin(T, COLUMNS, List.of("id"), 10, 3000), ROOMY, List.of(mirrors));
  }

  private static ArrayNode key(long id) {
    return MessageCodec.jsonMapper().createArrayNode().add(id);
  }

  /**
   * The indexes get room for every row announced once the first chunk fits the heap (so that rows
   * arriving in the server's slot order fill them slot after slot), not before, and never for a
   * snapshot refused on its first chunk.
   */
  @Test
  void theIndexesGetRoomForTheAnnouncedRowsOnceTheFirstChunkFits() {
    Sink typed = new Sink(true, true);
    Sink generic = new Sink(false, true);
    IncomingSnapshot s = begin(typed, generic);
    assertThat(typed.copy.reserved).as("before any row is priced").isEqualTo(-1);
    assertThat(s.add(chunk(1, 1000), List.of("id"))).isNull();
    assertThat(typed.copy.reserved).isEqualTo(3000);
    assertThat(s.rows().capacity()).as("the rows waiting, for 3,000").isEqualTo(4096);

    Sink tooBig = new Sink(true, true);
    IncomingSnapshot refused =
        new IncomingSnapshot(
            T,
            new SnapshotBegin(T, COLUMNS, List.of("id"), 10, 100_000_000),
            new SnapshotSizing.Settings(new SnapshotSizingTest.Heap(64L << 20), 20),
            List.of(tooBig));
    assertThat(refused.add(chunk(1, 1000), List.of("id"))).contains("does not fit");
    assertThat(tooBig.copy.reserved).as("a refused snapshot's rows get no room").isEqualTo(-1);
  }

  @Test
  void aSnapshotForTypedMirrorsAloneKeepsNoRowWaitingAfterAnyChunk() {
    Sink typed = new Sink(true, true);
    Sink other = new Sink(true, true);
    Sink nearCache = new Sink(false, false);
    IncomingSnapshot s = begin(typed, other, nearCache);
    for (int c = 0; c < 3; c++) {
      assertThat(s.add(chunk(1 + 1000L * c, 1000), List.of("id"))).isNull();
      assertThat(s.rows()).as("no row's bytes wait for the end").isNull();
      assertThat(typed.copy.size()).isEqualTo(1000 * (c + 1));
      assertThat(other.copy.size()).isEqualTo(1000 * (c + 1));
    }
    assertThat(s.cannotInstall(List.of(typed, other, nearCache), false)).isNull();
    s.install(List.of(typed, other, nearCache), COLUMNS, List.of("id"), 10);
    assertThat(typed.copy.installedAt).isEqualTo(10);
    assertThat(other.copy.installedAt).isEqualTo(10);
    assertThat(nearCache.installed).as("a near cache is told, without rows").isEmpty();
  }

  @Test
  void besideAGenericMirrorTheRowsWaitAndTheTypedMirrorMapsThemAsTheyCome() {
    Sink typed = new Sink(true, true);
    Sink generic = new Sink(false, true);
    IncomingSnapshot s = begin(typed, generic);
    assertThat(s.add(chunk(1, 1000), List.of("id"))).isNull();
    assertThat(s.rows()).hasSize(1000);
    assertThat(typed.copy.size()).isEqualTo(1000);
    s.install(List.of(typed, generic), COLUMNS, List.of("id"), 10);
    assertThat(generic.installed).hasSize(1000);
    assertThat(typed.installed).as("the typed mirror installs its copy").isNull();
    assertThat(typed.copy.installedAt).isEqualTo(10);
  }

  @Test
  void aChunkDecodedInTheRowFormReachesTheMirrorsAsItsBytesWithNoRowObject() {
    List<byte[]> bytes = new ArrayList<>();
    for (ObjectNode row : chunk(1, 1000)) {
      bytes.add(((PackedRow) row).bytes());
    }
    PackedRows chunk = PackedRows.of(FORM, bytes);
    Sink typed = new Sink(true, true);
    Sink generic = new Sink(false, true);
    IncomingSnapshot s = begin(typed, generic);
    assertThat(s.add(chunk, List.of("id"))).isNull();
    assertThat(typed.copy.putAsBytes)
        .as("the typed copy maps each row from its bytes")
        .isEqualTo(1000);
    assertThat(typed.copy.names).containsEntry(7L, "item 7").hasSize(1000);
    List<Object> held = new ArrayList<>();
    s.rows()
        .mapped(
            new PendingRows.Mapper<Object>() {
              @Override
              public Object bytes(Object key, RowForm form, byte[] row) {
                assertThat(form).isSameAs(FORM);
                assertThat(row)
                    .as("the chunk's own array, not a copy")
                    .isSameAs(bytes.get((int) (long) (Long) key - 1));
                held.add(key);
                return row;
              }

              @Override
              public Object tree(Object key, ObjectNode row) {
                throw new AssertionError("row " + key + " held as a tree");
              }
            });
    assertThat(held).hasSize(1000).contains(1L, 1000L);
  }

  @Test
  void theChangesOfLaterBatchesReachTheWaitingRowsAndTheCopiesAlike() {
    Sink typed = new Sink(true, true);
    Sink generic = new Sink(false, true);
    IncomingSnapshot s = begin(typed, generic);
    s.add(List.of(row(1, "one"), row(2, "two"), row(3, "three"), row(4, "four")), List.of("id"));
    s.apply(List.of(new Change(T, Op.DELETE, key(4), row(4, "four"), null)), 9, List.of("id"));
    s.apply(
        List.of(
            new Change(T, Op.UPDATE, key(2), row(2, "two"), row(2, "two v2")),
            new Change(T, Op.DELETE, key(3), row(3, "three"), null),
            new Change(T, Op.UPDATE, key(7), row(1, "one"), row(7, "seven")),
            new Change(T, Op.INSERT, key(8), null, row(8, "eight"))),
        11,
        List.of("id"));
    Map<Object, String> waiting = new LinkedHashMap<>();
    s.rows().forEach((k, r) -> waiting.put(k, r.get("name").asText()));
    assertThat(waiting)
        .containsOnly(
            Map.entry(2L, "two v2"),
            Map.entry(4L, "four"),
            Map.entry(7L, "seven"),
            Map.entry(8L, "eight"));
    assertThat(typed.copy.names).isEqualTo(waiting);
  }

  @Test
  void aMirrorAddedWhileNoRowWaitedCannotBeInstalledFromTheSnapshot() {
    Sink typed = new Sink(true, true);
    IncomingSnapshot s = begin(typed);
    s.add(chunk(1, 10), List.of("id"));
    assertThat(s.cannotInstall(List.of(typed, new Sink(false, true)), false))
        .contains("was added while its snapshot was coming");
    assertThat(s.cannotInstall(List.of(typed, new Sink(false, false)), false))
        .as("a near cache needs no rows")
        .isNull();

    IncomingSnapshot withGeneric = begin(typed, new Sink(false, true));
    assertThat(withGeneric.cannotInstall(List.of(typed, new Sink(true, true)), false))
        .as("the rows waited: a late typed mirror maps them at the end")
        .isNull();
  }

  @Test
  void aNewPrimaryKeyLetsATypedSnapshotGoToBeAskedForAgain() {
    Sink typed = new Sink(true, true);
    IncomingSnapshot s = begin(typed);
    s.add(chunk(1, 10), List.of("id"));
    s.rekey(List.of("name"));
    assertThat(s.cannotInstall(List.of(typed), false)).contains("primary key of " + T + " changed");

    Sink generic = new Sink(false, true);
    IncomingSnapshot rowsOnly = begin(generic);
    rowsOnly.add(chunk(1, 10), List.of("id"));
    rowsOnly.rekey(List.of("name"));
    assertThat(rowsOnly.cannotInstall(List.of(generic), false)).isNull();
    assertThat(rowsOnly.rows().keySet()).contains("item 1", "item 10");
  }

  /**
   * A snapshot the connection's end cut short says how far it came, and from the second in a row
   * which server settings end it and what to change.
   */
  @Test
  void aSnapshotCutShortSaysHowFarItCameAndWhenItRepeatsWhatDecidesIt() {
    IncomingSnapshot s = begin(new Sink(false, true));
    assertThat(s.add(chunk(1, 1200), List.of("id"))).isNull();
    assertThat(s.cutShort(1))
        .startsWith(
            "the snapshot of shop.items was cut short by the end of the connection after 1,200"
                + " of 3,000 rows in ")
        .endsWith(" s; it is asked for again on reconnect")
        .doesNotContain("snapshot_timeout");
    assertThat(s.cutShort(3))
        .contains("3 snapshots of it cut short in a row")
        .contains("slow_consumer.snapshot_timeout")
        .contains("idle_timeout");
  }
}
