package io.tablecast.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.internal.ClientConfig;
import io.tablecast.client.internal.ClientTls;
import io.tablecast.client.internal.HeapRoom;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a {@link TablecastClient.Builder} has been told, unchecked (the builder sets these fields),
 * and what a new client makes of it ({@link ClientParts}): the checked connection settings, the
 * mapper for typed rows and the warm restart. Kept apart so that the builder shows only its
 * documented settings.
 */
final class ClientSettings {
  final List<String> servers = new ArrayList<>();
  String clientName = TablecastClient.DEFAULT_CLIENT_NAME;
  String user;
  String password;
  Supplier<String> token;
  Duration connectTimeout = TablecastClient.DEFAULT_CONNECT_TIMEOUT;
  Duration backoffMin = TablecastClient.DEFAULT_BACKOFF_MIN;
  Duration backoffMax = TablecastClient.DEFAULT_BACKOFF_MAX;
  int maxFrameBytes = TablecastClient.DEFAULT_MAX_FRAME_BYTES;
  int heapReservePercent = TablecastClient.DEFAULT_HEAP_RESERVE_PERCENT;
  HeapRoom heap = HeapRoom.runtime();
  ObjectMapper objectMapper;
  boolean tls;
  boolean tlsVerifyHostname = true;
  Path tlsTrusted;
  Path tlsClientCertChain;
  Path tlsClientKey;
  Path warmRestartDirectory;
  Duration warmRestartInterval = TablecastClient.DEFAULT_WARM_RESTART_INTERVAL;
  final List<ConnectionListener> connectionListeners = new ArrayList<>();
  final List<ErrorListener> errorListeners = new ArrayList<>();

  /**
   * The connection settings, checked ({@link BuilderValues}); the TLS certificates and key are read
   * here.
   *
   * @throws IllegalArgumentException naming the first bad value
   */
  ClientConfig config() {
    List<InetSocketAddress> addresses = BuilderValues.addresses(servers);
    BuilderValues.check(
        clientName, connectTimeout, backoffMin, backoffMax, maxFrameBytes, heapReservePercent);
    ClientTls clientTls =
        tls
            ? ClientTls.create(tlsTrusted, tlsClientCertChain, tlsClientKey, tlsVerifyHostname)
            : null;
    return new ClientConfig(
        addresses,
        clientName,
        user,
        password,
        token,
        connectTimeout,
        backoffMin,
        backoffMax,
        maxFrameBytes,
        clientTls,
        heap,
        heapReservePercent);
  }

  /**
   * Makes the mapper of typed rows: the one set now, else {@link
   * TablecastClient.Builder#defaultObjectMapper()} when first asked (a client of generic mirrors
   * never needs one).
   */
  Supplier<ObjectMapper> objectMapper() {
    ObjectMapper given = objectMapper;
    return given != null ? () -> given : TablecastClient.Builder::defaultObjectMapper;
  }

  /** The warm restart asked for, not yet started; null when none was. */
  WarmRestart warmRestart() {
    return warmRestartDirectory == null
        ? null
        : new WarmRestart(warmRestartDirectory, warmRestartInterval, heap, heapReservePercent);
  }
}
