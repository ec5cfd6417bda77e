package io.tablecast.client.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.tablecast.protocol.Message;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link ServerSession} asks of its server on a connection: the subscribes of the mirrored
 * tables (resumed where they can be, else from a snapshot; which tables this connection subscribed
 * is kept here), and the {@code sync} and {@code fetch} requests, sent behind the subscribes and
 * asked again on the next connection when their answer was lost. A request needs a protocol version
 * that has it: on an older server it fails saying why. Confined to the event loop.
 */
final class SessionRequests {

  /** Logs under {@link ServerSession}, as before this was split out of it. */
  private static final Logger log = LoggerFactory.getLogger(ServerSession.class);

  /** The first protocol version whose servers apply subscription shapes (a subscribe's). */
  static final int SHAPES_VERSION = 5;

  private final MirrorStream stream;
  private final SyncRequests syncs = new SyncRequests();
  private final FetchRequests fetches = new FetchRequests();

  /** The tables subscribed on the current connection. */
  private final Set<String> subscribed = new HashSet<>();

  SessionRequests(MirrorStream stream) {
    this.stream = stream;
  }

  /** Whether {@code table} is subscribed on the current connection. */
  boolean subscribed(String table) {
    return subscribed.contains(table);
  }

  /** The connection closed: the next one subscribes every table again. */
  void disconnected() {
    subscribed.clear();
  }

  /** Fails every sync and fetch waiting for an answer with {@code why}. */
  void failAll(String why) {
    syncs.failAll(why);
    fetches.failAll(why);
  }

  /**
   * Adds a sync request; sent at once on {@code ready}, the welcomed connection that may subscribe
   * (null when there is none), otherwise behind the subscribes of the next one.
   */
  void sync(CompletableFuture<Void> done, Channel ready, String server, int version) {
    long id = syncs.add(done);
    if (ready != null) {
      if (version < SyncRequests.FIRST_VERSION) {
        syncs.failAll(noSync(server, version));
      } else {
        SyncRequests.send(ready, id);
      }
    }
  }

  /**
   * Adds a fetch request; sent at once on {@code ready} (as for {@link #sync}) when its table is
   * subscribed there, otherwise once it is.
   */
  void fetch(
      String table,
      List<Object> keys,
      FetchHandler handler,
      Channel ready,
      String server,
      int version) {
    long id = fetches.add(table, keys, handler);
    if (ready != null) {
      if (version < FetchRequests.FIRST_VERSION) {
        fetches.failAll(FetchRequests.unsupported(server, version));
      } else if (subscribed.contains(table)) {
        fetches.send(ready, id);
      }
    }
  }

  /** A sync's answer. */
  void answered(Message.Synced s, String server) {
    syncs.answered(s, server);
  }

  /** A fetch's answer, taken if no batch applied already is newer than it. */
  void answered(Channel ch, Message.Fetched f, String server) {
    fetches.answered(ch, f, stream.position(f.table()), server);
  }

  private static String noSync(String server, int version) {
    return "server "
        + server
        + " speaks protocol version "
        + version
        + ", which has no sync (version "
        + SyncRequests.FIRST_VERSION
        + "): upgrade the server to use sync()";
  }

  /**
   * Subscribes {@code table}, of a mirror attached after the welcome, on the welcomed connection
   * {@code ch} unless it is subscribed there already, and sends the fetches asked before.
   */
  void subscribe(Channel ch, String table, String server, int version) {
    if (!subscribed.add(table)) {
      return;
    }
    // the first table of a connection may resume (a mirror read from its file after the
    // welcome): the server replays only to a connection that subscribed nothing yet
    if (subscribed.size() == 1 && stream.resumes(table)) {
      log.info(
          "resuming {} after position {} of epoch {}",
          table,
          stream.lastPosition(),
          stream.lastEpoch());
      sendSubscribe(ch, List.of(table), stream.lastEpoch(), stream.lastPosition(), server, version);
    } else {
      log.info("subscribing to {}", table);
      // a subscribe that cannot be written would leave the mirror waiting: reconnecting
      // resubscribes it
      sendSubscribe(ch, List.of(table), null, -1, server, version);
    }
    ch.flush();
    if (version >= FetchRequests.FIRST_VERSION) {
      fetches.sendFor(ch, table); // asked before the table was subscribed
    }
  }

  /**
   * Subscribes every mirrored table on {@code ch}, welcomed under {@code epoch}: resumes those that
   * can, the others from a snapshot; then sends the syncs and fetches waiting.
   */
  void subscribeAll(Channel ch, String epoch, String server, int version) {
    MirrorStream.Subscriptions subscriptions = stream.welcomed(epoch);
    List<String> resume = subscriptions.resume();
    List<String> fresh = subscriptions.fresh();
    if (!resume.isEmpty()) {
      log.info(
          "resuming {} after position {} of epoch {}",
          resume,
          stream.lastPosition(),
          stream.lastEpoch());
      sendSubscribe(ch, resume, stream.lastEpoch(), stream.lastPosition(), server, version);
    }
    if (!fresh.isEmpty()) {
      log.info("subscribing to {}", fresh);
      sendSubscribe(ch, fresh, null, -1, server, version);
    }
    subscribed.addAll(resume);
    subscribed.addAll(fresh);
    ch.flush();
    if (version >= SyncRequests.FIRST_VERSION) {
      syncs.sendAll(ch); // behind the subscribes: answered after their snapshots or replays
    } else {
      syncs.failAll(noSync(server, version));
    }
    if (version >= FetchRequests.FIRST_VERSION) {
      fetches.sendAll(ch, subscribed);
    } else {
      fetches.failAll(FetchRequests.unsupported(server, version));
    }
  }

  /**
   * Writes a subscribe of {@code tables} with what their mirrors ask of them (not flushed). A
   * server older than shapes would ignore a shape and send the whole table: a shaped table is not
   * subscribed there, its mirrors fail saying why.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // a failed write closes; the next connection asks
  private void sendSubscribe(
      Channel ch, List<String> tables, String epoch, long position, String server, int version) {
    Map<String, Message.Shape> shapes = stream.shapes(tables);
    List<String> served = tables;
    if (!shapes.isEmpty() && version < SHAPES_VERSION) {
      served = tables.stream().filter(t -> !shapes.containsKey(t)).toList();
      for (String t : shapes.keySet()) {
        String why =
            "server "
                + server
                + " speaks protocol version "
                + version
                + ", which has no subscription shapes (version "
                + SHAPES_VERSION
                + "): the mirror of "
                + t
                + " is not subscribed; upgrade the server, or mirror the whole table";
        log.warn("{}", why);
        stream.fail(t, null, why);
      }
      if (served.isEmpty()) {
        return;
      }
    }
    // a subscribe that cannot be written would leave the mirror waiting: reconnecting
    // resubscribes it
    ch.write(
            new Message.Subscribe(
                served,
                epoch,
                position,
                stream.withoutRows(served),
                shapes.isEmpty() ? null : shapes))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }
}
