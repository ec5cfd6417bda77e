package io.tablecast.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.netty.BinaryFraming;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scriptable Tablecast server on loopback for client tests: each accepted connection is handed to
 * the test, which reads what the client sent and writes what the server should say.
 */
final class FakeServer implements AutoCloseable {
  static final ObjectMapper JSON = MessageCodec.jsonMapper();
  static final String EPOCH = "epoch-1";

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final BlockingQueue<Conn> connections = new LinkedBlockingQueue<>();
  private final Channel serverChannel;

  FakeServer() throws InterruptedException {
    serverChannel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    Conn conn = new Conn(ch);
                    ch.pipeline().addLast(new MagicCheck());
                    BinaryFraming.addTo(ch.pipeline(), 1 << 20);
                    ch.pipeline()
                        .addLast(
                            new SimpleChannelInboundHandler<Message>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                                conn.received.add(msg);
                              }
                            });
                    connections.add(conn);
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
  }

  String address() {
    return "127.0.0.1:" + ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /** Connections made and not accepted yet. */
  int waitingConnections() {
    return connections.size();
  }

  /** The next client connection, waiting up to 10 s. */
  Conn accept() throws InterruptedException {
    return accept(10);
  }

  /** The next client connection, waiting up to {@code seconds}. */
  Conn accept(int seconds) throws InterruptedException {
    Conn c = connections.poll(seconds, TimeUnit.SECONDS);
    if (c == null) {
      throw new AssertionError("no client connected within " + seconds + " s");
    }
    return c;
  }

  /** Accepts a connection, expects the hello, answers welcome, returns the subscribe. */
  Conn handshake(long position) throws InterruptedException {
    return handshake(EPOCH, position, 10_000);
  }

  /** Like {@link #handshake(long)} with a given epoch and heartbeat interval. */
  Conn handshake(String epoch, long position, long heartbeatMillis) throws InterruptedException {
    Conn c = accept();
    c.expect(Message.Hello.class);
    c.send(new Message.Welcome(1, "fake", epoch, position, heartbeatMillis));
    return c;
  }

  @Override
  public void close() {
    serverChannel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One accepted client connection. */
  static final class Conn {
    final Channel channel;
    final BlockingQueue<Message> received = new LinkedBlockingQueue<>();

    Conn(Channel channel) {
      this.channel = channel;
    }

    <T extends Message> T expect(Class<T> type) throws InterruptedException {
      Message m = received.poll(10, TimeUnit.SECONDS);
      if (m == null) {
        throw new AssertionError("client sent no " + type.getSimpleName() + " within 10 s");
      }
      if (!type.isInstance(m)) {
        throw new AssertionError("expected " + type.getSimpleName() + " but client sent " + m);
      }
      return type.cast(m);
    }

    Conn send(Message... messages) {
      for (Message m : messages) {
        channel.write(m);
      }
      channel.flush();
      return this;
    }

    /** Sends a whole snapshot of one table: begin, one rows chunk, end. */
    Conn snapshot(String table, List<String> pk, long position, ObjectNode... rows) {
      List<ColumnInfo> cols = new ArrayList<>();
      if (rows.length > 0) {
        rows[0].fieldNames().forEachRemaining(n -> cols.add(column(n, rows[0].get(n))));
      }
      return snapshot(table, cols, pk, position, rows);
    }

    /** As {@link #snapshot(String, List, long, ObjectNode...)}, with the columns given. */
    Conn snapshot(
        String table, List<ColumnInfo> cols, List<String> pk, long position, ObjectNode... rows) {
      return send(
          new Message.SnapshotBegin(table, cols, pk, position, rows.length),
          new Message.SnapshotRows(table, Arrays.asList(rows)),
          new Message.SnapshotEnd(table, position));
    }

    void close() {
      channel.close().syncUninterruptibly();
    }
  }

  /** A column whose kind is that of {@code value}: a number, a boolean, else text. */
  private static ColumnInfo column(String name, JsonNode value) {
    if (value.isIntegralNumber()) {
      return new ColumnInfo(name, "bigint", ColumnKind.INTEGER);
    }
    if (value.isNumber()) {
      return new ColumnInfo(name, "double", ColumnKind.FLOAT);
    }
    return value.isBoolean()
        ? new ColumnInfo(name, "boolean", ColumnKind.BOOLEAN)
        : new ColumnInfo(name, "text", ColumnKind.STRING);
  }

  /** A JSON row from alternating names and values, e.g. {@code row("id", 1, "name", "a")}. */
  static ObjectNode row(Object... nameValues) {
    ObjectNode n = JSON.createObjectNode();
    for (int i = 0; i < nameValues.length; i += 2) {
      n.set((String) nameValues[i], JSON.valueToTree(nameValues[i + 1]));
    }
    // round-trip through the codec's node factory, as rows arriving on the wire would
    try {
      return (ObjectNode) JSON.readTree(JSON.writeValueAsString(n));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static ArrayNode key(Object... parts) {
    ArrayNode a = JSON.createArrayNode();
    for (Object p : parts) {
      a.add((JsonNode) JSON.valueToTree(p));
    }
    return a;
  }

  static Message.Change insert(String table, ObjectNode after, Object... key) {
    return new Message.Change(table, Op.INSERT, key(key), null, after);
  }

  static Message.Change update(String table, ObjectNode before, ObjectNode after, Object... key) {
    return new Message.Change(table, Op.UPDATE, key(key), before, after);
  }

  static Message.Change delete(String table, ObjectNode before, Object... key) {
    return new Message.Change(table, Op.DELETE, key(key), before, null);
  }

  static Message.ChangeBatch batch(long position, Message.Change... changes) {
    return new Message.ChangeBatch(position, 0, List.of(changes));
  }

  /** Strips and checks the four magic bytes a binary client sends first. */
  static final class MagicCheck extends ByteToMessageDecoder {
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (in.readableBytes() < MessageCodec.MAGIC.length) {
        return;
      }
      byte[] magic = new byte[MessageCodec.MAGIC.length];
      in.readBytes(magic);
      if (!Arrays.equals(magic, MessageCodec.MAGIC)) {
        throw new IllegalStateException("bad magic " + Arrays.toString(magic));
      }
      ctx.pipeline().remove(this);
    }
  }
}
