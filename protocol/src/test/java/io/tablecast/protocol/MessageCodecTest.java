package io.tablecast.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class MessageCodecTest {

  @ParameterizedTest
  @EnumSource(MessageType.class)
  void everyMessageTypeRoundTripsThroughBinaryFrames(MessageType type) {
    Message original = SampleMessages.all().get(type);
    ByteBuf frame = MessageCodec.encodeFrame(original, io.netty.buffer.ByteBufAllocator.DEFAULT);
    try {
      int length = frame.readInt();
      assertThat(length).isEqualTo(frame.readableBytes());
      assertThat(frame.getUnsignedByte(frame.readerIndex())).isEqualTo((short) type.code());
      Message decoded = MessageCodec.decodeFrameBody(frame);
      assertThat(decoded).isEqualTo(original);
      assertThat(decoded.type()).isEqualTo(type);
    } finally {
      frame.release();
    }
  }

  @Test
  void errorQuotingAnUnpairedSurrogateStillEncodes() {
    // what a CBOR string of invalid UTF-8 decodes to, quoted back in the error message
    Message.Error e =
        new Message.Error(
            ErrorCode.BAD_FRAME, "bad value \"\udf58x\ud83c\" \ud83c\udf89", "t\ud800");
    assertThat(e.message()).isEqualTo("bad value \"\ufffdx\ufffd\" \ud83c\udf89");
    assertThat(e.table()).isEqualTo("t\ufffd");
    ByteBuf frame = MessageCodec.encodeFrame(e, io.netty.buffer.ByteBufAllocator.DEFAULT);
    try {
      frame.skipBytes(MessageCodec.LENGTH_FIELD_BYTES);
      assertThat(MessageCodec.decodeFrameBody(frame)).isEqualTo(e);
    } finally {
      frame.release();
    }
  }

  @ParameterizedTest
  @EnumSource(MessageType.class)
  void everyMessageTypeRoundTripsThroughJson(MessageType type) {
    Message original = SampleMessages.all().get(type);
    String json = MessageCodec.encodeJson(original);
    assertThat(json).startsWith("{\"type\":\"" + type.jsonName() + "\"");
    assertThat(MessageCodec.decodeJson(json)).isEqualTo(original);
  }

  @Test
  void decimalsKeepTrailingZerosAndBigIntegersSurvive() {
    Message.SnapshotRows rows =
        (Message.SnapshotRows) SampleMessages.all().get(MessageType.SNAPSHOT_ROWS);
    Message.SnapshotRows back =
        (Message.SnapshotRows) MessageCodec.decodeJson(MessageCodec.encodeJson(rows));
    assertThat(back.rows().get(0).get("price").asText()).isEqualTo("12.3400");
    assertThat(back.rows().get(0).get("big").bigIntegerValue().toString())
        .isEqualTo("18446744073709551615");
    assertThat(back.rows().get(0).get("name").asText()).isEqualTo("Zoë 🎉");
  }

  @Test
  void helloNeverPrintsSecrets() {
    assertThat(
            new Message.Hello(Message.PROTOCOL_VERSION, "svc", "alice", "s3cret", "tok3n")
                .toString())
        .doesNotContain("s3cret")
        .doesNotContain("tok3n")
        .contains("alice");
  }

  @Test
  void unknownTypeCodeIsABadFrameNamingTheCode() {
    ByteBuf body = Unpooled.wrappedBuffer(new byte[] {(byte) 99, (byte) 0xa0});
    assertThatThrownBy(() -> MessageCodec.decodeFrameBody(body))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("unknown message type code 99")
        .extracting(e -> ((ProtocolException) e).code())
        .isEqualTo(ErrorCode.BAD_FRAME);
  }

  @Test
  void emptyAndTruncatedFramesAreBadFrames() {
    assertThatThrownBy(() -> MessageCodec.decodeFrameBody(Unpooled.EMPTY_BUFFER))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("empty frame");
    ByteBuf full =
        MessageCodec.encodeFrame(
            SampleMessages.all().get(MessageType.WELCOME),
            io.netty.buffer.ByteBufAllocator.DEFAULT);
    full.skipBytes(4);
    ByteBuf truncated = full.slice(full.readerIndex(), full.readableBytes() - 3);
    assertThatThrownBy(() -> MessageCodec.decodeFrameBody(truncated))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("malformed welcome frame");
    full.release();
  }

  @Test
  void missingRequiredFieldsAreBadFramesNamingTheType() {
    assertThatThrownBy(() -> MessageCodec.decodeJson("{\"type\":\"subscribe\"}"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("malformed subscribe message");
    assertThatThrownBy(() -> MessageCodec.decodeJson("{\"type\":\"teleport\"}"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("unknown message type \"teleport\"");
    assertThatThrownBy(() -> MessageCodec.decodeJson("[1,2]"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("JSON object");
    assertThatThrownBy(() -> MessageCodec.decodeJson("{\"type\":"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("malformed JSON");
  }

  /**
   * A field that is missing or of the wrong kind is named in the error, by its path in the message,
   * with what it takes; no advice on Jackson's configuration, no JDK-internal message.
   */
  @Test
  void aBadFieldIsNamedWithWhatItTakes() {
    assertThat(jsonProblem("{\"type\":\"ping\"}"))
        .isEqualTo("malformed ping message: \"nonce\" is missing or null (it takes a long)");
    assertThat(jsonProblem("{\"type\":\"subscribe\",\"resumePosition\":-1}"))
        .isEqualTo("malformed subscribe message: \"tables\" is missing or null");
    assertThat(jsonProblem("{\"type\":\"subscribe\",\"resumePosition\":-1,\"tables\":[\"a\",1]}"))
        .startsWith("malformed subscribe message: \"tables[1]\": ")
        .doesNotContain("CoercionConfig");
    assertThat(jsonProblem("{\"type\":\"sync\",\"id\":[1]}"))
        .isEqualTo(
            "malformed sync message: \"id\": Cannot deserialize value of type `long` from Array"
                + " value");
    assertThat(jsonProblem("{\"type\":\"sync\",\"id\":1.5}"))
        .startsWith("malformed sync message: \"id\": Cannot coerce Floating-point value (1.5)")
        .doesNotContain("CoercionConfig");
    assertThat(jsonProblem("{\"type\":\"resumed\",\"tables\":[],\"position\":1}"))
        .isEqualTo("malformed resumed message: \"schemas\" is missing or null");
    assertThat(
            jsonProblem(
                "{\"type\":\"resumed\",\"tables\":[],\"position\":1,"
                    + "\"schemas\":[{\"table\":\"t\",\"columns\":[]}]}"))
        .isEqualTo("malformed resumed message: \"schemas[0].primaryKey\" is missing or null");
    // the binary encoding says the same
    ByteBuf body = Unpooled.buffer();
    body.writeByte(MessageType.PING.code());
    body.writeByte(0xa0); // CBOR: an empty map
    assertThatThrownBy(() -> MessageCodec.decodeFrameBody(body))
        .hasMessage("malformed ping frame: \"nonce\" is missing or null (it takes a long)");
    body.release();
  }

  private static String jsonProblem(String json) {
    try {
      MessageCodec.decodeJson(json);
    } catch (ProtocolException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.BAD_FRAME);
      return e.getMessage();
    }
    throw new AssertionError("decoded: " + json);
  }

  @Test
  void opAndErrorCodesAreStable() {
    assertThat(Arrays.stream(Op.values()).map(Op::code)).containsExactly('I', 'U', 'D');
    assertThat(Op.forCode("U")).isEqualTo(Op.UPDATE);
    assertThatThrownBy(() -> Op.forCode('X')).hasMessageContaining("unknown operation code 'X'");
    for (ErrorCode c : ErrorCode.values()) {
      assertThat(ErrorCode.forCode(c.code())).isEqualTo(c);
    }
    for (MessageType t : MessageType.values()) {
      assertThat(MessageType.forCode(t.code())).isEqualTo(t);
      assertThat(MessageType.forJsonName(t.jsonName())).isEqualTo(t);
    }
  }

  /**
   * Prints current encodings; used to refresh {@link GoldenBytesTest} after a deliberate change.
   */
  public static void main(String[] args) {
    for (Map.Entry<MessageType, Message> e : SampleMessages.all().entrySet()) {
      ByteBuf b = MessageCodec.encodeFrame(e.getValue(), io.netty.buffer.ByteBufAllocator.DEFAULT);
      System.out.println(e.getKey() + " " + ByteBufUtil.hexDump(b));
      System.out.println(e.getKey() + " " + MessageCodec.encodeJson(e.getValue()));
      b.release();
    }
  }
}
