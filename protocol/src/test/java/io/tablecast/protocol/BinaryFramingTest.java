package io.tablecast.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.tablecast.protocol.netty.BinaryFraming;
import org.junit.jupiter.api.Test;

class BinaryFramingTest {

  private static EmbeddedChannel channel(int maxFrame) {
    EmbeddedChannel ch = new EmbeddedChannel();
    BinaryFraming.addTo(ch.pipeline(), maxFrame);
    return ch;
  }

  @Test
  void framesSplitAcrossReadsAreReassembled() {
    EmbeddedChannel ch = channel(1 << 20);
    ByteBuf frame = MessageCodec.encodeFrame(new Message.Ping(99), ByteBufAllocator.DEFAULT);
    ch.writeInbound(frame.readRetainedSlice(3));
    assertThat((Object) ch.readInbound()).isNull();
    ch.writeInbound(frame);
    assertThat((Object) ch.readInbound()).isEqualTo(new Message.Ping(99));
    ch.finishAndReleaseAll();
  }

  @Test
  void encoderWritesMessagesAndPassesPreEncodedFramesThrough() {
    EmbeddedChannel ch = channel(1 << 20);
    ch.writeOutbound(new Message.Pong(5));
    ByteBuf written = ch.readOutbound();
    ByteBuf expected = MessageCodec.encodeFrame(new Message.Pong(5), ByteBufAllocator.DEFAULT);
    assertThat(written).isEqualTo(expected);
    ch.writeOutbound(expected.retainedDuplicate());
    ByteBuf passed = ch.readOutbound();
    assertThat(passed).isEqualTo(expected);
    written.release();
    passed.release();
    expected.release();
    ch.finishAndReleaseAll();
  }

  @Test
  void oversizedFrameIsRefusedBeforeItIsBuffered() {
    EmbeddedChannel ch = channel(64);
    ByteBuf header = ByteBufAllocator.DEFAULT.buffer().writeInt(1_000_000).writeByte(1);
    assertThatThrownBy(() -> ch.writeInbound(header)).isInstanceOf(TooLongFrameException.class);
    ch.finishAndReleaseAll();
  }

  @Test
  void malformedBodySurfacesAsProtocolException() {
    EmbeddedChannel ch = channel(1 << 20);
    ByteBuf bad =
        ByteBufAllocator.DEFAULT
            .buffer()
            .writeInt(2)
            .writeByte(MessageType.PING.code())
            .writeByte(0xff);
    assertThatThrownBy(() -> ch.writeInbound(bad))
        .isInstanceOf(DecoderException.class)
        .hasCauseInstanceOf(ProtocolException.class)
        .hasMessageContaining("malformed ping frame");
    ch.finishAndReleaseAll();
  }
}
