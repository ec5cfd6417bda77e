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

  /**
   * A frame of 48 MiB arriving in reads of 64 KiB: the buffers the decoder allocates to gather it
   * add up to about twice the frame (measured: 1.97 times). Netty's own growth past 4 MiB (4 MiB at
   * a time, a new buffer and a copy each) allocated 4 + 8 + ... + 48 = 312 MiB, six and a half
   * frames; a 190 MiB change took 48 copies and kept a client busy for half a minute.
   */
  @Test
  void aLargeFrameIsGatheredInBuffersThatDoubleNotInFourMebibyteSteps() {
    CountingAllocator counting = new CountingAllocator();
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setAllocator(counting);
    BinaryFraming.addTo(ch.pipeline(), 64 << 20);
    int body = 48 << 20;
    byte[] read = new byte[64 << 10];
    ByteBuf first = counting.heapBuffer(read.length);
    first.writeInt(body).writeBytes(read, 0, read.length - 4);
    ch.writeInbound(first);
    long sent = read.length;
    while (sent + read.length < body) { // all but the end: nothing is decoded, nothing is wrong
      ch.writeInbound(counting.heapBuffer(read.length).writeBytes(read));
      sent += read.length;
    }
    assertThat((Object) ch.readInbound()).isNull();
    assertThat(counting.allocated.get() - sent) // the reads' own buffers aside
        .as("bytes allocated to gather %d bytes of a %d-byte frame", sent, body + 4)
        .isLessThan(5L * body / 2);
    ch.finishAndReleaseAll();
  }

  /**
   * Encoding a 48 MB frame into a small buffer: the arrays it grows through add up to less than
   * four frames (doubling), where Netty's steps of 4 MiB allocated 6.9 (and ever more, the larger
   * the frame: 48 copies for a 190 MiB change).
   */
  @Test
  void aLargeFrameIsEncodedIntoABufferThatDoubles() {
    CountingAllocator counting = new CountingAllocator();
    String reason = "x".repeat(48_000_000);
    ByteBuf out = counting.buffer(256);
    MessageCodec.encodeFrame(new Message.TableStatus("t", true, reason), out);
    assertThat(out.readableBytes()).isGreaterThan(48_000_000);
    assertThat(counting.allocated.get())
        .as("bytes allocated to encode a %d-byte frame", out.readableBytes())
        .isLessThan(4L * out.readableBytes()); // doubling: under 4 (2.8 here); before, 6.9
    out.release();
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
