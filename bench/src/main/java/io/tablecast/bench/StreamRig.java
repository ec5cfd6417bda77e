package io.tablecast.bench;

import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.config.NatsSettings;
import io.tablecast.server.stream.StreamCapture;
import io.tablecast.server.testing.NatsServerProcess;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The scale-out deployment of docs/SCALE-OUT.md on this machine, around a {@link Rig}'s schema: a
 * {@code nats-server -js} of its own on a free port (NATS's default {@code max_payload}, 1 MiB),
 * {@code tablecast capture} tailing the schema and publishing to a stream, and edge servers that
 * serve from the stream ({@code serve --from nats}). Closing it closes the edges, capture and NATS;
 * the {@link Rig} (its schema) is the caller's.
 */
final class StreamRig implements AutoCloseable {
  static final long MAX_PAYLOAD = 1 << 20;

  final NatsServerProcess nats;
  final NatsSettings settings;
  private StreamCapture capture;
  private final List<TablecastServer> edges = new ArrayList<>();

  private StreamRig(Rig rig, NatsServerProcess nats) {
    this.nats = nats;
    this.settings =
        new NatsSettings(List.of(nats.url()), "TC_" + rig.schema.name(), null, null, null);
  }

  /** Starts NATS only: the caller starts capture (or capture candidates) and edges. */
  static StreamRig natsOnly(Rig rig) throws IOException {
    return new StreamRig(rig, NatsServerProcess.start(MAX_PAYLOAD));
  }

  /** Starts NATS, capture (which publishes the table's snapshot) and {@code edges} servers. */
  static StreamRig start(Rig rig, int edges) throws IOException, InterruptedException {
    StreamRig s = natsOnly(rig);
    try {
      s.capture = StreamCapture.start(rig.sourceConfig(), s.settings, "bench");
      for (int i = 0; i < edges; i++) {
        s.startEdge("edge-" + (i + 1));
      }
      return s;
    } catch (InterruptedException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** Starts one more server serving from the stream; returned once it has loaded its images. */
  TablecastServer startEdge(String name) throws InterruptedException {
    TablecastServer edge =
        TablecastServer.start(
            ServerConfig.builder()
                .set("server_name", name)
                .listen("127.0.0.1", 0)
                .set("nats", settings)
                .build());
    edges.add(edge);
    return edge;
  }

  TablecastServer edge(int i) {
    return edges.get(i);
  }

  static String address(TablecastServer server) {
    return "127.0.0.1:" + server.port();
  }

  @Override
  public void close() {
    for (TablecastServer e : edges) {
      e.close();
    }
    edges.clear();
    if (capture != null) {
      capture.close();
      capture = null;
    }
    nats.close();
  }
}
