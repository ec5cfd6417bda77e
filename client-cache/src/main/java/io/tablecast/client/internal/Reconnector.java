package io.tablecast.client.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.netty.BinaryFraming;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one connection open: connects to the configured servers in turn, builds each connection's
 * pipeline (TLS, liveness, framing, the {@link SessionHandler}) and, when a connection fails or
 * ends, tries the next server after a capped exponential backoff with full jitter ({@link
 * Backoff}), reset when a server welcomes the client. Owns the single event-loop thread every
 * connection and stream state of the client is confined to. Knows nothing of the messages: the
 * {@link ServerSession} speaks the protocol.
 */
final class Reconnector {
  private static final Logger log = LoggerFactory.getLogger(Reconnector.class);

  /** The pipeline handler named here is replaced by the heartbeat watch after the welcome. */
  static final String IDLE = "idle";

  /** How long {@link #close()} waits for the connection to close before it stops the loop. */
  private static final long CLOSE_WAIT_MILLIS = 2000;

  private final ClientConfig config;
  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final Backoff backoff;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ServerSession session;
  private final SessionEvents events;
  private int nextServer;

  /** The connection opened or being opened last, closed or not; event loop only. */
  private Channel connection;

  /**
   * The oldest version said to servers that refused newer ones: rows in the row form, no sync (4)
   * and no fetch (5).
   */
  static final int OLDEST_VERSION = 3;

  /**
   * Servers that refused a version (an older release), with the version said to them now, one less
   * at each refusal; any thread.
   */
  private final Map<InetSocketAddress, Integer> olderServers = new ConcurrentHashMap<>();

  Reconnector(ClientConfig config, ServerSession session, SessionEvents events) {
    this.config = config;
    this.session = session;
    this.events = events;
    this.group =
        new MultiThreadIoEventLoopGroup(
            1,
            new DefaultThreadFactory("tablecast-client-" + config.clientName(), true),
            NioIoHandler.newFactory());
    this.backoff = new Backoff(config.backoffMin(), config.backoffMax());
    this.bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (config.tls() != null) { // TLS first: everything below is encrypted
                      ch.pipeline()
                          .addLast(
                              "tls",
                              config.tls().newHandler(ch.alloc(), ch.attr(ClientTls.TARGET).get()));
                    }
                    // before the framing: any bytes prove the server alive, also while one large
                    // frame (a single huge row) takes longer than three heartbeats to arrive
                    ch.pipeline().addLast(IDLE, handshakeIdle());
                    ch.pipeline().addLast("first-bytes", new ServerFirstBytes());
                    BinaryFraming.addTo(ch.pipeline(), config.maxFrameBytes());
                    int version =
                        olderServers.getOrDefault(
                            ch.attr(ClientTls.TARGET).get(), Message.PROTOCOL_VERSION);
                    ch.pipeline()
                        .addLast(
                            "session",
                            new SessionHandler(
                                session,
                                new Message.Hello(
                                    version,
                                    config.clientName(),
                                    config.user(),
                                    config.password(),
                                    token()),
                                config.maxFrameBytes()));
                  }
                });
  }

  /** The token for the next hello: asked of the configured supplier; null when none or it fails. */
  private String token() {
    if (config.token() == null) {
      return null;
    }
    try {
      return config.token().get();
    } catch (RuntimeException e) {
      log.warn("the token supplier threw {}; connecting without a token", e.toString());
      return null;
    }
  }

  private IdleStateHandler handshakeIdle() {
    long ms = Math.max(config.connectTimeout().toMillis(), 1000) * 2;
    return new IdleStateHandler(ms, 0, 0, TimeUnit.MILLISECONDS);
  }

  /** Starts connecting in the background. */
  void start() {
    execute(this::connect);
  }

  /**
   * {@code server} refused the protocol version said to it: say the version before from now on.
   *
   * @return that version, or -1 when the oldest was refused already (the refusal has another
   *     reason). Any thread.
   */
  private int speakOlderVersionTo(InetSocketAddress server) {
    int[] said = {-1};
    olderServers.compute(
        server,
        (k, v) -> {
          int now = v == null ? Message.PROTOCOL_VERSION : v;
          said[0] = now > OLDEST_VERSION ? now - 1 : -1;
          return now > OLDEST_VERSION ? now - 1 : now;
        });
    return said[0];
  }

  /**
   * Whether the server of {@code ch}, before its welcome, refused the protocol version said to it
   * ({@code error}) and the next connection says an older one (logged); else the refusal stands.
   */
  boolean retriesWithOlderVersion(Channel ch, Message.Error error) {
    InetSocketAddress target = ch.attr(ClientTls.TARGET).get();
    if (error.code() != ErrorCode.UNSUPPORTED_VERSION || target == null) {
      return false;
    }
    int older = speakOlderVersionTo(target);
    if (older <= 0) {
      return false;
    }
    log.warn(
        "server {} does not speak protocol version {} ({}: {}); reconnecting with version {}, in"
            + " which {} not available",
        ClientConfig.hostPort(target),
        older + 1,
        error.code(),
        error.message(),
        older,
        older < SyncRequests.FIRST_VERSION ? "sync() and near caches are" : "near caches are");
    return true;
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Runs {@code task} on the event loop; dropped once closed. */
  void execute(Runnable task) {
    try {
      group.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("client closed; task dropped");
    }
  }

  @SuppressWarnings(
      "FutureReturnValueIgnored") // a close has nothing to report; a failed connect reschedules
  private void connect() {
    if (closed.get()) {
      return;
    }
    List<InetSocketAddress> servers = config.servers();
    InetSocketAddress address = servers.get(nextServer++ % servers.size());
    log.debug("connecting to {}", address);
    // the target names the server to TLS and to the choice of protocol version
    ChannelFuture connecting = bootstrap.clone().attr(ClientTls.TARGET, address).connect(address);
    connection = connecting.channel();
    connecting.addListener(
        f -> {
          if (f.isSuccess()) {
            if (closed.get()) {
              connecting.channel().close();
            } else {
              session.connected(connecting.channel(), address);
            }
          } else if (!closed.get()) { // else close() ended the attempt
            String reason = describe(f.cause());
            log.info("cannot connect to {}: {}", ClientConfig.hostPort(address), reason);
            events.connectFailed(ClientConfig.hostPort(address), reason);
            scheduleReconnect();
          }
        });
  }

  /**
   * Why a connection could not be opened, for people: "Connection refused", "connection timed out
   * after 5000 ms", "unknown host", without the address Netty appends (the caller names it).
   */
  static String describe(Throwable cause) {
    if (cause instanceof java.net.UnknownHostException
        || cause instanceof java.nio.channels.UnresolvedAddressException) {
      return "unknown host"; // the first names the host again, the second nothing
    }
    String message = cause.getMessage();
    if (message == null || message.isBlank()) {
      return cause.getClass().getSimpleName();
    }
    int annotation = cause instanceof java.net.SocketException ? message.indexOf(": ") : -1;
    return annotation > 0 ? message.substring(0, annotation) : message;
  }

  /** The connection ended or failed: try the next server after the backoff. Event loop only. */
  void scheduleReconnect() {
    if (closed.get()) {
      return;
    }
    long delay = backoff.nextDelayNanos();
    try {
      group
          .schedule(this::connect, delay, TimeUnit.NANOSECONDS)
          .addListener(
              f -> {
                if (!f.isSuccess()
                    && !f.isCancelled()) { // a throw here would end reconnecting without a word
                  log.error("reconnecting failed; the client no longer reconnects", f.cause());
                }
              });
    } catch (RejectedExecutionException e) {
      log.debug("event loop shut down; not reconnecting");
    }
  }

  /**
   * A server welcomed the client: watch for silence from now on ({@link ServerLiveness}: 3 silent
   * heartbeats, then a ping answered within one more), reset the backoff.
   */
  void welcomed(Channel ch, long heartbeatMillis) {
    backoff.reset();
    if (heartbeatMillis > 0) {
      ch.pipeline().replace(IDLE, IDLE, new ServerLiveness(heartbeatMillis));
    } else {
      ch.pipeline().remove(IDLE);
    }
  }

  /** Stops reconnecting, closes the connection and the event loop. Idempotent. */
  void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // The connection is closed here, not left to the loop's shutdown: Netty 4.2's loop closes its
    // channels only when it finds the shutdown asked for right after polling the sockets. A loop
    // that is running tasks when it is asked (woken by the session's last task, or busy) runs them,
    // and with a quiet period of 0 it ends there: its channels are never closed, their
    // channelInactive never runs, the session never says "disconnected: client closed" and the
    // socket is left open. Closed on the loop, the channel's inactive event is a task queued
    // before the shutdown, which runs it; the session tells it once, as for any channel.
    EventLoop loop = group.next();
    if (loop.inEventLoop()) {
      closeConnection(); // cannot wait for itself: the close completes after this task
    } else {
      Future<Channel> closing = loop.submit(this::closeConnection);
      if (closing.awaitUninterruptibly(CLOSE_WAIT_MILLIS) && closing.getNow() != null) {
        // not always closed yet: TLS sends its close_notify first
        closing.getNow().closeFuture().awaitUninterruptibly(CLOSE_WAIT_MILLIS);
      }
    }
    var shutdown = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    if (!loop.inEventLoop()) {
      shutdown.awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
  }

  /** Closes the connection, open or being opened, if any, and returns it. Event loop only. */
  @SuppressWarnings("FutureReturnValueIgnored") // close() waits on the channel's close future
  private Channel closeConnection() {
    if (connection != null) {
      connection.close();
    }
    return connection;
  }
}
