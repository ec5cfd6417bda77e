package io.tablecast.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pins the exact bytes of every message type in both encodings. A failure here means the wire
 * format changed: that needs a protocol version bump and a docs/PROTOCOL.md update, not a new
 * golden value. (Refresh with {@code MessageCodecTest#main} only for a deliberate change.)
 */
class GoldenBytesTest {

  // CBOR frame: u32 length | u8 type | CBOR map (hand-checked for HELLO: 0x3a bytes, type 01,
  // bf = indefinite map, 6f "protocolVersion" 01, ..., ff = end; null fields are omitted).
  private static final Map<MessageType, String> BINARY =
      Map.ofEntries(
          Map.entry(
              MessageType.HELLO,
              "0000003a01bf6f70726f746f636f6c56657273696f6e056a636c69656e744e616d6563737663647573657265616c6963656870617373776f7264627077ff"),
          Map.entry(
              MessageType.WELCOME,
              "0000005002bf6f70726f746f636f6c56657273696f6e026a7365727665724e616d65697461626c65636173746565706f636862653168706f736974696f6e182a6f6865617274626561744d696c6c69731903e8ff"),
          Map.entry(
              MessageType.SUBSCRIBE,
              "000000a003bf667461626c657381696170702e6974656d736b726573756d6545706f63686265316e726573756d65506f736974696f6e18296b776974686f7574526f777381696170702e6974656d7366736861706573bf696170702e6974656d73bf6666696c746572781e7072696365203c203f20414e44206e616d65204953204e4f54204e554c4c66706172616d7381186467636f6c756d6e7381646e616d65ffffff"),
          Map.entry(
              MessageType.SNAPSHOT_BEGIN,
              "0000009004bf657461626c65696170702e6974656d7367636f6c756d6e7382bf646e616d656269646664625479706566626967696e74646b696e6467494e5445474552ffbf646e616d65646e616d65666462547970656b7661726368617228343029646b696e6466535452494e47ff6a7072696d6172794b65798162696468706f736974696f6e182a68726f77436f756e7401ff"),
          Map.entry(
              MessageType.SNAPSHOT_ROWS,
              "0000005a05bf657461626c65696170702e6974656d7364726f777381a662696407646e616d65695a6fc3ab20f09f8e896570726963656731322e3334303063626967c24900ffffffffffffffff65726174696fc4822005646e6f7465f6ff"),
          Map.entry(
              MessageType.SNAPSHOT_END,
              "0000001e06bf657461626c65696170702e6974656d7368706f736974696f6e182aff"),
          Map.entry(
              MessageType.RESUMED,
              "000000a307bf667461626c657381696170702e6974656d7367736368656d617381bf657461626c65696170702e6974656d7367636f6c756d6e7382bf646e616d656269646664625479706566626967696e74646b696e6467494e5445474552ffbf646e616d65646e616d65666462547970656b7661726368617228343029646b696e6466535452494e47ff6a7072696d6172794b657981626964ff68706f736974696f6e1829ff"),
          Map.entry(
              MessageType.CHANGE_BATCH,
              "0000014908bf68706f736974696f6e182b6d636170747572654d696c6c69731b0000018bcfe56800676368616e67657382bf657461626c65696170702e6974656d73626f7066555044415445636b65798107666265666f7265a662696407646e616d65695a6fc3ab20f09f8e896570726963656731322e3334303063626967c24900ffffffffffffffff65726174696fc4822005646e6f7465f6656166746572a662696407646e616d65695a6fc3ab20f09f8e896570726963656731322e3334303063626967c24900ffffffffffffffff65726174696fc4822005646e6f7465f6ffbf657461626c65696170702e6974656d73626f706644454c455445636b65798107666265666f7265a662696407646e616d65695a6fc3ab20f09f8e896570726963656731322e3334303063626967c24900ffffffffffffffff65726174696fc4822005646e6f7465f6ffff"),
          Map.entry(
              MessageType.ERROR,
              "0000003f09bf64636f64656d554e4b4e4f574e5f5441424c45676d657373616765716e6f207461626c65206170702e6e6f7065657461626c65686170702e6e6f7065ff"),
          Map.entry(MessageType.PING, "0000000a0abf656e6f6e636507ff"),
          Map.entry(MessageType.PONG, "0000000a0bbf656e6f6e636507ff"),
          Map.entry(MessageType.SYNC, "000000070fbf62696403ff"),
          Map.entry(MessageType.SYNCED, "0000001210bf6269640368706f736974696f6e182cff"),
          Map.entry(
              MessageType.FETCH,
              "0000001f11bf62696405657461626c65696170702e6974656d73646b657973818107ff"),
          Map.entry(
              MessageType.FETCHED,
              "0000006912bf62696405657461626c65696170702e6974656d7368706f736974696f6e182c64726f777381a662696407646e616d65695a6fc3ab20f09f8e896570726963656731322e3334303063626967c24900ffffffffffffffff65726174696fc4822005646e6f7465f6ff"),
          Map.entry(
              MessageType.SCHEMA_CHANGED,
              "000000840ebf657461626c65696170702e6974656d736776657273696f6e0267636f6c756d6e7382bf646e616d656269646664625479706566626967696e74646b696e6467494e5445474552ffbf646e616d65646e616d65666462547970656b7661726368617228343029646b696e6466535452494e47ff6a7072696d6172794b657981626964ff"),
          Map.entry(
              MessageType.TABLE_STATUS,
              "000000510dbf657461626c65696170702e6974656d73657374616c65f566726561736f6e782e6120726f77206f66206170702e6974656d732077697468206b6579205b375d2063616e6e6f742062652072656164ff"),
          Map.entry(
              MessageType.CHANGE_PART,
              "000000800cbf68706f736974696f6e182b676368616e67657381bf657461626c65696170702e6974656d73626f7066494e53455254636b65798107656166746572a662696407646e616d65695a6fc3ab20f09f8e896570726963656731322e3334303063626967c24900ffffffffffffffff65726174696fc4822005646e6f7465f6ffff"));

  private static final Map<MessageType, String> JSON =
      Map.ofEntries(
          Map.entry(
              MessageType.HELLO,
              "{\"type\":\"hello\",\"protocolVersion\":5,\"clientName\":\"svc\",\"user\":\"alice\",\"password\":\"pw\"}"),
          Map.entry(
              MessageType.WELCOME,
              "{\"type\":\"welcome\",\"protocolVersion\":2,\"serverName\":\"tablecast\",\"epoch\":\"e1\",\"position\":42,\"heartbeatMillis\":1000}"),
          Map.entry(
              MessageType.SUBSCRIBE,
              "{\"type\":\"subscribe\",\"tables\":[\"app.items\"],\"resumeEpoch\":\"e1\",\"resumePosition\":41,\"withoutRows\":[\"app.items\"],\"shapes\":{\"app.items\":{\"filter\":\"price < ? AND name IS NOT NULL\",\"params\":[100],\"columns\":[\"name\"]}}}"),
          Map.entry(
              MessageType.SNAPSHOT_BEGIN,
              "{\"type\":\"snapshot_begin\",\"table\":\"app.items\",\"columns\":[{\"name\":\"id\",\"dbType\":\"bigint\",\"kind\":\"INTEGER\"},{\"name\":\"name\",\"dbType\":\"varchar(40)\",\"kind\":\"STRING\"}],\"primaryKey\":[\"id\"],\"position\":42,\"rowCount\":1}"),
          Map.entry(
              MessageType.SNAPSHOT_ROWS,
              "{\"type\":\"snapshot_rows\",\"table\":\"app.items\",\"rows\":[{\"id\":7,\"name\":\"Zoë 🎉\",\"price\":\"12.3400\",\"big\":18446744073709551615,\"ratio\":0.5,\"note\":null}]}"),
          Map.entry(
              MessageType.SNAPSHOT_END,
              "{\"type\":\"snapshot_end\",\"table\":\"app.items\",\"position\":42}"),
          Map.entry(
              MessageType.RESUMED,
              "{\"type\":\"resumed\",\"tables\":[\"app.items\"],\"schemas\":[{\"table\":\"app.items\",\"columns\":[{\"name\":\"id\",\"dbType\":\"bigint\",\"kind\":\"INTEGER\"},{\"name\":\"name\",\"dbType\":\"varchar(40)\",\"kind\":\"STRING\"}],\"primaryKey\":[\"id\"]}],\"position\":41}"),
          Map.entry(
              MessageType.CHANGE_BATCH,
              "{\"type\":\"change_batch\",\"position\":43,\"captureMillis\":1700000000000,\"changes\":[{\"table\":\"app.items\",\"op\":\"UPDATE\",\"key\":[7],\"before\":{\"id\":7,\"name\":\"Zoë 🎉\",\"price\":\"12.3400\",\"big\":18446744073709551615,\"ratio\":0.5,\"note\":null},\"after\":{\"id\":7,\"name\":\"Zoë 🎉\",\"price\":\"12.3400\",\"big\":18446744073709551615,\"ratio\":0.5,\"note\":null}},{\"table\":\"app.items\",\"op\":\"DELETE\",\"key\":[7],\"before\":{\"id\":7,\"name\":\"Zoë 🎉\",\"price\":\"12.3400\",\"big\":18446744073709551615,\"ratio\":0.5,\"note\":null}}]}"),
          Map.entry(
              MessageType.ERROR,
              "{\"type\":\"error\",\"code\":\"UNKNOWN_TABLE\",\"message\":\"no table app.nope\",\"table\":\"app.nope\"}"),
          Map.entry(MessageType.PING, "{\"type\":\"ping\",\"nonce\":7}"),
          Map.entry(MessageType.PONG, "{\"type\":\"pong\",\"nonce\":7}"),
          Map.entry(MessageType.SYNC, "{\"type\":\"sync\",\"id\":3}"),
          Map.entry(MessageType.SYNCED, "{\"type\":\"synced\",\"id\":3,\"position\":44}"),
          Map.entry(
              MessageType.FETCH,
              "{\"type\":\"fetch\",\"id\":5,\"table\":\"app.items\",\"keys\":[[7]]}"),
          Map.entry(
              MessageType.FETCHED,
              "{\"type\":\"fetched\",\"id\":5,\"table\":\"app.items\",\"position\":44,\"rows\":[{\"id\":7,\"name\":\"Zoë 🎉\",\"price\":\"12.3400\",\"big\":18446744073709551615,\"ratio\":0.5,\"note\":null}]}"),
          Map.entry(
              MessageType.SCHEMA_CHANGED,
              "{\"type\":\"schema_changed\",\"table\":\"app.items\",\"version\":2,\"columns\":[{\"name\":\"id\",\"dbType\":\"bigint\",\"kind\":\"INTEGER\"},{\"name\":\"name\",\"dbType\":\"varchar(40)\",\"kind\":\"STRING\"}],\"primaryKey\":[\"id\"]}"),
          Map.entry(
              MessageType.TABLE_STATUS,
              "{\"type\":\"table_status\",\"table\":\"app.items\",\"stale\":true,\"reason\":\"a row of app.items with key [7] cannot be read\"}"),
          Map.entry(
              MessageType.CHANGE_PART,
              "{\"type\":\"change_part\",\"position\":43,\"changes\":[{\"table\":\"app.items\",\"op\":\"INSERT\",\"key\":[7],\"after\":{\"id\":7,\"name\":\"Zoë 🎉\",\"price\":\"12.3400\",\"big\":18446744073709551615,\"ratio\":0.5,\"note\":null}}]}"));

  @ParameterizedTest
  @EnumSource(MessageType.class)
  void binaryEncodingIsStable(MessageType type) {
    ByteBuf frame =
        MessageCodec.encodeFrame(SampleMessages.all().get(type), ByteBufAllocator.DEFAULT);
    try {
      assertThat(ByteBufUtil.hexDump(frame)).isEqualTo(BINARY.get(type));
    } finally {
      frame.release();
    }
  }

  @ParameterizedTest
  @EnumSource(MessageType.class)
  void jsonEncodingIsStable(MessageType type) {
    assertThat(MessageCodec.encodeJson(SampleMessages.all().get(type))).isEqualTo(JSON.get(type));
  }

  @ParameterizedTest
  @EnumSource(MessageType.class)
  void goldenBytesDecodeToTheSampleMessage(MessageType type) {
    ByteBuf frame =
        io.netty.buffer.Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(BINARY.get(type)));
    frame.skipBytes(MessageCodec.LENGTH_FIELD_BYTES);
    assertThat(MessageCodec.decodeFrameBody(frame)).isEqualTo(SampleMessages.all().get(type));
    assertThat(MessageCodec.decodeJson(JSON.get(type))).isEqualTo(SampleMessages.all().get(type));
  }
}
