package io.tablecast.protocol.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.RowLayouts;
import java.util.List;

/**
 * Netty handlers for the binary encoding: length-prefixed frames carrying one {@link Message} each.
 * Pre-encoded frames (a {@link ByteBuf} from {@link MessageCodec#encodeFrame}) pass the encoder
 * untouched, so a batch encoded once can be written to many channels.
 */
public final class BinaryFraming {

  private BinaryFraming() {}

  /**
   * Adds the frame decoder, message decoder and message encoder to the end of a pipeline.
   *
   * @param maxFrameBytes frames longer than this are refused with a {@code TooLongFrameException}
   */
  public static void addTo(ChannelPipeline pipeline, int maxFrameBytes) {
    LengthFieldBasedFrameDecoder frames =
        new LengthFieldBasedFrameDecoder(
            maxFrameBytes, 0, MessageCodec.LENGTH_FIELD_BYTES, 0, MessageCodec.LENGTH_FIELD_BYTES);
    frames.setCumulator(FRAME_SIZED);
    pipeline.addLast("frame-decoder", frames);
    pipeline.addLast("message-decoder", new MessageDecoder());
    pipeline.addLast("message-encoder", ENCODER);
  }

  private static final MessageEncoder ENCODER = new MessageEncoder();

  /**
   * Gathers a frame's reads as Netty's merging cumulator does, but grows the buffer towards the
   * frame's announced length by doubling. Netty grows a buffer past 4 MiB in steps of 4 MiB, each a
   * new buffer and a copy of all that arrived: a 190 MiB change (a 200 MB value) took 48 copies,
   * about 4.5 GB copied and zeroed, and kept a client busy for most of half a minute. Doubling, and
   * the frame's whole size once a quarter of it is here, allocates about twice the frame in all,
   * and never more than four times what arrived (a peer that announces a large frame and sends
   * nothing costs nothing).
   */
  static final ByteToMessageDecoder.Cumulator FRAME_SIZED =
      (alloc, cumulation, in) -> {
        int header = MessageCodec.LENGTH_FIELD_BYTES;
        if (cumulation.readableBytes() < header
            || cumulation.writableBytes() >= in.readableBytes()
            || cumulation.refCnt() > 1
            || cumulation.isReadOnly()) {
          return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        long needed = (long) cumulation.readableBytes() + in.readableBytes();
        long frame = header + cumulation.getUnsignedInt(cumulation.readerIndex());
        // double, or once a quarter of the frame is here, take the whole frame's size at once
        long capacity = frame <= 4 * needed ? Math.max(needed, frame) : 2 * needed;
        if (capacity > Integer.MAX_VALUE - 8) {
          return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        ByteBuf grown = alloc.buffer((int) capacity);
        try {
          grown.writeBytes(cumulation).writeBytes(in);
        } catch (RuntimeException | Error e) {
          grown.release();
          throw e;
        } finally {
          in.release();
        }
        cumulation.release();
        return grown;
      };

  /**
   * Turns a frame body into a {@link Message}, giving the rows of protocol version 3 their table's
   * layout as announced on this connection ({@link RowLayouts}); failures surface as {@code
   * ProtocolException}. One per channel.
   */
  static final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {
    private final RowLayouts layouts = new RowLayouts();

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
      out.add(layouts.bind(MessageCodec.decodeFrameBody(frame)));
    }
  }

  @ChannelHandler.Sharable
  static final class MessageEncoder extends MessageToByteEncoder<Message> {
    @Override
    protected void encode(ChannelHandlerContext ctx, Message msg, ByteBuf out) {
      MessageCodec.encodeFrame(msg, out);
    }
  }
}
