package io.tablecast.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.tablecast.protocol.netty.BinaryFraming;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.PackedRows;
import io.tablecast.protocol.row.RowForm;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Protocol version 3 on the binary transport: rows and keys travel as CBOR byte strings of their
 * row form, read with the layout the connection's server announced for the table. Pins the bytes
 * (docs/PROTOCOL.md shows the change_batch ones), checks that the decoder gives rows their layout,
 * that version 2 frames of the same messages still carry maps, and that the JSON text of a message
 * with rows in the row form is the text of its trees.
 */
class RowFormFramesTest {

  /** The v3 frames of {@link SampleMessages#rowForm()} messages. */
  /**
   * The v3 frames of the {@link SampleMessages#rowForm()} messages. The row: {@code 58 24} a byte
   * string of 36 bytes: {@code 01} key length, {@code 0e} id 7 (zig-zag), {@code 10} null bitmap
   * (note), {@code 09 5a6f...89} name, {@code 10 9088 0f} price (scale 4, unscaled 123400), {@code
   * feff..03} big, {@code 00 3fe0..} ratio 0.5 (double). The key: {@code 41 0e}.
   */
  private static final String ROW =
      "5824010e10095a6fc3ab20f09f8e891090880ffeffffffffffffffff03003fe0000000000000";

  private static final Map<MessageType, String> BINARY_V3 =
      Map.of(
          MessageType.SNAPSHOT_ROWS,
          "0000003f05bf657461626c65696170702e6974656d7364726f777381" + ROW + "ff",
          MessageType.CHANGE_BATCH,
          "000000f808bf68706f736974696f6e182b6d636170747572654d696c6c69731b0000018bcfe56800"
              + "676368616e67657382bf657461626c65696170702e6974656d73626f7066555044415445"
              + "636b6579410e666265666f7265"
              + ROW
              + "656166746572"
              + ROW
              + "ffbf657461626c65696170702e6974656d73626f706644454c455445636b6579410e"
              + "666265666f7265"
              + ROW
              + "ffff",
          MessageType.CHANGE_PART,
          "000000650cbf68706f736974696f6e182b676368616e67657381bf657461626c65696170702e6974656d73"
              + "626f7066494e53455254636b6579410e656166746572"
              + ROW
              + "ffff");

  @ParameterizedTest
  @EnumSource(
      value = MessageType.class,
      names = {"SNAPSHOT_ROWS", "CHANGE_BATCH", "CHANGE_PART"})
  void rowsTravelAsTheirRowFormInVersion3(MessageType type) {
    Message packed = SampleMessages.rowForm().get(type);
    ByteBuf frame = MessageCodec.encodeFrame(packed, 3, ByteBufAllocator.DEFAULT);
    try {
      assertThat(ByteBufUtil.hexDump(frame)).isEqualTo(BINARY_V3.get(type));
    } finally {
      frame.release();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = MessageType.class,
      names = {"SNAPSHOT_ROWS", "CHANGE_BATCH", "CHANGE_PART"})
  void version2FramesOfTheSameMessagesCarryMaps(MessageType type) {
    Message packed = SampleMessages.rowForm().get(type);
    Message trees = SampleMessages.rowFormAsTrees().get(type);
    ByteBuf v2 = MessageCodec.encodeFrame(packed, 2, ByteBufAllocator.DEFAULT);
    ByteBuf ofTrees = MessageCodec.encodeFrame(trees, 3, ByteBufAllocator.DEFAULT);
    try {
      assertThat(ByteBufUtil.hexDump(v2)).isEqualTo(ByteBufUtil.hexDump(ofTrees));
      v2.skipBytes(MessageCodec.LENGTH_FIELD_BYTES);
      assertThat(MessageCodec.encodeJson(MessageCodec.decodeFrameBody(v2)))
          .isEqualTo(MessageCodec.encodeJson(trees));
    } finally {
      v2.release();
      ofTrees.release();
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = MessageType.class,
      names = {"SNAPSHOT_ROWS", "CHANGE_BATCH", "CHANGE_PART"})
  void jsonTextIsTheSameFromTheRowFormAsFromTrees(MessageType type) {
    Message packed = SampleMessages.rowForm().get(type);
    String fromTrees = MessageCodec.encodeJson(SampleMessages.rowFormAsTrees().get(type));
    assertThat(MessageCodec.encodeJson(packed)).isEqualTo(fromTrees);
    ByteBuf buf = Unpooled.buffer();
    try {
      MessageCodec.encodeJson(packed, buf);
      assertThat(buf.toString(StandardCharsets.UTF_8)).isEqualTo(fromTrees);
    } finally {
      buf.release();
    }
  }

  @Test
  void version3FramesAndJsonTextAreWrittenFromTheBytesWithoutDecodingARow() {
    Message.ChangeBatch batch =
        (Message.ChangeBatch) SampleMessages.rowForm().get(MessageType.CHANGE_BATCH);
    ByteBuf frame = MessageCodec.encodeFrame(batch, 3, ByteBufAllocator.DEFAULT);
    ByteBuf json = Unpooled.buffer();
    try {
      MessageCodec.encodeJson(batch, json);
    } finally {
      frame.release();
      json.release();
    }
    Message.Change c = batch.changes().get(0);
    assertThat(((PackedRow) c.after()).decoded()).as("the row's tree was never built").isFalse();
    assertThat(((PackedKey) c.key()).decoded()).as("the key's values were never built").isFalse();
    // a version-2 frame needs the tree: built once, then kept
    MessageCodec.encodeFrame(batch, 2, ByteBufAllocator.DEFAULT).release();
    assertThat(((PackedRow) c.after()).decoded()).isTrue();
  }

  @Test
  void theDecoderGivesRowsTheLayoutItsServerAnnounced() {
    EmbeddedChannel ch = new EmbeddedChannel();
    BinaryFraming.addTo(ch.pipeline(), 1 << 20);
    Map<MessageType, Message> packed = SampleMessages.rowForm();
    for (MessageType t :
        List.of(MessageType.SNAPSHOT_BEGIN, MessageType.SNAPSHOT_ROWS, MessageType.CHANGE_BATCH)) {
      ch.writeInbound(MessageCodec.encodeFrame(packed.get(t), 3, ByteBufAllocator.DEFAULT));
    }
    assertThat((Message) ch.readInbound()).isEqualTo(packed.get(MessageType.SNAPSHOT_BEGIN));
    Message.SnapshotRows rows = ch.readInbound();
    assertThat(rows.rows())
        .as("a chunk's rows decode as their bytes, bound together")
        .isInstanceOfSatisfying(
            PackedRows.class,
            p -> assertThat(p.form()).isSameAs(((PackedRow) p.get(0)).form()).isNotNull());
    ObjectNode row = rows.rows().get(0);
    assertThat(row).isInstanceOf(PackedRow.class);
    assertThat(row)
        .isEqualTo(
            packed.get(MessageType.SNAPSHOT_ROWS) instanceof Message.SnapshotRows r
                ? r.rows().get(0)
                : null);
    assertThat(row.get("name").textValue()).isEqualTo("Zoë 🎉");
    assertThat(row.get("price").textValue()).isEqualTo("12.3400");
    assertThat(row.get("big").bigIntegerValue()).hasToString("18446744073709551615");
    assertThat(row.get("note").isNull()).isTrue();
    Message.ChangeBatch batch = ch.readInbound();
    assertThat(batch).isEqualTo(packed.get(MessageType.CHANGE_BATCH));
    assertThat(batch.changes().get(0).key()).isInstanceOf(PackedKey.class);
    assertThat(batch.changes().get(0).key().get(0).longValue()).isEqualTo(7);
    assertThat(batch.changes().get(1).before())
        .isEqualTo(
            SampleMessages.rowFormAsTrees().get(MessageType.SNAPSHOT_ROWS)
                    instanceof Message.SnapshotRows r
                ? r.rows().get(0)
                : null);
    ch.finishAndReleaseAll();
  }

  @Test
  void aChunkWithARowNotInTheRowFormDecodesAsRowsOneByOne() {
    Message.SnapshotRows packed =
        (Message.SnapshotRows) SampleMessages.rowForm().get(MessageType.SNAPSHOT_ROWS);
    ObjectNode tree =
        ((Message.SnapshotRows) SampleMessages.rowFormAsTrees().get(MessageType.SNAPSHOT_ROWS))
            .rows()
            .get(0);
    Message mixed = new Message.SnapshotRows(packed.table(), List.of(packed.rows().get(0), tree));
    ByteBuf frame = MessageCodec.encodeFrame(mixed, 3, ByteBufAllocator.DEFAULT);
    frame.skipBytes(4);
    Message.SnapshotRows decoded = (Message.SnapshotRows) MessageCodec.decodeFrameBody(frame);
    frame.release();
    assertThat(decoded.rows()).isNotInstanceOf(PackedRows.class).hasSize(2);
    assertThat(decoded.rows().get(0)).isInstanceOf(PackedRow.class);
    assertThat(decoded.rows().get(1)).isNotInstanceOf(PackedRow.class);
    assertThat(decoded.rows().get(1)).hasToString(tree.toString());
    RowLayouts layouts = new RowLayouts();
    layouts.bind(
        new Message.SnapshotBegin(
            packed.table(),
            SampleMessages.sampleForm().columns(),
            SampleMessages.sampleForm().primaryKey(),
            1,
            2));
    layouts.bind(decoded);
    assertThat(decoded.rows().get(0)).hasToString(tree.toString());
  }

  @Test
  void rowsBeforeTheirLayoutOrNotFollowingItAreBadFrames() {
    EmbeddedChannel ch = new EmbeddedChannel();
    BinaryFraming.addTo(ch.pipeline(), 1 << 20);
    Message rows = SampleMessages.rowForm().get(MessageType.SNAPSHOT_ROWS);
    assertThatThrownBy(
            () -> ch.writeInbound(MessageCodec.encodeFrame(rows, 3, ByteBufAllocator.DEFAULT)))
        .isInstanceOf(DecoderException.class)
        .hasRootCauseInstanceOf(ProtocolException.class)
        .rootCause()
        .hasMessageContaining("app.items")
        .hasMessageContaining("before its layout");

    EmbeddedChannel other = new EmbeddedChannel();
    BinaryFraming.addTo(other.pipeline(), 1 << 20);
    other.writeInbound(
        MessageCodec.encodeFrame(
            new Message.SnapshotBegin(
                "app.items",
                List.of(new ColumnInfo("id", "bigint", ColumnKind.INTEGER)),
                List.of("id"),
                1,
                1),
            3,
            ByteBufAllocator.DEFAULT));
    other.readInbound();
    assertThatThrownBy(
            () -> other.writeInbound(MessageCodec.encodeFrame(rows, 3, ByteBufAllocator.DEFAULT)))
        .isInstanceOf(DecoderException.class)
        .cause()
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("does not follow its layout");
    ch.finishAndReleaseAll();
    other.finishAndReleaseAll();
  }

  @Test
  void aColumnListThatIsNoLayoutIsRefusedOnlyWhenARowInTheRowFormComes() {
    EmbeddedChannel ch = new EmbeddedChannel();
    BinaryFraming.addTo(ch.pipeline(), 1 << 20);
    // what a version-2 server may send before an empty snapshot: no columns, a key
    Message begin = new Message.SnapshotBegin("app.items", List.of(), List.of("id"), 1, 0);
    ch.writeInbound(MessageCodec.encodeFrame(begin, 3, ByteBufAllocator.DEFAULT));
    assertThat((Message) ch.readInbound()).isEqualTo(begin);
    Message rows = SampleMessages.rowForm().get(MessageType.SNAPSHOT_ROWS);
    assertThatThrownBy(
            () -> ch.writeInbound(MessageCodec.encodeFrame(rows, 3, ByteBufAllocator.DEFAULT)))
        .isInstanceOf(DecoderException.class)
        .cause()
        .hasMessageContaining("no layout");
    ch.finishAndReleaseAll();
  }

  @Test
  void aPackedRowCannotBeChanged() {
    RowForm form = SampleMessages.sampleForm();
    PackedRow row = PackedRow.of(form, form.encode(SampleMessages.formRow()));
    assertThatThrownBy(() -> row.put("name", "x"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> row.remove("name")).isInstanceOf(UnsupportedOperationException.class);
  }
}
