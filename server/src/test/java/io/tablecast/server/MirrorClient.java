package io.tablecast.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.netty.BinaryFraming;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal mirror of one table over the binary protocol, for server tests: applies snapshots and
 * batches as the reference client does (a batch at or below its position is skipped), answers
 * pings, can stop reading (so the server sees a stalled client) and, when the server closes the
 * connection, reconnects and resumes from its position (or takes a new snapshot).
 */
final class MirrorClient implements AutoCloseable {

  final String name;
  final String table;

  /** id → name of the rows the mirror holds. */
  final Map<Long, String> rows = new ConcurrentHashMap<>();

  final List<Message.Error> errors = new CopyOnWriteArrayList<>();
  final AtomicInteger connections = new AtomicInteger();
  final AtomicInteger snapshots = new AtomicInteger();
  final AtomicInteger resumes = new AtomicInteger();

  /** Non-empty batches applied. */
  final AtomicInteger batches = new AtomicInteger();

  private final EventLoopGroup group;
  private final InetSocketAddress server;

  /** Receive buffer of the socket (small: the server soon sees a client that does not read). */
  private final int receiveBuffer;

  /** Position of the last applied snapshot end or batch, -1 before the first snapshot. */
  private volatile long position = -1;

  private volatile String epoch;
  private volatile boolean reading = true;
  private volatile boolean closed;
  private volatile Channel channel;

  MirrorClient(
      EventLoopGroup group,
      InetSocketAddress server,
      String name,
      String table,
      int receiveBuffer) {
    this.group = group;
    this.server = server;
    this.name = name;
    this.table = table;
    this.receiveBuffer = receiveBuffer;
    connect();
  }

  long position() {
    return position;
  }

  boolean connected() {
    Channel ch = channel;
    return ch != null && ch.isActive();
  }

  /** Stops reading: the socket buffers fill and the server sees an unwritable channel. */
  void stopReading() {
    reading = false;
    channel.config().setAutoRead(false);
  }

  /** Reads again (what the server queued, then live changes). */
  void startReading() {
    reading = true;
    Channel ch = channel;
    ch.config().setAutoRead(true);
    ch.read();
  }

  private void connect() {
    Bootstrap b =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.SO_RCVBUF, receiveBuffer)
            .option(ChannelOption.AUTO_READ, reading)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    BinaryFraming.addTo(ch.pipeline(), 64 << 20);
                    ch.pipeline().addLast(new Session());
                  }
                });
    b.connect(server)
        .addListener(
            f -> {
              if (!f.isSuccess()) {
                retry();
              }
            });
  }

  private void retry() {
    if (!closed) {
      group.schedule(this::connect, 50, TimeUnit.MILLISECONDS);
    }
  }

  /** One connection: hello and subscribe at once (the server queues them), then the stream. */
  private final class Session extends SimpleChannelInboundHandler<Message> {
    private Map<Long, String> incoming;
    private String sessionEpoch;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      channel = ctx.channel();
      connections.incrementAndGet();
      ctx.write(Unpooled.wrappedBuffer(MessageCodec.MAGIC));
      ctx.write(new Message.Hello(Message.PROTOCOL_VERSION, name, null, null, null));
      ctx.writeAndFlush(
          position >= 0
              ? new Message.Subscribe(List.of(table), epoch, position)
              : Message.Subscribe.fresh(List.of(table)));
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message m) {
      if (m instanceof Message.Welcome w) {
        sessionEpoch = w.epoch();
      } else if (m instanceof Message.SnapshotBegin) {
        incoming = new HashMap<>();
      } else if (m instanceof Message.SnapshotRows r) {
        for (ObjectNode row : r.rows()) {
          incoming.put(row.get("id").longValue(), row.get("name").textValue());
        }
      } else if (m instanceof Message.SnapshotEnd e) {
        rows.keySet().retainAll(incoming.keySet());
        rows.putAll(incoming);
        incoming = null;
        position = e.position();
        epoch = sessionEpoch;
        snapshots.incrementAndGet();
      } else if (m instanceof Message.Resumed) {
        resumes.incrementAndGet();
        epoch = sessionEpoch;
      } else if (m instanceof Message.ChangeBatch b) {
        apply(b);
      } else if (m instanceof Message.Ping p) {
        ctx.writeAndFlush(new Message.Pong(p.nonce()));
      } else if (m instanceof Message.Error e) {
        errors.add(e);
      }
    }

    private void apply(Message.ChangeBatch b) {
      if (position < 0 || b.position() <= position) {
        return; // before the first snapshot, or already applied
      }
      for (Message.Change c : b.changes()) {
        long id = c.key().get(0).longValue();
        if (c.op() == Op.DELETE) {
          rows.remove(id);
        } else {
          rows.put(id, c.after().get("name").textValue());
        }
      }
      position = b.position();
      if (!b.changes().isEmpty()) {
        batches.incrementAndGet();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      retry();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    Channel ch = channel;
    if (ch != null) {
      ch.close().syncUninterruptibly();
    }
  }

  @Override
  public String toString() {
    return name
        + "[position "
        + position
        + ", "
        + rows.size()
        + " rows, "
        + connections
        + " connections]";
  }
}
