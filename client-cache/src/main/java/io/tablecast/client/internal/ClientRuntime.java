package io.tablecast.client.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.tablecast.client.TablecastException;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.netty.BinaryFraming;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's connection and mirrors: creates mirrors, connects, says hello, subscribes and
 * reconnects with backoff; hands the stream's messages to its {@link MirrorStream}, which applies
 * them. All connection and stream state is confined to the single event-loop thread.
 */
public final class ClientRuntime implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientRuntime.class);

  private record MirrorKey(String table, Class<?> rowType) {}

  private final ClientConfig config;
  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final ListenerDispatcher dispatcher;
  private final Backoff backoff;
  private final Map<MirrorKey, MirrorImpl<?>> mirrors = new ConcurrentHashMap<>();
  /** Mirrors created by users, in creation order, not yet attached by the event loop. */
  private final Queue<MirrorImpl<?>> unattached = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  // ---- event-loop confined
  private final MirrorStream stream = new MirrorStream(this::wasEverReady);
  private final Set<String> subscribed = new HashSet<>();
  private Channel channel;
  private boolean welcomed;
  private long heartbeatMillis;
  private int nextServer;
  /** Why the last connection was refused (authentication, TLS); cleared by a welcome. */
  private TablecastException connectionFailure;

  public ClientRuntime(ClientConfig config) {
    this.config = config;
    this.group = new MultiThreadIoEventLoopGroup(1,
        new DefaultThreadFactory("tablecast-client-" + config.clientName(), true),
        NioIoHandler.newFactory());
    this.dispatcher = new ListenerDispatcher(config.clientName());
    this.backoff = new Backoff(config.backoffMin(), config.backoffMax());
    Message.Hello hello = new Message.Hello(Message.PROTOCOL_VERSION, config.clientName(),
        config.user(), config.password(), config.token());
    this.bootstrap = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (config.tls() != null) { // TLS first: everything below is encrypted
              ch.pipeline().addLast("tls", config.tls().newHandler(ch.alloc(), ch.attr(ClientTls.TARGET).get()));
            }
            // before the framing: any bytes prove the server alive, also while one large frame
            // (a single huge row) takes longer than three heartbeats to arrive
            ch.pipeline().addLast("idle", handshakeIdle());
            BinaryFraming.addTo(ch.pipeline(), config.maxFrameBytes());
            ch.pipeline().addLast("session", new SessionHandler(ClientRuntime.this, hello));
          }
        });
  }

  private IdleStateHandler handshakeIdle() {
    long ms = Math.max(config.connectTimeout().toMillis(), 1000) * 2;
    return new IdleStateHandler(ms, 0, 0, TimeUnit.MILLISECONDS);
  }

  /** Starts connecting in the background. */
  public void start() {
    execute(this::connect);
  }

  // ------------------------------------------------------------------ mirrors (any thread)

  public <V> MirrorImpl<V> mirror(String table, Class<V> rowType) {
    if (table == null || table.isBlank()) {
      throw new IllegalArgumentException("table must be a qualified name like schema.table, was "
          + (table == null ? null : "\"" + table + "\""));
    }
    if (rowType == null) {
      throw new IllegalArgumentException("rowType must not be null");
    }
    if (closed.get()) {
      throw new TablecastException(null, "client is closed; cannot mirror " + table);
    }
    @SuppressWarnings("unchecked")
    MirrorImpl<V> m = (MirrorImpl<V>) mirrors.computeIfAbsent(new MirrorKey(table, rowType), k -> {
      MirrorImpl<V> created = new MirrorImpl<>(table, rowMapper(rowType), dispatcher);
      unattached.add(created);
      execute(this::attachCreatedMirrors);
      return created;
    });
    return m;
  }

  @SuppressWarnings("unchecked")
  private <V> Function<ObjectNode, V> rowMapper(Class<V> rowType) {
    if (rowType == Map.class) {
      return json -> (V) GenericRows.toMap(json);
    }
    ObjectMapper mapper = config.objectMapper();
    return json -> {
      try {
        return mapper.treeToValue(json, rowType);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("cannot map row to " + rowType.getName() + ": "
            + e.getOriginalMessage(), e);
      }
    };
  }

  /**
   * Attaches the mirrors users created so far, in creation order. Runs as a task after each
   * {@link #mirror} call, and also before the loop acts on a welcome or a refusal: the socket read
   * of that answer may be handled before the queued task, and the answer must cover every mirror
   * created before it arrived.
   */
  private void attachCreatedMirrors() {
    for (MirrorImpl<?> m; (m = unattached.poll()) != null; ) {
      attach(m);
    }
  }

  private void attach(MirrorImpl<?> m) {
    stream.attach(m);
    if (connectionFailure != null) { // a mirror created while the server refuses us learns why
      m.fail(connectionFailure);
    }
    if (welcomed && channel != null && subscribed.add(m.table())) {
      log.info("subscribing to {}", m.table());
      channel.writeAndFlush(Message.Subscribe.fresh(List.of(m.table())));
    }
  }

  // ------------------------------------------------------------------ connection (event loop)

  private void connect() {
    if (closed.get()) {
      return;
    }
    List<InetSocketAddress> servers = config.servers();
    InetSocketAddress address = servers.get(nextServer++ % servers.size());
    log.debug("connecting to {}", address);
    ChannelFuture connecting = config.tls() == null ? bootstrap.connect(address)
        : bootstrap.clone().attr(ClientTls.TARGET, address).connect(address);
    connecting.addListener(f -> {
      if (f.isSuccess()) {
        if (closed.get()) {
          connecting.channel().close();
        } else {
          channel = connecting.channel();
        }
      } else {
        log.info("cannot connect to {}: {}", address, f.cause().toString());
        scheduleReconnect();
      }
    });
  }

  private void scheduleReconnect() {
    if (closed.get()) {
      return;
    }
    long delay = backoff.nextDelayNanos();
    try {
      group.schedule(this::connect, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("event loop shut down; not reconnecting");
    }
  }

  void onDisconnected(Channel ch) {
    if (ch != channel) {
      return;
    }
    log.info("disconnected from {} (last position {} of epoch {})", ch.remoteAddress(),
        stream.lastPosition(), stream.lastEpoch());
    channel = null;
    welcomed = false;
    subscribed.clear();
    stream.disconnected();
    scheduleReconnect();
  }

  /** A TLS failure on {@code ch}: logged, and mirrors not ready yet fail with the explanation. */
  void onTlsFailure(Channel ch, Throwable cause) {
    InetSocketAddress server = ch.attr(ClientTls.TARGET).get();
    String text = ClientTls.explain(server != null ? server : (InetSocketAddress) ch.remoteAddress(), cause);
    log.warn("{}; reconnecting", text);
    failUnreadyMirrors(new TablecastException(null, text));
  }

  /** Remembers a refused connection and reports it to every mirror still waiting for data. */
  private void failUnreadyMirrors(TablecastException failure) {
    attachCreatedMirrors();
    connectionFailure = failure;
    stream.failIfNotReady(failure);
  }

  String idleDescription() {
    return welcomed ? 3 * heartbeatMillis + " ms (3 heartbeats)" : "the handshake timeout";
  }

  void onMessage(Channel ch, Message msg) {
    if (ch != channel) {
      ch.close();
      return;
    }
    if (msg instanceof Message.ChangeBatch b) {
      stream.batch(b);
    } else if (msg instanceof Message.ChangePart p) {
      stream.part(p);
    } else if (msg instanceof Message.TableStatus t) {
      stream.tableStatus(t);
    } else if (msg instanceof Message.SchemaChanged c) {
      stream.schemaChanged(c);
    } else if (msg instanceof Message.SnapshotRows r) {
      stream.snapshotRows(r);
    } else if (msg instanceof Message.SnapshotBegin b) {
      stream.snapshotBegin(b);
    } else if (msg instanceof Message.SnapshotEnd e) {
      stream.snapshotEnd(e);
    } else if (msg instanceof Message.Welcome w) {
      onWelcome(ch, w);
    } else if (msg instanceof Message.Resumed r) {
      stream.resumed(r);
    } else if (msg instanceof Message.Ping p) {
      ch.writeAndFlush(new Message.Pong(p.nonce()));
    } else if (msg instanceof Message.Error e) {
      onError(ch, e);
    } else {
      log.debug("ignoring unexpected {} from server", msg.type());
    }
  }

  private void onWelcome(Channel ch, Message.Welcome w) {
    attachCreatedMirrors();
    welcomed = true;
    connectionFailure = null;
    heartbeatMillis = w.heartbeatMillis();
    backoff.reset();
    if (heartbeatMillis > 0) {
      ch.pipeline().replace("idle", "idle",
          new IdleStateHandler(3 * heartbeatMillis, 0, 0, TimeUnit.MILLISECONDS));
    } else {
      ch.pipeline().remove("idle");
    }
    log.info("connected to {} ({}, epoch {}, position {}, heartbeat {} ms)", ch.remoteAddress(),
        w.serverName(), w.epoch(), w.position(), w.heartbeatMillis());
    MirrorStream.Subscriptions subscriptions = stream.welcomed(w.epoch());
    List<String> resume = subscriptions.resume();
    List<String> fresh = subscriptions.fresh();
    if (!resume.isEmpty()) {
      log.info("resuming {} after position {} of epoch {}", resume, stream.lastPosition(), stream.lastEpoch());
      ch.write(new Message.Subscribe(resume, stream.lastEpoch(), stream.lastPosition()));
    }
    if (!fresh.isEmpty()) {
      log.info("subscribing to {}", fresh);
      ch.write(Message.Subscribe.fresh(fresh));
    }
    subscribed.addAll(resume);
    subscribed.addAll(fresh);
    ch.flush();
  }

  private boolean wasEverReady(String table) {
    for (MirrorImpl<?> m : mirrors.values()) {
      if (m.table().equals(table) && m.isReady()) {
        return true;
      }
    }
    return false;
  }

  private void onError(Channel ch, Message.Error e) {
    String text = e.code() + ": " + e.message();
    if (e.table() != null) {
      log.warn("server refused subscription to {}: {}", e.table(), text);
      stream.fail(e.table(), new TablecastException(e.code(),
          "server refused subscription to " + e.table() + ": " + text));
      return;
    }
    log.warn("server {} reported {}; reconnecting", ch.remoteAddress(), text);
    if (e.code() == ErrorCode.AUTHENTICATION_FAILED || e.code() == ErrorCode.UNSUPPORTED_VERSION
        || e.code() == ErrorCode.ACCESS_DENIED) {
      failUnreadyMirrors(new TablecastException(e.code(),
          "server " + ch.remoteAddress() + " refused the connection: " + text));
    }
    ch.close();
  }

  // ------------------------------------------------------------------ lifecycle

  private void execute(Runnable task) {
    try {
      group.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("client closed; task dropped");
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (MirrorImpl<?> m : mirrors.values()) {
      m.close();
    }
    var shutdown = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    if (!group.next().inEventLoop()) {
      shutdown.awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
    dispatcher.close();
    log.info("client {} closed", config.clientName());
  }
}
