package io.tablecast.server.hub;

import io.netty.handler.ssl.SslHandler;
import io.tablecast.server.image.TableImage;
import io.tablecast.server.image.TableImages;
import io.tablecast.server.tail.RowEvent;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Takes the {@link HubView}s of the operations console, and keeps what the hub does not otherwise
 * keep for it: per table, the position and capture time of its last change. Hub thread only.
 */
final class HubViews {

  /**
   * How long a table's walked row bytes are shown before they are walked again: walking a large
   * image costs milliseconds of the hub thread, and the figure is approximate anyway.
   */
  static final long ROW_BYTES_MAX_AGE_MILLIS = 10_000;

  private final TableImages images;
  private final StaleTables stale;

  /** Per table, its last change (a mutable holder: one per table, updated per batch). */
  private final Map<String, LastChange> lastChanges = new HashMap<>();

  /** Per table, its row bytes as last walked. */
  private final Map<String, WalkedBytes> walked = new HashMap<>();

  private static final class LastChange {
    long position;
    long captureMillis;
    long appliedMillis;
  }

  private record WalkedBytes(TableImage image, long bytes, long atNanos) {}

  HubViews(TableImages images, StaleTables stale) {
    this.images = images;
    this.stale = stale;
  }

  /**
   * A batch of {@code events} was applied at {@code position}; {@code captureMillis} is 0 for a
   * re-read or a repair.
   */
  void applied(List<RowEvent> events, long position, long captureMillis) {
    long now = System.currentTimeMillis();
    String previous = null;
    for (RowEvent e : events) {
      if (e.table().equals(previous)) {
        continue; // a batch's events come grouped by transaction, often by table
      }
      previous = e.table();
      LastChange last = lastChanges.computeIfAbsent(previous, t -> new LastChange());
      last.position = position;
      last.captureMillis = captureMillis;
      last.appliedMillis = now;
    }
  }

  /** The view of now. */
  HubView take(String epoch, long position, Collection<Subscriber> sessions) {
    long nowNanos = System.nanoTime();
    List<HubView.TableView> tables = new ArrayList<>();
    for (String name : images.names()) {
      TableImage image = images.get(name);
      LastChange last = lastChanges.getOrDefault(name, new LastChange());
      boolean isStale = stale.isStale(name);
      tables.add(
          new HubView.TableView(
              name,
              image.version(),
              image.schema().columns().size(),
              image.schema().primaryKey(),
              image.size(),
              rowBytes(image, nowNanos),
              image.indexBytes(),
              last.position,
              last.captureMillis,
              last.appliedMillis,
              isStale,
              isStale ? stale.status(name).reason() : null,
              images.isInvalid(name)));
    }
    walked.keySet().retainAll(images.names());
    List<HubView.SessionView> out = new ArrayList<>();
    for (Subscriber s : sessions) {
      if (!s.closed) {
        out.add(session(s, nowNanos));
      }
    }
    return new HubView(epoch, position, System.currentTimeMillis(), tables, out);
  }

  private long rowBytes(TableImage image, long nowNanos) {
    WalkedBytes w = walked.get(image.name());
    if (w == null
        || w.image() != image
        || nowNanos - w.atNanos() > TimeUnit.MILLISECONDS.toNanos(ROW_BYTES_MAX_AGE_MILLIS)) {
      w = new WalkedBytes(image, image.rowBytes(), nowNanos);
      walked.put(image.name(), w);
    }
    return w.bytes();
  }

  private static HubView.SessionView session(Subscriber s, long nowNanos) {
    Coalescer c = s.coalescer;
    boolean coalescing = c != null && !c.isEmpty();
    boolean writable = s.channel().isWritable();
    String state;
    if (s.catchingUp()) {
      state = "catching up";
    } else if (coalescing) {
      state = "coalescing";
    } else if (!writable) {
      state = "not reading";
    } else {
      state = "ok";
    }
    SocketAddress remote = s.channel().remoteAddress();
    String address =
        remote instanceof InetSocketAddress inet
            ? inet.getHostString() + ":" + inet.getPort()
            : String.valueOf(remote);
    return new HubView.SessionView(
        s.clientName(),
        s.principal(),
        address,
        s.encoding() == Encoding.JSON ? "websocket" : "tcp",
        s.channel().pipeline().get(SslHandler.class) != null,
        new ArrayList<>(new TreeSet<>(s.tables())),
        Subscriber.pendingBytes(s.channel()) + s.heldBytes,
        c == null ? 0 : c.keys(),
        c == null ? 0 : c.approxBytes(),
        writable,
        s.catchingUp(),
        state,
        s.connectedMillis,
        TimeUnit.NANOSECONDS.toMillis(Math.max(0, nowNanos - s.lastWriteNanos)),
        // a coalescing session is written nothing: its lag is its oldest change held back
        Math.max(s.deliveryLagMillis(nowNanos), coalescing ? c.heldMillis(nowNanos) : 0));
  }
}
