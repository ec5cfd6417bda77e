package io.tablecast.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.api.StreamConfiguration;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A port picked free can be taken before nats-server binds it (outgoing connections draw from the
 * same range): the harness tells that apart from other failures, so that a start can retry on new
 * ports instead of failing a test (NatsClusterTest failed so once: "bind: address already in use").
 */
class NatsServerProcessTest {

  @Test
  void aPortTakenBeforeTheServerBindsItIsToldApart() throws Exception {
    try (ServerSocket taken = new ServerSocket(0)) {
      String route = "127.0.0.1:" + taken.getLocalPort();
      String cluster =
          "server_name: n1\ncluster { name: t, listen: \""
              + route
              + "\", routes: [nats-route://"
              + route
              + "] }";
      assertThatThrownBy(() -> NatsServerProcess.start(1 << 20, cluster))
          .isInstanceOf(NatsServerProcess.PortTaken.class)
          .hasMessageContaining("address already in use");
    }
  }

  /**
   * A suite starts about a hundred of them: each one's store (up to tens of megabytes) and log go
   * with it, instead of piling up in the temporary directory run after run.
   */
  @Test
  void closingRemovesItsDirectoryWithTheStore() throws Exception {
    Path dir;
    try (NatsServerProcess nats = NatsServerProcess.start(1 << 20)) {
      dir = nats.dir();
      try (Connection c = Nats.connect(nats.url())) {
        c.jetStreamManagement()
            .addStream(StreamConfiguration.builder().name("T").subjects("t").build());
        c.jetStream().publish("t", new byte[100]);
      }
      assertThat(dir.resolve("store")).isNotEmptyDirectory();
      assertThat(dir.resolve("nats.log")).exists();
    }
    assertThat(dir).doesNotExist();
  }
}
