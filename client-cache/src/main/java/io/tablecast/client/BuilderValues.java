package io.tablecast.client;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks {@link TablecastClient.Builder#build()} makes of its values, each refusal an {@link
 * IllegalArgumentException} naming the setting and the value.
 */
final class BuilderValues {
  private BuilderValues() {}

  /** The servers, parsed ({@code host:port}, IPv6 hosts in brackets); never empty. */
  static List<InetSocketAddress> addresses(List<String> servers) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("servers must not be empty");
    }
    List<InetSocketAddress> addresses = new ArrayList<>(servers.size());
    for (String s : servers) {
      addresses.add(parse(s));
    }
    return addresses;
  }

  /** The other values the builder holds. */
  static void check(
      String clientName,
      Duration connectTimeout,
      Duration backoffMin,
      Duration backoffMax,
      int maxFrameBytes,
      int heapReservePercent) {
    if (clientName == null || clientName.isBlank()) {
      throw new IllegalArgumentException(
          "clientName must not be blank, was "
              + (clientName == null ? null : "\"" + clientName + "\""));
    }
    if (connectTimeout == null
        || connectTimeout.isNegative()
        || connectTimeout.isZero()
        || connectTimeout.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "connectTimeout must be positive (at most "
              + Integer.MAX_VALUE
              + " ms), was "
              + connectTimeout);
    }
    if (backoffMin == null || backoffMax == null || backoffMin.isNegative()) {
      throw new IllegalArgumentException(
          "reconnectBackoff min and max must be non-negative, was "
              + backoffMin
              + " and "
              + backoffMax);
    }
    if (backoffMin.compareTo(backoffMax) > 0) {
      throw new IllegalArgumentException(
          "reconnectBackoff min must be <= max, was " + backoffMin + " > " + backoffMax);
    }
    if (maxFrameBytes < 1024) {
      throw new IllegalArgumentException(
          "maxFrameBytes must be at least 1024, was " + maxFrameBytes);
    }
    if (heapReservePercent < 0 || heapReservePercent > 90) {
      throw new IllegalArgumentException(
          "heapReservePercent must be 0..90, was " + heapReservePercent);
    }
  }

  private static InetSocketAddress parse(String hostPort) {
    if (hostPort == null) {
      throw new IllegalArgumentException("server must be host:port, was null");
    }
    if (hostPort.contains("://")) {
      throw new IllegalArgumentException(
          "server must be host:port, without a scheme or path (the Java client speaks the binary"
              + " protocol to the server's port; ws:// URLs are the JavaScript client's), was \""
              + hostPort
              + "\"");
    }
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0 || colon == hostPort.length() - 1) {
      throw new IllegalArgumentException("server must be host:port, was \"" + hostPort + "\"");
    }
    String host = hostPort.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("server port must be 1..65535, was \"" + hostPort + "\"");
    }
    return InetSocketAddress.createUnresolved(host, port);
  }
}
