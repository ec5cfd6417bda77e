package io.tablecast.server.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.netty.BinaryFraming;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A tiny hand-made binary client: collects every message it receives. */
public final class TestClient implements AutoCloseable {

  public final Channel channel;
  private final LinkedBlockingQueue<Message> received;

  /** Connects over TCP and sends the magic. */
  public static TestClient tcp(EventLoopGroup group, SocketAddress address) throws InterruptedException {
    LinkedBlockingQueue<Message> queue = new LinkedBlockingQueue<>();
    Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .handler(initializer(queue)).connect(address).sync().channel();
    ch.writeAndFlush(Unpooled.wrappedBuffer(MessageCodec.MAGIC)).sync();
    return new TestClient(ch, queue);
  }

  /**
   * A client that says hello, subscribes to {@code tables} and never reads a byte: a plain socket
   * with a tiny receive buffer, so that the server's writes to it soon stall. Close it when done.
   */
  public static java.net.Socket stalled(java.net.InetSocketAddress server, String name, String... tables)
      throws java.io.IOException {
    java.net.Socket s = new java.net.Socket();
    s.setReceiveBufferSize(4096);
    s.connect(server);
    io.netty.buffer.ByteBuf out = Unpooled.buffer();
    out.writeBytes(MessageCodec.MAGIC);
    MessageCodec.encodeFrame(new Message.Hello(Message.PROTOCOL_VERSION, name, null, null, null), out);
    MessageCodec.encodeFrame(Message.Subscribe.fresh(java.util.List.of(tables)), out);
    s.getOutputStream().write(io.netty.buffer.ByteBufUtil.getBytes(out));
    out.release();
    return s;
  }

  /** Connects with any channel type (no magic is sent; for local channels in hub tests). */
  public static TestClient connect(Bootstrap bootstrap, SocketAddress address) throws InterruptedException {
    LinkedBlockingQueue<Message> queue = new LinkedBlockingQueue<>();
    Channel ch = bootstrap.handler(initializer(queue)).connect(address).sync().channel();
    return new TestClient(ch, queue);
  }

  private TestClient(Channel channel, LinkedBlockingQueue<Message> queue) {
    this.channel = channel;
    this.received = queue;
  }

  private static ChannelInitializer<Channel> initializer(LinkedBlockingQueue<Message> queue) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Channel ch) {
        BinaryFraming.addTo(ch.pipeline(), 64 << 20);
        ch.pipeline().addLast(new SimpleChannelInboundHandler<Message>() {
          @Override
          protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            queue.add(msg);
          }
        });
      }
    };
  }

  public void send(Message m) {
    channel.writeAndFlush(m).syncUninterruptibly();
  }

  /** The next message, failing the test after 10 s. */
  public Message next() throws InterruptedException {
    Message m = queue().poll(10, TimeUnit.SECONDS);
    assertThat(m).as("a message within 10 s").isNotNull();
    return m;
  }

  @SuppressWarnings("unchecked")
  public <T extends Message> T next(Class<T> type) throws InterruptedException {
    Message m = next();
    assertThat(m).isInstanceOf(type);
    return (T) m;
  }

  /** The next message that is not an empty (heartbeat) batch nor a ping. */
  public Message nextNonHeartbeat() throws InterruptedException {
    while (true) {
      Message m = next();
      if (m instanceof Message.Ping) {
        continue;
      }
      if (!(m instanceof Message.ChangeBatch) || !((Message.ChangeBatch) m).changes().isEmpty()) {
        return m;
      }
    }
  }

  /** Everything received so far. */
  public List<Message> drain() {
    List<Message> out = new ArrayList<>();
    queue().drainTo(out);
    return out;
  }

  public LinkedBlockingQueue<Message> queue() {
    return received;
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }
}
