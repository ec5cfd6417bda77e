package io.tablecast.client.internal;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * The validated, immutable connection settings of one client (built by {@code
 * TablecastClient.Builder}). Internal: not part of the client's API.
 *
 * @param servers the servers to connect to, round-robin
 * @param clientName the name sent in the hello
 * @param user user for password authentication, or null
 * @param password password, or null
 * @param token gives the signed token to send in each hello (called before each connection, on the
 *     client's event loop), or null for none
 * @param connectTimeout TCP connect timeout
 * @param backoffMin lower bound of the reconnect backoff
 * @param backoffMax upper bound of the reconnect backoff
 * @param maxFrameBytes the largest frame accepted from a server
 * @param tls the TLS settings, or null for plaintext
 * @param heap the heap snapshots are sized against
 * @param heapReservePercent the share of the heap's maximum a snapshot may not take
 */
public record ClientConfig(
    List<InetSocketAddress> servers,
    String clientName,
    String user,
    String password,
    Supplier<String> token,
    Duration connectTimeout,
    Duration backoffMin,
    Duration backoffMax,
    int maxFrameBytes,
    ClientTls tls,
    HeapRoom heap,
    int heapReservePercent) {

  public ClientConfig {
    servers = List.copyOf(servers);
  }

  /** A server's address as configured, {@code host:port}, resolved or not. */
  static String hostPort(InetSocketAddress address) {
    return address.getHostString() + ":" + address.getPort();
  }

  @Override
  public String toString() {
    return "ClientConfig[servers="
        + servers.stream().map(ClientConfig::hostPort).toList()
        + ", clientName="
        + clientName
        + ", user="
        + user
        + ", connectTimeout="
        + connectTimeout
        + ", backoff="
        + backoffMin
        + ".."
        + backoffMax
        + ", maxFrameBytes="
        + maxFrameBytes
        + (tls == null ? "" : ", tls=" + tls)
        + "]";
  }
}
