package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A client given the port of another service (a broker, a database) is told that it does not speak
 * the Tablecast protocol, with the first bytes it answered, not to raise its frame limit: those
 * bytes, read as a frame's length, announce a frame of a gigabyte or more.
 */
class NotATablecastServerTest {

  @Test
  void aBrokersGreetingIsShownForWhatItIs() throws Exception {
    String greeting = "INFO {\"server_id\":\"NDXK\",\"version\":\"2.9.10\"}\r\n";
    try (ServerSocket broker = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> greetEveryone(broker, greeting));
      answering.setDaemon(true);
      answering.start();
      String address = "127.0.0.1:" + broker.getLocalPort();
      try (TablecastClient client = TablecastClient.builder().servers(address).build()) {
        TableMirror<?> m = client.mirror("s.t");
        assertThatThrownBy(() -> m.awaitReady(Duration.ofSeconds(10)))
            .isInstanceOf(TablecastException.class)
            .hasMessageContaining(
                address
                    + " does not answer in the Tablecast protocol (its first bytes: \""
                    + greeting.substring(0, 40) // as many as are kept
                    + "\"): is it the port of a Tablecast server?")
            .hasMessageNotContaining("maxFrameBytes");
      }
    }
  }

  /** Says {@code greeting} to every connection and keeps it open, as a broker does. */
  private static void greetEveryone(ServerSocket socket, String greeting) {
    try {
      while (true) {
        Socket s = socket.accept();
        OutputStream out = s.getOutputStream();
        out.write(greeting.getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // the test is over: the socket was closed
    }
  }
}
