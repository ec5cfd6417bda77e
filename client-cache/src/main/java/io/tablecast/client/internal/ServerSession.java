package io.tablecast.client.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's session with its servers, in protocol terms: after each connection the {@link
 * Reconnector} opens, the hello, the welcome, one subscribe for the tables to resume and one for
 * those to start fresh, then the stream's messages (handed to the {@link MirrorStream}, which
 * applies them to the mirrors), pings and errors; the subscribes, syncs and fetches it asks of the
 * server are {@link SessionRequests}. The entry point of the client's engine: the API layer
 * attaches mirrors ({@link MirrorSink}) and hears what happens ({@link SessionEvents}). Connection
 * and stream state is confined to the event loop. Internal.
 */
public final class ServerSession implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServerSession.class);

  /** Why an attempt failed that ended before the welcome, when nothing said why. */
  static final String CLOSED_BEFORE_WELCOME =
      "the connection closed before the server's welcome (is it the port of a Tablecast server?)";

  /** Why a connection was refused: told to every mirror (see {@link #refuse}). */
  private record Refusal(ErrorCode code, String message) {}

  private final SessionEvents events;
  private final Reconnector reconnector;

  /** Mirrors created by users, in creation order, not yet attached by the event loop. */
  private final Queue<MirrorSink> unattached = new ConcurrentLinkedQueue<>();

  // ---- event-loop confined
  private final MirrorStream stream;
  private final SessionRequests requests;

  /** Mirrors being read from their files, not attached yet; any thread. */
  private final AtomicInteger restoring = new AtomicInteger();

  /**
   * The epoch of the welcome whose subscribes wait for mirrors being read from their files; null
   * when none waits.
   */
  private String deferredEpoch;

  private Channel channel;
  // written on the event loop; volatile for connectedServer(), which any thread may call
  private volatile String server;
  private volatile boolean welcomed;
  private long heartbeatMillis;

  /** The protocol version of the current session (its welcome's). */
  private int version;

  /** Why the connection is about to end, when the client ends it. */
  private String endReason;

  /** Why the last connection was refused (authentication, TLS); cleared by a welcome. */
  private Refusal refusal;

  /**
   * A session that connects with {@code config} once {@link #start()}ed and tells {@code events}.
   */
  public ServerSession(ClientConfig config, SessionEvents events) {
    this.events = events;
    this.stream =
        new MirrorStream(
            events, new SnapshotSizing.Settings(config.heap(), config.heapReservePercent()));
    this.requests = new SessionRequests(stream);
    this.reconnector = new Reconnector(config, this, events);
  }

  /** Starts connecting in the background. */
  public void start() {
    reconnector.start();
  }

  /**
   * Adds a mirror to the session: it is subscribed at once when connected, else on the next
   * connection. Any thread.
   */
  public void attach(MirrorSink mirror) {
    unattached.add(mirror);
    reconnector.execute(this::attachCreatedMirrors);
  }

  /**
   * A mirror is being read from its file (warm restart) and will be {@link #attachRestored
   * attached}: a connection welcomed meanwhile waits for it before it subscribes, so that it
   * resumes with the others instead of taking a snapshot. Any thread.
   */
  public void restoring() {
    restoring.incrementAndGet();
  }

  /** Attaches a mirror announced by {@link #restoring()}, read or not. Any thread. */
  public void attachRestored(MirrorSink mirror) {
    unattached.add(mirror);
    restoring.decrementAndGet();
    reconnector.execute(this::attachCreatedMirrors);
  }

  /**
   * What every saved mirror holds, taken on the event loop so that each mirror's rows and position
   * agree; to be written by the caller. Fails when the session is closed.
   */
  public CompletableFuture<List<MirrorFile.ToWrite>> mirrorsToSave() {
    CompletableFuture<List<MirrorFile.ToWrite>> out = new CompletableFuture<>();
    reconnector.execute(
        () -> {
          attachCreatedMirrors();
          out.complete(stream.toSave());
        });
    if (reconnector.isClosed()) {
      out.completeExceptionally(new IllegalStateException("client is closed"));
    }
    return out;
  }

  /**
   * Read-your-writes: completes once every mirror holds every change committed in the database
   * before this call, as far as the server can see (see {@code Message.Sync}); fails with an {@link
   * IllegalStateException} saying why when the server cannot answer (it serves from a NATS stream,
   * or speaks a protocol without sync). Survives reconnections: the request is asked again on the
   * next connection. Any thread.
   */
  public CompletableFuture<Void> sync() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    reconnector.execute(
        () -> {
          attachCreatedMirrors(); // mirrors created before the call are subscribed before it
          requests.sync(done, ready(), server, version);
        });
    if (reconnector.isClosed()) {
      done.completeExceptionally(new IllegalStateException("client is closed"));
    }
    return done;
  }

  /**
   * Near cache: asks the server for the rows of {@code table} with the normalized {@code keys}, as
   * its image holds them when it answers; {@code handler} hears the answer on the event loop, in
   * the stream's order, so that no batch it must see is applied after it. Sent once the table is
   * subscribed on a connection, again on the next connection when the answer was lost; an answer
   * older than a batch applied already is asked for again. Any thread.
   */
  public void fetch(String table, List<Object> keys, FetchHandler handler) {
    if (reconnector.isClosed()) {
      handler.failed("client is closed");
      return;
    }
    reconnector.execute(
        () -> {
          attachCreatedMirrors(); // the near cache is subscribed before its first fetch
          requests.fetch(table, keys, handler, ready(), server, version);
        });
  }

  /** The server the client is connected to and welcomed by, or null. Any thread. */
  public String connectedServer() {
    return welcomed ? server : null;
  }

  /**
   * The connection, when it is welcomed and may subscribe (no saved mirrors are being waited for);
   * else null.
   */
  private Channel ready() {
    return welcomed && channel != null && deferredEpoch == null ? channel : null;
  }

  /** Closes the connection and stops reconnecting. Idempotent. */
  @Override
  public void close() {
    reconnector.execute(() -> requests.failAll("client is closed"));
    reconnector.close();
  }

  /**
   * Attaches the mirrors users created so far, in creation order. Runs as a task after each {@link
   * #attach} call, and also before the loop acts on a welcome or a refusal: the socket read of that
   * answer may be handled before the queued task, and the answer must cover every mirror created
   * before it arrived.
   */
  private void attachCreatedMirrors() {
    for (MirrorSink m; (m = unattached.poll()) != null; ) {
      stream.attach(m);
      if (refusal != null) { // a mirror created while the server refuses us learns why
        m.fail(refusal.code(), refusal.message());
      }
      if (ready() != null) {
        requests.subscribe(channel, m.table(), server, version);
      }
    }
    if (deferredEpoch != null && restoring.get() == 0 && welcomed && channel != null) {
      String epoch = deferredEpoch;
      deferredEpoch = null;
      log.info("the saved mirrors are read; subscribing");
      requests.subscribeAll(channel, epoch, server, version);
    }
    reconnectForFreshSnapshots();
  }

  /**
   * A table subscribed on this connection needs a fresh snapshot (a mirror of typed rows cannot
   * follow a new primary key or seed a new mirror): a table is subscribed once per connection, so
   * the connection is closed and the next one subscribes that table fresh and resumes the others. A
   * table not subscribed yet gets its snapshot from its first subscribe anyway.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  private void reconnectForFreshSnapshots() {
    Map<String, String> needed = stream.takeFreshNeeded();
    if (needed.isEmpty() || channel == null || !welcomed) {
      return;
    }
    for (Map.Entry<String, String> e : needed.entrySet()) {
      if (requests.subscribed(e.getKey())) {
        String reason = e.getValue() + "; reconnecting for a fresh snapshot of " + e.getKey();
        log.info("{}", reason);
        ending(channel, reason);
        channel.close();
        return;
      }
    }
  }

  // -------------------------------------------------------- connection events (event loop)

  /** The {@link Reconnector} opened {@code ch} to {@code address}; the handler sends the hello. */
  void connected(Channel ch, InetSocketAddress address) {
    channel = ch;
    server = ClientConfig.hostPort(address);
    endReason = null;
  }

  /** {@code ch} closed: mirrors keep their rows; the next connection resumes them. */
  void disconnected(Channel ch) {
    if (ch != channel) {
      return;
    }
    log.info(
        "disconnected from {} (last position {} of epoch {})",
        ch.remoteAddress(),
        stream.lastPosition(),
        stream.lastEpoch());
    if (welcomed) {
      events.disconnected(
          server,
          endReason != null
              ? endReason
              : reconnector.isClosed() ? "client closed" : "connection closed");
    } else if (!reconnector.isClosed()) {
      events.connectFailed(server, endReason != null ? endReason : CLOSED_BEFORE_WELCOME);
    }
    channel = null;
    welcomed = false;
    deferredEpoch = null;
    requests.disconnected();
    stream.disconnected(reconnector.isClosed());
    reconnector.scheduleReconnect();
  }

  /** Whether a server welcomed the client on {@code ch}, the current connection. */
  boolean welcomedOn(Channel ch) {
    return welcomed && ch == channel;
  }

  /** The client is about to close {@code ch} for {@code reason} (silence, a failure). */
  void ending(Channel ch, String reason) {
    if (ch == channel && endReason == null) {
      endReason = reason;
    }
  }

  /**
   * The client gave up on {@code ch} for a reason a retry does not cure (TLS, a frame over its
   * limit), explained by {@code text}: logged, and mirrors not ready yet fail with it.
   */
  void failedHere(Channel ch, String text) {
    log.warn("{}; reconnecting", text);
    ending(ch, text);
    refuse(new Refusal(null, text));
  }

  /**
   * Remembers a refused connection and reports it to every mirror: those still waiting for data
   * fail with it, those that followed their table are stale with it until a server serves it again
   * (before, they looked current for ever while the client retried, say with an expired token).
   */
  private void refuse(Refusal r) {
    attachCreatedMirrors();
    refusal = r;
    stream.connectionRefused(r.code(), r.message());
  }

  String idleDescription() {
    return welcomed
        ? 4 * heartbeatMillis + " ms (3 heartbeats, then a ping unanswered for one more)"
        : "the handshake timeout";
  }

  // ------------------------------------------------------------------ messages (event loop)

  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
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
      reconnectForFreshSnapshots();
    } else if (msg instanceof Message.SnapshotRows r) {
      stream.snapshotRows(r);
    } else if (msg instanceof Message.SnapshotBegin b) {
      stream.snapshotBegin(b);
    } else if (msg instanceof Message.SnapshotEnd e) {
      stream.snapshotEnd(e);
      reconnectForFreshSnapshots();
    } else if (msg instanceof Message.Welcome w) {
      onWelcome(ch, w);
    } else if (msg instanceof Message.Resumed r) {
      stream.resumed(r);
      reconnectForFreshSnapshots();
    } else if (msg instanceof Message.Synced s) {
      requests.answered(s, server);
    } else if (msg instanceof Message.Fetched f) {
      requests.answered(ch, f, server);
    } else if (msg instanceof Message.Ping p) {
      ch.writeAndFlush(new Message.Pong(p.nonce()))
          .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    } else if (msg instanceof Message.Error e) {
      onError(ch, e);
    } else {
      log.debug("ignoring unexpected {} from server", msg.type());
    }
  }

  private void onWelcome(Channel ch, Message.Welcome w) {
    attachCreatedMirrors();
    welcomed = true;
    refusal = null;
    heartbeatMillis = w.heartbeatMillis();
    version = w.protocolVersion();
    reconnector.welcomed(ch, heartbeatMillis);
    log.info(
        "connected to {} ({}, epoch {}, position {}, heartbeat {} ms)",
        ch.remoteAddress(),
        w.serverName(),
        w.epoch(),
        w.position(),
        w.heartbeatMillis());
    events.connected(server);
    if (restoring.get() > 0) {
      log.info("waiting for saved mirrors being read before subscribing");
      deferredEpoch = w.epoch();
      return;
    }
    requests.subscribeAll(ch, w.epoch(), server, version);
  }

  @SuppressWarnings("FutureReturnValueIgnored") // a close has nothing to report
  private void onError(Channel ch, Message.Error e) {
    String text = e.code() + ": " + e.message();
    events.serverError(e.code(), e.message(), e.table());
    if (e.table() != null) {
      log.warn("server refused subscription to {}: {}", e.table(), text);
      stream.fail(e.table(), e.code(), "server refused subscription to " + e.table() + ": " + text);
      return;
    }
    if (!welcomed && reconnector.retriesWithOlderVersion(ch, e)) {
      ending(ch, "the server speaks an older protocol version");
      ch.close();
      return;
    }
    log.warn("server {} reported {}; reconnecting", ch.remoteAddress(), text);
    if (e.code() == ErrorCode.AUTHENTICATION_FAILED
        || e.code() == ErrorCode.UNSUPPORTED_VERSION
        || e.code() == ErrorCode.ACCESS_DENIED) {
      refuse(
          new Refusal(
              e.code(), "server " + ch.remoteAddress() + " refused the connection: " + text));
    }
    ending(ch, "the server reported " + text);
    ch.close();
  }
}
