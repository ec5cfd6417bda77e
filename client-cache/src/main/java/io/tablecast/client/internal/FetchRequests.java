package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.tablecast.protocol.Message;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The client's open {@code fetch} requests (near caches), by id: sent once the table is subscribed
 * on the connection, sent again on each new connection until answered, answered in the stream's
 * order. Event loop confined. Internal.
 */
final class FetchRequests {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(FetchRequests.class);

  /** The first protocol version whose servers answer {@code fetch}. */
  static final int FIRST_VERSION = 5;

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** An open request: what it asks and who hears the answer. */
  record Open(String table, List<ArrayNode> keys, FetchHandler handler) {}

  private final Map<Long, Open> open = new LinkedHashMap<>();
  private long lastId;

  /** Adds a request for the rows of normalized {@code keys}; returns its id. */
  long add(String table, List<Object> keys, FetchHandler handler) {
    List<ArrayNode> wire = new ArrayList<>(keys.size());
    for (Object key : keys) {
      wire.add(keyArray(key));
    }
    open.put(++lastId, new Open(table, wire, handler));
    return lastId;
  }

  /** Sends request {@code id} on {@code ch}. */
  @SuppressWarnings("FutureReturnValueIgnored") // a failed write closes; the next connection asks
  void send(Channel ch, long id) {
    Open o = open.get(id);
    if (o != null) {
      ch.writeAndFlush(new Message.Fetch(id, o.table(), o.keys()))
          .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }
  }

  /** Sends every open request for a table of {@code subscribed} on a new connection. */
  void sendAll(Channel ch, Set<String> subscribed) {
    for (Map.Entry<Long, Open> e : open.entrySet()) {
      if (subscribed.contains(e.getValue().table())) {
        send(ch, e.getKey());
      }
    }
  }

  /** Sends the open requests for {@code table}, subscribed just now. */
  void sendFor(Channel ch, String table) {
    sendAll(ch, Set.of(table));
  }

  /**
   * Hands an answer to its request's handler. An answer older than a batch applied already, at
   * {@code applied} (a server must not send one: its answers follow the stream), is asked for again
   * rather than handed on.
   */
  void answered(Channel ch, Message.Fetched f, long applied, String server) {
    Open o = open.remove(f.id());
    if (o == null) {
      return; // answered on an earlier connection
    }
    if (f.failure() != null) {
      o.handler().failed("server " + server + " cannot answer fetch: " + f.failure());
    } else if (f.position() < applied) {
      log.warn(
          "fetch answer for {} at position {} is older than the batches applied (position {}):"
              + " asking again",
          f.table(),
          f.position(),
          applied);
      open.put(++lastId, o);
      send(ch, lastId);
    } else {
      o.handler().answered(f.rows());
    }
  }

  /** Why {@code server}, which speaks {@code version}, cannot answer a fetch. */
  static String unsupported(String server, int version) {
    return "server "
        + server
        + " speaks protocol version "
        + version
        + ", which has no fetch (version "
        + FIRST_VERSION
        + "): upgrade the server to use near caches";
  }

  /** Fails every open request with {@code message} (the server cannot answer, or closing). */
  void failAll(String message) {
    List<Open> all = new ArrayList<>(open.values());
    open.clear();
    for (Open o : all) {
      o.handler().failed(message);
    }
  }

  /** A normalized key as the JSON array of its values in primary-key order. */
  static ArrayNode keyArray(Object key) {
    ArrayNode out = NODES.arrayNode();
    if (key instanceof List<?> parts) {
      parts.forEach(p -> out.add(value(p)));
    } else {
      out.add(value(key));
    }
    return out;
  }

  private static com.fasterxml.jackson.databind.JsonNode value(Object part) {
    if (part instanceof Long l) {
      return NODES.numberNode(l);
    }
    if (part instanceof BigInteger b) {
      return NODES.numberNode(b);
    }
    if (part instanceof Boolean b) {
      return NODES.booleanNode(b);
    }
    return part == null ? NODES.nullNode() : NODES.textNode(part.toString());
  }
}
