package io.tablecast.server.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
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
}
