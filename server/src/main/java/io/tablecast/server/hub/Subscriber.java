package io.tablecast.server.hub;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.SessionPolicy;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's view of one client session. All fields are owned by the hub thread, except the channel
 * (thread-safe), which the {@link CatchUpSender} also writes to while {@link #catchUp} is set.
 */
public final class Subscriber {

  private static final Logger LOG = LoggerFactory.getLogger(Subscriber.class);

  /** How long a fatal error may take to reach the client before the connection is cut anyway. */
  static final long ERROR_FLUSH_GRACE_MILLIS = 1000;

  private final Channel channel;
  private final String clientName;
  private final long maxPendingBytes;
  private final ServerMetrics metrics;

  /** Binary (CBOR frames) or JSON (WebSocket); decides how the hub encodes for it. */
  private final Encoding encoding;

  /** The authenticated principal's name and what it may read. */
  private final String principal;

  /** Its access policy, with the shapes of the tables it subscribed; written on the hub thread. */
  private volatile SessionPolicy policy;

  Set<String> tables = Set.of();

  /** The shapes the client asked, by table, to parse again when a table's columns change. */
  private Map<String, Message.Shape> askedShapes = Map.of();

  boolean closed;
  long lastWriteNanos = System.nanoTime();

  /** When the hub registered the session (epoch ms), for the operations console. */
  final long connectedMillis = System.currentTimeMillis();

  /** Delivery lag: at most one live write in flight carries a listener, at most this often. */
  static final long LAG_PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /**
   * When (nanoTime) the oldest live batch written to the channel and not yet handed to its socket
   * was written; 0 when all were. The first write after the previous probe reached the socket (and
   * {@link #LAG_PROBE_INTERVAL_NANOS} passed) carries a listener: writes leave the channel in
   * order, so every write before it has reached the socket, and it is the oldest still waiting (to
   * within the interval). Set on the hub thread, cleared on the event loop.
   */
  private volatile long probeWriteNanos;

  /** When the last probe reached the socket; written on the event loop. */
  private volatile long probeDoneNanos;

  /** When the catch-up sender last wrote a frame; written by the catch-up executor. */
  volatile long catchUpWriteNanos = lastWriteNanos;

  /**
   * The snapshot, resume replay or large batch being written ahead of the live stream; null when
   * none. While set, live batches are held back in {@link #held}.
   */
  CatchUpSender catchUp;

  /**
   * Batches held back while a catch-up is being written, in order: encoded frames ({@code ByteBuf})
   * and large batches still to be cut ({@link BatchParts}).
   */
  final ArrayDeque<Object> held = new ArrayDeque<>();

  /** Bytes of the encoded frames in {@link #held}. */
  long heldBytes;

  /**
   * Changes folded per key while the channel is unwritable (slow-consumer coalescing); null = none.
   */
  Coalescer coalescer;

  /**
   * Subscriptions that arrived while a catch-up was being written, and how many names they list.
   */
  final ArrayDeque<Message.Subscribe> queuedSubscribes = new ArrayDeque<>();

  int queuedNames;

  /** Its {@code sync} requests not answered yet ({@link SyncAnswers}). Hub thread only. */
  int openSyncs;

  Subscriber(
      Channel channel,
      String clientName,
      long maxPendingBytes,
      ServerMetrics metrics,
      Encoding encoding,
      String principal,
      SessionPolicy policy) {
    this.principal = principal;
    this.policy = policy;
    this.encoding = encoding;
    this.metrics = metrics;
    this.channel = channel;
    this.clientName = clientName;
    this.maxPendingBytes = maxPendingBytes;
  }

  public Channel channel() {
    return channel;
  }

  public String clientName() {
    return clientName;
  }

  /** The authenticated principal's name. */
  public String principal() {
    return principal;
  }

  /** What this session may read (tables, rows, columns), and the shapes it chose. */
  public SessionPolicy policy() {
    return policy;
  }

  /**
   * Takes the shape the client chose of {@code table} ({@code asked}, as it asked it; {@code
   * shape}, parsed against the table's columns). Hub thread, before its catch-up, or when the
   * table's columns changed.
   */
  void shape(String table, Message.Shape asked, SessionPolicy.Shape shape) {
    policy = policy.withShape(table, shape);
    Map<String, Message.Shape> next = new HashMap<>(askedShapes);
    next.put(table, asked);
    askedShapes = Map.copyOf(next);
  }

  /** The shape the client asked of {@code table}, as it asked it; null for the whole table. */
  Message.Shape askedShape(String table) {
    return askedShapes.get(table);
  }

  /** Stops sending {@code table}'s changes: its subscription ended (the client was told why). */
  void unsubscribe(String table) {
    Set<String> s = new HashSet<>(tables);
    s.remove(table);
    tables = Set.copyOf(s);
  }

  /** How this session's messages are encoded. */
  public Encoding encoding() {
    return encoding;
  }

  /** Encodes a message for this session (catch-up frames). Any thread. */
  ByteBuf frame(Message m) {
    return encoding.encode(m, channel.alloc());
  }

  /** The subscribed tables. Hub thread only. */
  Set<String> tables() {
    return tables;
  }

  void addTables(List<String> names) {
    Set<String> s = new HashSet<>(tables);
    s.addAll(names);
    tables = Set.copyOf(s);
  }

  /** Whether a snapshot or resume replay is being written to it. Hub thread only. */
  boolean catchingUp() {
    return catchUp != null;
  }

  /**
   * Its outbound state: pending bytes and coalesced changes ({@link ChangeHub#sessionStates()}).
   */
  ChangeHub.SessionState state() {
    Coalescer c = coalescer;
    return new ChangeHub.SessionState(
        clientName(),
        pendingBytes(channel()) + heldBytes,
        c == null ? 0 : c.keys(),
        c == null ? 0 : c.approxBytes(),
        channel().isWritable(),
        catchingUp());
  }

  /**
   * Sends (or holds back during a catch-up) an encoded frame; takes ownership of {@code buf}. Hub
   * thread only.
   */
  @SuppressWarnings(
      "FutureReturnValueIgnored") // the void promise: a failed write fires exceptionCaught
  void send(ByteBuf buf) {
    if (closed || !channel.isActive()) { // closed, and the hub has not heard yet: nothing to send
      buf.release();
      return;
    }
    if (catchUp != null) {
      held.add(buf);
      heldBytes += buf.readableBytes();
      if (heldBytes > maxPendingBytes) {
        slowConsumer(
            heldBytes
                + " bytes held back while its snapshot, resume replay or a large batch is "
                + "written (slow_consumer.max_pending_bytes "
                + maxPendingBytes
                + ")");
      }
      return;
    }
    long pending = pendingBytes(channel);
    if (pending > maxPendingBytes) {
      buf.release();
      slowConsumer(
          pending
              + " bytes not yet read (slow_consumer.max_pending_bytes "
              + maxPendingBytes
              + ")");
      return;
    }
    long now = System.nanoTime();
    if (probeWriteNanos == 0 && now - probeDoneNanos >= LAG_PROBE_INTERVAL_NANOS) {
      probeWriteNanos = now;
      channel
          .writeAndFlush(buf)
          .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE)
          .addListener(
              f -> {
                probeDoneNanos = System.nanoTime();
                probeWriteNanos = 0;
              });
    } else {
      channel.writeAndFlush(buf, channel.voidPromise());
    }
    lastWriteNanos = now;
  }

  /**
   * How long the oldest live batch written to this session has waited to reach its socket (ms; 0
   * when every batch has): the session's delivery lag, to within {@link #LAG_PROBE_INTERVAL_NANOS}.
   * Bytes in the socket's kernel buffer that the client has not read count as delivered. Any
   * thread.
   */
  long deliveryLagMillis(long nowNanos) {
    long since = probeWriteNanos;
    return since == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(Math.max(0, nowNanos - since));
  }

  /**
   * Writes a ping even while catching up: it carries no position, so it may go before the catch-up
   * frames and the held batches. Takes ownership of {@code buf}. Hub thread only.
   */
  @SuppressWarnings(
      "FutureReturnValueIgnored") // the void promise: a failed write fires exceptionCaught
  void sendPing(ByteBuf buf) {
    if (closed || !channel.isActive()) {
      buf.release();
      return;
    }
    channel.writeAndFlush(buf, channel.voidPromise());
    lastWriteNanos = System.nanoTime();
  }

  /**
   * Writes a message that is not part of the hot path (errors, coalesced batches). Hub thread only.
   */
  void sendMessage(Message m) {
    send(encoding.encode(m, channel.alloc()));
  }

  /** Releases the held batches. Hub thread only. */
  void releaseHeld() {
    for (Object h : held) {
      if (h instanceof ByteBuf b) {
        b.release();
      }
    }
    held.clear();
    heldBytes = 0;
  }

  /**
   * Marks the session closed and drops everything the hub keeps for it: held batches, coalesced
   * changes, queued subscribes, a catch-up in progress. Hub thread only.
   */
  void discard() {
    closed = true;
    releaseHeld();
    coalescer = null;
    queuedSubscribes.clear();
    queuedNames = 0;
    if (catchUp != null) {
      catchUp.cancel();
      catchUp = null;
    }
  }

  /**
   * Closes the session with SLOW_CONSUMER; {@code why} says what it did not read and names the
   * limit. Hub thread only.
   */
  void slowConsumer(String why) {
    metrics.slowConsumerClosed();
    LOG.info("disconnecting slow consumer {}: {}", this, why);
    discard();
    closeWithError(
        channel,
        Message.Error.fatal(
            ErrorCode.SLOW_CONSUMER,
            "client '"
                + clientName
                + "' did not read fast enough: "
                + why
                + "; reconnect to resume or take a new snapshot"));
  }

  /** Closes the session with a fatal error. Hub thread only. */
  void fatal(ErrorCode code, String message) {
    discard();
    closeWithError(channel, Message.Error.fatal(code, message));
  }

  /** Bytes written to the channel and not yet sent to the socket, queued writes included. */
  public static long pendingBytes(Channel channel) {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    return out == null ? 0 : out.totalPendingWriteBytes();
  }

  /**
   * Writes a fatal error and closes the channel once it is flushed, or after a short grace period
   * when the client does not read. Thread-safe.
   */
  @SuppressWarnings(
      "FutureReturnValueIgnored") // a close has nothing to report; the grace timer only closes
  public static void closeWithError(Channel channel, Message.Error error) {
    if (!channel.isActive()) {
      channel.close();
      return;
    }
    channel.writeAndFlush(error).addListener(ChannelFutureListener.CLOSE);
    channel
        .eventLoop()
        .schedule(
            () -> {
              channel.close();
            },
            ERROR_FLUSH_GRACE_MILLIS,
            TimeUnit.MILLISECONDS);
  }

  @Override
  public String toString() {
    return clientName + "@" + channel.remoteAddress();
  }
}
