package io.tablecast.spring.boot;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * A port on loopback that takes connections (the kernel completes them from the backlog) and never
 * says anything: a client connects and waits for a welcome that does not come, so its mirrors never
 * become ready. Needs no database.
 */
final class SilentServer implements AutoCloseable {
  private final ServerSocket socket;

  SilentServer() {
    try {
      socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on loopback", e);
    }
  }

  /** {@code 127.0.0.1:port}, for {@code tablecast.client.servers}. */
  String address() {
    return socket.getInetAddress().getHostAddress() + ":" + socket.getLocalPort();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
