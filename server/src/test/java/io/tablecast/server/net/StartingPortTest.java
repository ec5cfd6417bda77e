package io.tablecast.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.config.ListenSettings;
import io.tablecast.server.config.WriteBufferSettings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link StartingPort}: a connection made while the port closes (a start that fails; a start that
 * succeeds hands the socket over, closing what it accepted the same way) is answered, refused or
 * closed, never left open unanswered: a {@code /health} probe at that moment hung until its own
 * timeout (one of about 1,300 probes across 15 starts).
 */
class StartingPortTest {

  private static NetSettings settings() {
    return new NetSettings(
        "starting-port-test",
        new ListenSettings("127.0.0.1", 0),
        Duration.ofSeconds(5),
        Duration.ofSeconds(10),
        1 << 20,
        WriteBufferSettings.DEFAULTS,
        Duration.ofSeconds(60),
        100,
        null,
        null,
        null,
        new WebAccess(null, java.util.List.of()));
  }

  /** Connects, asks for /health and reads to the end; true when it hung past the timeout. */
  private static boolean probeHangs(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      s.setSoTimeout(3_000);
      s.getOutputStream()
          .write(
              "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      byte[] buffer = new byte[4096];
      while (in.read(buffer) >= 0) {
        // the answer, then the end
      }
      return false;
    } catch (SocketTimeoutException e) {
      return true;
    } catch (IOException e) {
      return false; // refused or reset: the prober learns at once
    }
  }

  @Test
  void connectionsMadeWhileThePortClosesAreNeverLeftHanging() throws Exception {
    AtomicInteger hung = new AtomicInteger();
    AtomicInteger probes = new AtomicInteger();
    for (int round = 0; round < 60; round++) {
      StartingPort starting = StartingPort.bind(settings(), "test", () -> "loading the images");
      int port = starting.port();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> probers = new ArrayList<>();
      for (int p = 0; p < 4; p++) {
        Thread t =
            new Thread(
                () -> {
                  while (!stop.get()) {
                    probes.incrementAndGet();
                    if (probeHangs(port)) {
                      hung.incrementAndGet();
                    }
                  }
                });
        t.start();
        probers.add(t);
      }
      Thread.sleep(30);
      starting.close();
      stop.set(true);
      for (Thread t : probers) {
        t.join();
      }
    }
    assertThat(probes.get()).isGreaterThan(1_000);
    assertThat(hung.get()).as("probes left unanswered of %d", probes.get()).isZero();
  }
}
