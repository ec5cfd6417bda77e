package io.tablecast.server.net;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.netty.BinaryFraming;
import io.tablecast.server.auth.Admission;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.console.Console;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.metrics.ServerMetrics;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The listening socket: NIO transport, one boss and one worker event-loop group, write-buffer water
 * marks from the configuration, and {@link ProtocolDetector} first on every connection.
 */
public final class NettyServer implements AutoCloseable {

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final Channel serverChannel;

  /** Every accepted connection, whatever its state, so that shutdown reaches all of them. */
  private final ChannelGroup connections;

  /** What the HTTP side lets in now: replaced while serving ({@link #access}). */
  private final WebAccess access;

  private NettyServer(
      EventLoopGroup boss,
      EventLoopGroup workers,
      Channel serverChannel,
      ChannelGroup connections,
      WebAccess access) {
    this.access = access;
    this.boss = boss;
    this.workers = workers;
    this.serverChannel = serverChannel;
    this.connections = connections;
  }

  /**
   * Starts accepting clients on {@code bound}, a socket already bound to the configured address
   * ({@link StartingPort#handOver}), which this server owns from now on (closed when the start
   * fails): the port is never unbound between the start and serving. {@code GET /health} reports
   * what {@code health} says; the operations console is at {@code /console} (none when {@code
   * console} is null).
   */
  // closes and shutdowns have nothing to report: the handshake timer only closes, a failed start is
  // rethrown
  @SuppressWarnings("FutureReturnValueIgnored")
  public static NettyServer bind(
      NetSettings config,
      ChangeHub hub,
      Authenticator authenticator,
      ServerMetrics metrics,
      HealthCheck health,
      Console console,
      ServerSocketChannel bound)
      throws InterruptedException {
    EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    EventLoopGroup workers = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
    ChannelGroup connections =
        new DefaultChannelGroup("tablecast-connections", GlobalEventExecutor.INSTANCE);
    ClientSessionHandler.Settings settings =
        new ClientSessionHandler.Settings(
            config.serverName(),
            config.heartbeat().toMillis(),
            config.handshakeTimeout().toMillis(),
            metrics);
    HttpHandler.Settings http =
        new HttpHandler.Settings(
            hub,
            authenticator,
            settings,
            config.maxFrameBytes(),
            health,
            config.staticDir(),
            config.staticClientDir(),
            config.access(),
            console,
            new WebSocketOrigins(config.access(), metrics));
    ConnectionLimits limits = new ConnectionLimits(config.maxConnections(), metrics);
    long idleTimeoutMillis = config.idleTimeout().toMillis();
    try {
      // TLS (optional): built before binding so that a bad certificate or key fails the start
      ServerCertificates tls = config.tls() == null ? null : ServerCertificates.load(config.tls());
      if (tls != null) {
        metrics.tlsCertificateGauge(() -> tls.served().getNotAfter().toInstant().getEpochSecond());
      }
      if (tls != null && !config.tls().reloadInterval().isZero()) {
        long every = config.tls().reloadInterval().toMillis();
        // on the acceptor's loop: a few small files read, and a context built only when they
        // changed; the schedule ends with the loop
        boss.scheduleWithFixedDelay(tls::reloadIfChanged, every, every, TimeUnit.MILLISECONDS);
      }
      ServerBootstrap b =
          new ServerBootstrap()
              .group(boss, workers)
              .childOption(ChannelOption.TCP_NODELAY, true)
              .childOption(
                  ChannelOption.WRITE_BUFFER_WATER_MARK,
                  new WriteBufferWaterMark(
                      config.writeBuffer().lowWaterMark(), config.writeBuffer().highWaterMark()))
              .childHandler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                      connections.add(ch);
                      limits.accepted(
                          ch); // max_connections: marks the connection refused when over
                      ch.pipeline()
                          .addLast(
                              "idle-guard",
                              new ConnectionLimits.IdleGuard(
                                  idleTimeoutMillis, settings.heartbeatMillis(), metrics));
                      if (tls != null) {
                        ch.pipeline()
                            .addLast(
                                "tls-detector",
                                new TlsDetector(
                                    tls::current,
                                    config.tls().allowPlaintext(),
                                    settings.handshakeTimeoutMillis()));
                      }
                      ch.pipeline()
                          .addLast(
                              "detector",
                              detector(hub, authenticator, settings, config.maxFrameBytes(), http));
                      // a connection that never sends its first bytes: the session handler's own
                      // hello deadline only starts once the protocol is known
                      ch.eventLoop()
                          .schedule(
                              () -> {
                                if (ch.pipeline().get("detector") != null
                                    || (ch.pipeline().get("session") == null
                                        && ch.pipeline().get("http") != null
                                        && !ch.hasAttr(HttpHandler.SERVED))) {
                                  // no protocol yet, or an HTTP connection whose first request
                                  // (e.g. the WebSocket upgrade) is still incomplete
                                  ch.close();
                                }
                              },
                              settings.handshakeTimeoutMillis(),
                              TimeUnit.MILLISECONDS);
                    }
                  });
      Channel ch = acceptOn(b, bound);
      return new NettyServer(boss, workers, ch, connections, config.access());
    } catch (InterruptedException | RuntimeException e) {
      StartingPort.closeQuietly(bound);
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  /**
   * Accepts on a socket bound already. Registered without reading, since the registration of a
   * bound socket makes it active at once while the acceptor that hands each connection to the
   * workers is added by a task the registration queues; accepting begins after that task.
   */
  private static Channel acceptOn(ServerBootstrap b, ServerSocketChannel bound)
      throws InterruptedException {
    Channel ch =
        b.channelFactory(() -> new NioServerSocketChannel(bound))
            .option(ChannelOption.AUTO_READ, false)
            .register()
            .sync()
            .channel();
    ch.eventLoop().submit(() -> {}).sync();
    ch.config().setAutoRead(true);
    return ch;
  }

  /**
   * The protocol detector with the server's binary pipeline behind it; HTTP without static files.
   */
  static ProtocolDetector detector(
      ChangeHub hub,
      Authenticator authenticator,
      ClientSessionHandler.Settings settings,
      int maxFrameBytes) {
    return detector(
        hub,
        authenticator,
        settings,
        maxFrameBytes,
        new HttpHandler.Settings(
            hub,
            authenticator,
            settings,
            maxFrameBytes,
            HealthCheck.alwaysUp(),
            null,
            null,
            null,
            null,
            new WebSocketOrigins(new WebAccess(null, List.of()), ServerMetrics.NOOP)));
  }

  /** The protocol detector with the server's binary and HTTP/WebSocket pipelines behind it. */
  static ProtocolDetector detector(
      ChangeHub hub,
      Authenticator authenticator,
      ClientSessionHandler.Settings settings,
      int maxFrameBytes,
      HttpHandler.Settings http) {
    return new ProtocolDetector(
        new ProtocolDetector.Protocols() {
          @Override
          public void binary(ChannelPipeline pipeline) {
            if (ConnectionLimits.refuseBinary(pipeline)) {
              return;
            }
            BinaryFraming.addTo(pipeline, maxFrameBytes);
            pipeline.addLast("session", new ClientSessionHandler(hub, authenticator, settings));
          }

          @Override
          public void http(ChannelPipeline pipeline) {
            if (ConnectionLimits.refuseHttp(pipeline)) {
              return;
            }
            pipeline.addLast("http-codec", new HttpServerCodec());
            // requests are small (GETs and the upgrade); anything bigger is not for this server
            pipeline.addLast("http-aggregator", new HttpObjectAggregator(HTTP_MAX_REQUEST_BYTES));
            pipeline.addLast("ws-origin", http.origins()); // a page of another site: refused
            pipeline.addLast(
                "ws-protocol",
                new WebSocketServerProtocolHandler(
                    WebSocketServerProtocolConfig.newBuilder()
                        .websocketPath(WEBSOCKET_PATH)
                        .checkStartsWith(false)
                        .maxFramePayloadLength(maxFrameBytes)
                        .handshakeTimeoutMillis(settings.handshakeTimeoutMillis())
                        .allowExtensions(false)
                        .build()));
            pipeline.addLast("http", new HttpHandler(http));
          }

          @Override
          public void other(ChannelHandlerContext ctx) {
            ProtocolDetector.rejectNotBinary(ctx);
          }
        });
  }

  /** The WebSocket endpoint: one JSON message per text frame. */
  public static final String WEBSOCKET_PATH = "/ws";

  /** Largest HTTP request (headers aside) accepted; requests are GETs and the WebSocket upgrade. */
  static final int HTTP_MAX_REQUEST_BYTES = 8192;

  /**
   * {@code metrics_token} and {@code allowed_origins} as the port applies them now; {@link
   * WebAccess#replace} changes them for the requests and handshakes that come after.
   */
  public WebAccess access() {
    return access;
  }

  /**
   * Ends the open sessions for which {@code why} gives a reason (the access rules changed): each
   * gets {@code AUTHENTICATION_FAILED} with it and is closed; its client connects again under the
   * new rules. Returns how many.
   */
  public int withdraw(Function<Admission, String> why) {
    int ended = 0;
    for (Channel ch : connections) {
      Admission admitted = ch.attr(ClientSessionHandler.ADMISSION).get();
      String reason = admitted == null ? null : why.apply(admitted);
      if (reason != null) {
        ch.pipeline().fireUserEventTriggered(new Admission.Withdrawn(reason));
        ended++;
      }
    }
    return ended;
  }

  /** The bound port (useful when the configuration asked for port 0). */
  public int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  /**
   * Stops accepting, tells every connection {@code SHUTTING_DOWN} (binary sessions that completed
   * the handshake get the error frame; the write is awaited briefly so it reaches the socket before
   * the close), closes them and stops the event loops.
   */
  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly();
    Message.Error bye =
        Message.Error.fatal(
            ErrorCode.SHUTTING_DOWN,
            "server is shutting down; reconnect to another server or later");
    connections
        .writeAndFlush(bye, ch -> ch.pipeline().get("session") != null)
        .awaitUninterruptibly(1, TimeUnit.SECONDS);
    connections.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    workers.shutdownGracefully(100, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly();
  }
}
