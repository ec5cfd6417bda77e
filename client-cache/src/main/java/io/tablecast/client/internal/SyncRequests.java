package io.tablecast.client.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.tablecast.protocol.Message;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The client's open {@code sync} requests (read-your-writes), by id: sent on the connection when
 * made, sent again on each new connection until answered (an answer lost with a connection is asked
 * for anew: the new request began later, so its answer covers the old one), completed by the
 * server's {@code synced}. Event loop confined. Internal.
 */
final class SyncRequests {

  /** The first protocol version whose servers answer {@code sync}. */
  static final int FIRST_VERSION = 4;

  private final Map<Long, CompletableFuture<Void>> open = new LinkedHashMap<>();
  private long lastId;

  /** Adds a request and returns its id; requests given up by their caller are forgotten. */
  long add(CompletableFuture<Void> done) {
    open.values().removeIf(CompletableFuture::isDone);
    open.put(++lastId, done);
    return lastId;
  }

  /** Sends request {@code id} on {@code ch}. */
  @SuppressWarnings("FutureReturnValueIgnored") // a failed write closes; the next connection asks
  static void send(Channel ch, long id) {
    ch.writeAndFlush(new Message.Sync(id)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }

  /** Sends every open request on a new connection. */
  void sendAll(Channel ch) {
    open.values().removeIf(CompletableFuture::isDone);
    for (Long id : open.keySet()) {
      send(ch, id);
    }
  }

  /** The server's answer: completes its request, or fails it with the server's reason. */
  void answered(Message.Synced s, String server) {
    CompletableFuture<Void> done = open.remove(s.id());
    if (done == null) {
      return; // its caller gave up, or it was answered on an earlier connection
    }
    if (s.failure() == null) {
      done.complete(null);
    } else {
      done.completeExceptionally(
          new IllegalStateException("server " + server + " cannot answer sync: " + s.failure()));
    }
  }

  /** Fails every open request with {@code message} (the server cannot answer, or closing). */
  void failAll(String message) {
    for (Iterator<CompletableFuture<Void>> it = open.values().iterator(); it.hasNext(); ) {
      it.next().completeExceptionally(new IllegalStateException(message));
      it.remove();
    }
  }
}
