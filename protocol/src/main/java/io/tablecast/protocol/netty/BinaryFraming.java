package io.tablecast.protocol.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
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
    pipeline.addLast(
        "frame-decoder",
        new LengthFieldBasedFrameDecoder(
            maxFrameBytes, 0, MessageCodec.LENGTH_FIELD_BYTES, 0, MessageCodec.LENGTH_FIELD_BYTES));
    pipeline.addLast("message-decoder", new MessageDecoder());
    pipeline.addLast("message-encoder", ENCODER);
  }

  private static final MessageEncoder ENCODER = new MessageEncoder();

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
