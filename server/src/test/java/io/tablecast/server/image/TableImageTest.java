package io.tablecast.server.image;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.MalformedRowException;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.tail.KeyMoves;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.Rows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table's image in the row form: rows compared byte for byte, refused when not of its form,
 * converted at ALTER TABLE.
 */
class TableImageTest {
  private static final TableSchema ITEMS = FakeChangeSource.table("items");

  private static TableImage image(ObjectNode... rows) {
    TableImage image = new TableImage(ITEMS);
    for (ObjectNode r : rows) {
      image.put(Rows.bytes(ITEMS, r));
    }
    return image;
  }

  private static ObjectNode json(TableImage image, byte[] row) {
    return row == null ? null : image.form().toNode(row);
  }

  @Test
  void theImageDecidesInsertOrUpdateAndAnEventThatRepeatsARowChangesNothing() {
    TableImage image = image(row(1, "a"), row(2, "b"));
    assertThat(image.apply(FakeChangeSource.upsert(ITEMS, null, row(1, "a"))))
        .as("the same bytes")
        .isEmpty();
    RowChange update = one(image.apply(FakeChangeSource.upsert(ITEMS, null, row(1, "changed"))));
    assertThat(update.op()).isEqualTo(Op.UPDATE);
    assertThat(json(image, update.before())).isEqualTo(row(1, "a"));
    assertThat(json(image, update.after())).isEqualTo(row(1, "changed"));
    RowChange insert = one(image.apply(FakeChangeSource.upsert(ITEMS, null, row(3, "c"))));
    assertThat(insert.op()).isEqualTo(Op.INSERT);
    assertThat(insert.before()).isNull();

    RowChange moved = one(image.apply(FakeChangeSource.upsert(ITEMS, row(2, "b"), row(7, "b"))));
    assertThat(moved.op())
        .as("an UPDATE that moved the row: the old key's row goes")
        .isEqualTo(Op.UPDATE);
    assertThat(image.form().keyToNode(moved.key()).get(0).longValue()).isEqualTo(7);
    assertThat(json(image, moved.before())).isEqualTo(row(2, "b"));
    assertThat(image.get(FakeChangeSource.key(2))).isNull();

    RowChange delete =
        one(image.apply(new RowEvent.Delete("public.items", ITEMS, FakeChangeSource.key(1), null)));
    assertThat(delete.op()).isEqualTo(Op.DELETE);
    assertThat(json(image, delete.before()))
        .as("the row the image held")
        .isEqualTo(row(1, "changed"));
    assertThat(
            image.apply(new RowEvent.Delete("public.items", ITEMS, FakeChangeSource.key(1), null)))
        .isEmpty();
    assertThat(image.size()).isEqualTo(2);
    assertThat(image.truncate()).extracting(RowChange::op).containsOnly(Op.DELETE).hasSize(2);
    assertThat(image.size()).isZero();
  }

  /**
   * A swap under a DEFERRABLE key: a row moved onto a key another row still holds takes that row
   * off the key, said as a DELETE of it before the UPDATE; a moved row, or a deleted one, takes its
   * old key away only while the image holds that very row there, not the row another change has put
   * on the key since.
   */
  @Test
  void aChangeLeavingAKeyTakesAwayOnlyItsOwnRowThere() {
    TableImage image = image(row(1, "a"), row(2, "b"), row(3, "c"));
    KeyMoves moves = new KeyMoves();
    List<RowChange> a = new ArrayList<>();
    image.apply(FakeChangeSource.upsert(ITEMS, row(1, "a"), row(2, "a")), moves, a); // 1 -> 2
    assertThat(a).extracting(RowChange::op).containsExactly(Op.DELETE, Op.UPDATE);
    assertThat(json(image, a.get(0).before()))
        .as("the row the move took off key 2")
        .isEqualTo(row(2, "b"));
    assertThat(json(image, a.get(1).before())).isEqualTo(row(1, "a"));
    assertThat(json(image, a.get(1).after())).isEqualTo(row(2, "a"));
    assertThat(image.get(FakeChangeSource.key(1))).isNull();

    RowChange b =
        one(batch(image, moves, FakeChangeSource.upsert(ITEMS, row(2, "b"), row(1, "b")))); // 2->1
    assertThat(b.op()).as("key 1 was free").isEqualTo(Op.INSERT);
    assertThat(json(image, image.get(FakeChangeSource.key(2)))).isEqualTo(row(2, "a"));
    assertThat(json(image, image.get(FakeChangeSource.key(1)))).isEqualTo(row(1, "b"));

    assertThat(batch(image, moves, delete(2, "b")))
        .as("a delete naming another row than the one moved there in this batch")
        .isEmpty();
    assertThat(batch(image, moves, delete(2, "a"))).hasSize(1);
    assertThat(batch(image, moves, delete(3, "not what the image holds")))
        .as("a row no change of the batch moved there goes, whatever the delete names")
        .hasSize(1);
    assertThat(image.size()).isEqualTo(1);
  }

  private static List<RowChange> batch(TableImage image, KeyMoves moves, RowEvent event) {
    List<RowChange> out = new ArrayList<>();
    image.apply(event, moves, out);
    return out;
  }

  private static RowChange one(List<RowChange> changes) {
    assertThat(changes).hasSize(1);
    return changes.get(0);
  }

  private static RowEvent delete(long id, String name) {
    return new RowEvent.Delete(
        "public.items", ITEMS, FakeChangeSource.key(id), Rows.bytes(ITEMS, row(id, name)));
  }

  @Test
  void bytesThatAreNotARowOfTheImagesFormAreRefusedAndTheImageKeepsItsRow() {
    TableImage image = image(row(1, "a"));
    byte[] good = FakeChangeSource.bytes(1, "b");
    for (byte[] bad :
        List.of(Arrays.copyOf(good, good.length - 1), Arrays.copyOf(good, good.length + 1))) {
      assertThatThrownBy(
              () ->
                  image.apply(
                      new RowEvent.Upsert(
                          "public.items", ITEMS, FakeChangeSource.key(1), bad, null)))
          .isInstanceOf(MalformedRowException.class);
    }
    assertThatThrownBy(() -> image.put(new byte[] {5})).isInstanceOf(MalformedRowException.class);
    assertThat(json(image, image.get(FakeChangeSource.key(1)))).isEqualTo(row(1, "a"));
    assertThat(image.size()).isEqualTo(1);
  }

  @Test
  void aWholeReadCountsTheRowsThatShareAKeyWithAnother() {
    TableImage image = image(row(1, "a"), row(2, "b"));
    ReadDifferences read =
        image.diff(
            FakeChangeSource.bytes(
                ITEMS, List.of(row(2, "b"), row(1, "a"), row(2, "child"), row(2, "grandchild"))),
            false);
    assertThat(read.duplicateRows()).isEqualTo(2);
    assertThat(
            image.diff(FakeChangeSource.bytes(ITEMS, List.of(row(1, "a"))), false).duplicateRows())
        .isZero();
  }

  @Test
  void aWholeReadIsComparedByteForByte() {
    TableImage image = image(row(1, "a"), row(2, "b"), row(3, "c"));
    List<RowEvent> diff =
        image
            .diff(
                FakeChangeSource.bytes(ITEMS, List.of(row(1, "a"), row(2, "B"), row(4, "d"))),
                false)
            .events();
    assertThat(diff)
        .extracting(
            e ->
                e.op()
                    + " "
                    + (e instanceof RowEvent.Upsert u
                        ? json(image, u.row())
                        : image.form().keyToNode(((RowEvent.Delete) e).key())))
        .containsExactly(
            "DELETE [3]", "UPDATE {\"id\":2,\"name\":\"B\"}", "INSERT {\"id\":4,\"name\":\"d\"}");
    assertThat(image.size()).as("the image is not changed").isEqualTo(3);
  }

  @Test
  void afterAnAlterTableEveryRowIsInTheNewFormWithWhatCannotBeKnownNull() {
    TableSchema before =
        schema(
            List.of("id"),
            column("id", ColumnKind.INTEGER),
            column("name", ColumnKind.STRING),
            column("qty", ColumnKind.INTEGER),
            column("gone", ColumnKind.STRING));
    TableImage image = new TableImage(before);
    ObjectNode old = row(1, "a").put("qty", 5L).put("gone", "x");
    image.put(Rows.bytes(before, old));
    // qty became text (its number does not fit), gone was dropped, note was added
    TableSchema after =
        schema(
            List.of("id"),
            column("id", ColumnKind.INTEGER),
            column("note", ColumnKind.STRING),
            column("name", ColumnKind.STRING),
            column("qty", ColumnKind.STRING));
    assertThat(image.holds(after)).isFalse();
    TableImage altered = image.withSchema(after);
    assertThat(altered.version()).isEqualTo(2);
    assertThat(altered.holds(after)).isTrue();
    byte[] row = altered.get(altered.form().encodeKey(row(1, "any")));
    altered.form().check(row);
    assertThat(altered.form().toNode(row).toString())
        .isEqualTo("{\"id\":1,\"note\":null,\"name\":\"a\",\"qty\":null}");

    TableSchema newKey =
        schema(
            List.of("code"), column("code", ColumnKind.STRING), column("name", ColumnKind.STRING));
    assertThat(image.withSchema(newKey).size())
        .as("a row without a value for the new key cannot be addressed")
        .isZero();
  }

  private static ColumnInfo column(String name, ColumnKind kind) {
    return new ColumnInfo(name, kind.name().toLowerCase(), kind);
  }

  private static TableSchema schema(List<String> key, ColumnInfo... columns) {
    return new TableSchema(new TableId("public", "items"), List.of(columns), key);
  }
}
