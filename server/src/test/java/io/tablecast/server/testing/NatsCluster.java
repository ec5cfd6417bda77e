package io.tablecast.server.testing;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A JetStream cluster of real {@code nats-server} processes on free ports, routed to each other
 * (cluster {@code tablecast}, servers {@code n1}, {@code n2}, ...), for tests that lose a node.
 */
public final class NatsCluster implements AutoCloseable {
  private final List<NatsServerProcess> nodes;

  private NatsCluster(List<NatsServerProcess> nodes) {
    this.nodes = nodes;
  }

  /**
   * Starts {@code size} nodes whose {@code max_payload} is {@code maxPayload} bytes; again on new
   * ports when one of them was taken before its node bound it.
   */
  public static NatsCluster start(int size, long maxPayload) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(size, maxPayload);
      } catch (NatsServerProcess.PortTaken e) {
        if (attempt == NatsServerProcess.START_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private static NatsCluster startOnce(int size, long maxPayload) throws IOException {
    List<Integer> routePorts = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      routePorts.add(NatsServerProcess.freePort());
    }
    String routes =
        routePorts.stream()
            .map(p -> "nats-route://127.0.0.1:" + p)
            .collect(Collectors.joining(", ", "[", "]"));
    List<NatsServerProcess> nodes = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        nodes.add(
            NatsServerProcess.start(
                maxPayload,
                "server_name: n"
                    + (i + 1)
                    + "\ncluster { name: tablecast, listen: \"127.0.0.1:"
                    + routePorts.get(i)
                    + "\", routes: "
                    + routes
                    + " }"));
      }
    } catch (IOException | RuntimeException e) {
      nodes.forEach(NatsServerProcess::close);
      throw e;
    }
    return new NatsCluster(nodes);
  }

  /** The client URLs of every node. */
  public List<String> urls() {
    return nodes.stream().map(NatsServerProcess::url).toList();
  }

  /** The node named {@code n<i>} ({@code i} from 1). */
  public NatsServerProcess node(String serverName) {
    return nodes.get(Integer.parseInt(serverName.substring(1)) - 1);
  }

  @Override
  public void close() {
    nodes.forEach(NatsServerProcess::close);
  }
}
