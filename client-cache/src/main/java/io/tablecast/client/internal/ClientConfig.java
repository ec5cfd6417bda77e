package io.tablecast.client.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/** The validated, immutable settings of one client. */
public record ClientConfig(
    List<InetSocketAddress> servers,
    String clientName,
    String user,
    String password,
    String token,
    Duration connectTimeout,
    Duration backoffMin,
    Duration backoffMax,
    int maxFrameBytes,
    ObjectMapper objectMapper,
    ClientTls tls) {

  public ClientConfig {
    servers = List.copyOf(servers);
  }

  /** Plaintext (no TLS). */
  public ClientConfig(List<InetSocketAddress> servers, String clientName, String user, String password,
      String token, Duration connectTimeout, Duration backoffMin, Duration backoffMax, int maxFrameBytes,
      ObjectMapper objectMapper) {
    this(servers, clientName, user, password, token, connectTimeout, backoffMin, backoffMax, maxFrameBytes,
        objectMapper, null);
  }

  @Override
  public String toString() {
    return "ClientConfig[servers=" + servers + ", clientName=" + clientName + ", user=" + user
        + ", connectTimeout=" + connectTimeout + ", backoff=" + backoffMin + ".." + backoffMax
        + ", maxFrameBytes=" + maxFrameBytes + (tls == null ? "" : ", tls=" + tls) + "]";
  }
}
