package io.tablecast.bench;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.MessageType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * Many lightweight subscribers in one JVM: raw Netty connections speaking the binary protocol (the
 * frame layout of {@code BinaryFraming}) on one shared 2-thread event loop. They do not build
 * mirrors: change batches are counted without row objects ({@link #countBatch}); control messages
 * (welcome, snapshot end, ping, error) are decoded with {@link MessageCodec}.
 */
final class RawSubscribers implements AutoCloseable {
  private static final CBORFactory CBOR = new CBORFactory();
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(
          2, new DefaultThreadFactory("bench-sub", true), NioIoHandler.newFactory());
  private final List<Channel> channels = new ArrayList<>();
  final LongAdder changes = new LongAdder();
  final LongAdder batches = new LongAdder();
  final AtomicInteger ready = new AtomicInteger();
  final AtomicReference<String> error = new AtomicReference<>();

  /** Batch position → {frame length, changes}, filled by the first subscriber to walk a batch. */
  private final Map<Long, long[]> counted = new ConcurrentHashMap<>();

  /** Capture (outbox insert, database clock) to receipt, ms. */
  final ConcurrentHistogram captureToReceiptMs = new ConcurrentHistogram(3_600_000L, 3);

  volatile boolean recordLag;

  void connect(String host, int port, String table, int count) throws InterruptedException {
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            new LengthFieldBasedFrameDecoder(
                                256 << 20,
                                0,
                                MessageCodec.LENGTH_FIELD_BYTES,
                                0,
                                MessageCodec.LENGTH_FIELD_BYTES));
                    ch.pipeline().addLast(new Handler(table));
                  }
                });
    for (int i = 0; i < count; i++) {
      channels.add(b.connect(host, port).sync().channel());
    }
  }

  private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
    private final String table;

    Handler(String table) {
      this.table = table;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      // a write that fails is recorded as the run's error, through exceptionCaught
      ctx.write(Unpooled.wrappedBuffer(MessageCodec.MAGIC))
          .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
      ctx.writeAndFlush(
              MessageCodec.encodeFrame(
                  new Message.Hello(Message.PROTOCOL_VERSION, "bench-raw", null, null, null),
                  ctx.alloc()))
          .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) throws IOException {
      int code = frame.getUnsignedByte(frame.readerIndex());
      if (code == MessageType.CHANGE_BATCH.code()) {
        frame.skipBytes(1);
        countBatch(frame);
        return;
      }
      if (code == MessageType.SNAPSHOT_ROWS.code() || code == MessageType.SNAPSHOT_BEGIN.code()) {
        return;
      }
      Message m = MessageCodec.decodeFrameBody(frame);
      if (m instanceof Message.Welcome) {
        ctx.writeAndFlush(
                MessageCodec.encodeFrame(Message.Subscribe.fresh(List.of(table)), ctx.alloc()))
            .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
      } else if (m instanceof Message.SnapshotEnd) {
        ready.incrementAndGet();
      } else if (m instanceof Message.Ping p) {
        ctx.writeAndFlush(MessageCodec.encodeFrame(new Message.Pong(p.nonce()), ctx.alloc()))
            .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
      } else if (m instanceof Message.Error e) {
        error.compareAndSet(null, e.code() + ": " + e.message());
      }
    }

    @Override
    @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      error.compareAndSet(null, cause.toString());
      ctx.close();
    }
  }

  /**
   * Counts the changes of a batch. Every subscriber gets the same bytes for the same batch (the
   * server encodes a batch once), so only the first subscriber to receive a batch walks its {@code
   * changes} array; the others read the header ({@code position}, {@code captureMillis}) and reuse
   * that count when their frame has the same position and length. A frame that differs (e.g.
   * coalesced for a slow subscriber) is walked too. This keeps the harness's CPU per frame small,
   * so that a thousand subscribers measure the server rather than the bench JVM.
   */
  private void countBatch(ByteBuf body) throws IOException {
    int length = body.readableBytes();
    long position = Long.MIN_VALUE;
    long capture = -1;
    try (JsonParser p =
        CBOR.createParser((java.io.InputStream) new ByteBufInputStream(body.duplicate()))) {
      if (p.nextToken() == JsonToken.START_OBJECT) {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String f = p.currentName();
          JsonToken t = p.nextToken();
          if (f.equals("changes")) {
            break;
          } else if (f.equals("position") && t.isNumeric()) {
            position = p.getLongValue();
          } else if (f.startsWith("capture") && t.isNumeric()) {
            capture = p.getLongValue();
          } else {
            p.skipChildren();
          }
        }
      }
    }
    long[] known = position == Long.MIN_VALUE ? null : counted.get(position);
    int n;
    if (known != null && known[0] == length) {
      n = (int) known[1];
    } else {
      n = walkChanges(body);
      if (position != Long.MIN_VALUE) {
        counted.putIfAbsent(position, new long[] {length, n});
      }
    }
    changes.add(n);
    if (recordLag && capture > 0) {
      captureToReceiptMs.recordValue(
          Math.max(0, Math.min(3_600_000L, System.currentTimeMillis() - capture)));
    }
    batches.increment();
  }

  /** The number of elements of the batch's {@code changes} array, without materializing them. */
  private static int walkChanges(ByteBuf body) throws IOException {
    try (JsonParser p = CBOR.createParser((java.io.InputStream) new ByteBufInputStream(body))) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return 0;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String f = p.currentName();
        JsonToken t = p.nextToken();
        if (f.equals("changes") && t == JsonToken.START_ARRAY) {
          int n = 0;
          while (p.nextToken() != JsonToken.END_ARRAY) {
            p.skipChildren();
            n++;
          }
          return n;
        }
        p.skipChildren();
      }
      return 0;
    }
  }

  int connected() {
    int n = 0;
    for (Channel c : channels) {
      if (c.isActive()) {
        n++;
      }
    }
    return n;
  }

  @Override
  @SuppressWarnings(
      "FutureReturnValueIgnored") // closes have nothing to report; the loop below waits for them
  public void close() {
    for (Channel c : channels) {
      c.close();
    }
    for (Channel c : channels) {
      c.closeFuture().awaitUninterruptibly(2000);
    }
    group
        .shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS)
        .awaitUninterruptibly(5000);
  }
}
