package io.tablecast.server.hub;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.tablecast.protocol.netty.BinaryFraming;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.testing.TestClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A hub with sessions on in-VM (local transport) channels, recording every frame written. */
final class HubHarness implements AutoCloseable {

  /** A frame written to a session's channel: the buffer it shares, its type code and bytes. */
  record Written(Channel channel, Object sharedBuffer, int typeCode, byte[] bytes) {}

  record Session(TestClient client, Subscriber subscriber, Channel serverSide) {}

  final ChangeHub hub;
  final List<Written> written = Collections.synchronizedList(new ArrayList<>());
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(2, LocalIoHandler.newFactory());
  private final LocalAddress address = new LocalAddress("hub-test-" + UUID.randomUUID());
  private final LinkedBlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
  private final Channel server;
  private final List<TestClient> clients = new ArrayList<>();

  /** The session registered for each server-side channel, for writability events. */
  private final Map<Channel, Subscriber> sessions = new ConcurrentHashMap<>();

  HubHarness(Duration heartbeat, int resumeBatches, TableSchema... tables) {
    this(heartbeat, resumeBatches, 64L << 20, tables);
  }

  HubHarness(Duration heartbeat, int resumeBatches, long maxPending, TableSchema... tables) {
    this(TestHubSettings.of(heartbeat, resumeBatches, 1L << 30, maxPending), tables);
  }

  HubHarness(HubSettings settings, TableSchema... tables) {
    this(new ChangeHub(settings), tables);
  }

  /** A hub of a stream: it replays resumes older than its buffer from {@code history}. */
  HubHarness(HubSettings settings, BatchHistory history, TableSchema... tables) {
    this(
        new ChangeHub(
            settings, io.tablecast.server.metrics.ServerMetrics.NOOP, "stream-epoch", history),
        tables);
  }

  private HubHarness(ChangeHub hub, TableSchema... tables) {
    this.hub = hub;
    List<TableImage> images = new ArrayList<>();
    for (TableSchema t : tables) {
      images.add(new TableImage(t));
    }
    hub.install(images, java.util.Map.of());
    server =
        new ServerBootstrap()
            .group(group)
            .channel(LocalServerChannel.class)
            .childHandler(
                new ChannelInitializer<LocalChannel>() {
                  @Override
                  protected void initChannel(LocalChannel ch) {
                    BinaryFraming.addTo(ch.pipeline(), 1 << 20);
                    ch.pipeline()
                        .addLast(
                            new ChannelOutboundHandlerAdapter() {
                              @Override
                              public void write(
                                  ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
                                  throws Exception {
                                if (msg instanceof ByteBuf && ((ByteBuf) msg).readableBytes() > 4) {
                                  ByteBuf b = (ByteBuf) msg;
                                  // beneath the duplicate (and the leak detector's wrapper,
                                  // when it samples the buffer): the encoded buffer
                                  ByteBuf shared = b;
                                  while (shared.unwrap() != null) {
                                    shared = shared.unwrap();
                                  }
                                  written.add(
                                      new Written(
                                          ctx.channel(),
                                          shared,
                                          b.getUnsignedByte(b.readerIndex() + 4),
                                          ByteBufUtil.getBytes(b)));
                                }
                                super.write(ctx, msg, promise);
                              }
                            });
                    // as ClientSessionHandler does: a channel writable again resumes a paused
                    // snapshot or replay (CatchUpSender relies on this event when its last write
                    // completed first)
                    ch.pipeline()
                        .addLast(
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                                Subscriber s = sessions.get(ctx.channel());
                                if (ctx.channel().isWritable() && s != null) {
                                  hub.writable(s);
                                }
                                ctx.fireChannelWritabilityChanged();
                              }
                            });
                    accepted.add(ch);
                  }
                })
            .bind(address)
            .syncUninterruptibly()
            .channel();
  }

  /** Replaces the images: each table with rows 1..rows (before any session subscribes). */
  void load(int rows, TableSchema... tables) {
    List<TableImage> images = new ArrayList<>();
    for (TableSchema table : tables) {
      TableImage image = new TableImage(table);
      for (int i = 1; i <= rows; i++) {
        image.put(FakeChangeSource.bytes(i, "row" + i));
      }
      images.add(image);
    }
    hub.install(images, java.util.Map.of());
  }

  Session connect(String name) throws InterruptedException {
    return connect(name, SessionPolicy.ALLOW_ALL);
  }

  /** A session of a principal that may read what {@code policy} allows. */
  Session connect(String name, SessionPolicy policy) throws InterruptedException {
    return connect(name, policy, Encoding.BINARY);
  }

  /**
   * A session of {@code encoding}: a JSON session's texts travel behind a length, as a WebSocket's
   * text frames would carry them, and its client decodes them as JSON.
   */
  Session connect(String name, SessionPolicy policy, Encoding encoding)
      throws InterruptedException {
    Bootstrap bootstrap = new Bootstrap().group(group).channel(LocalChannel.class);
    TestClient client =
        encoding == Encoding.JSON
            ? TestClient.connectJson(bootstrap, address)
            : TestClient.connect(bootstrap, address);
    clients.add(client);
    Channel serverSide = accepted.poll(5, TimeUnit.SECONDS);
    if (encoding == Encoding.JSON) {
      serverSide.pipeline().addLast(new JsonTexts());
    }
    Subscriber subscriber = hub.register(serverSide, name, encoding, name, policy);
    sessions.put(serverSide, subscriber);
    return new Session(client, subscriber, serverSide);
  }

  /**
   * Frames a JSON session's output: each text (a buffer of the hub's, or a message, e.g. an error,
   * encoded here as the WebSocket codec would) behind its length.
   */
  private static final class JsonTexts extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      ByteBuf text;
      if (msg instanceof io.tablecast.protocol.Message m) {
        text = ctx.alloc().buffer();
        io.tablecast.protocol.MessageCodec.encodeJson(m, text);
      } else {
        text = (ByteBuf) msg;
      }
      ByteBuf length = ctx.alloc().buffer(4).writeInt(text.readableBytes());
      ctx.write(ctx.alloc().compositeBuffer(2).addComponents(true, length, text), promise);
    }
  }

  @Override
  public void close() {
    clients.forEach(TestClient::close);
    hub.close();
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
