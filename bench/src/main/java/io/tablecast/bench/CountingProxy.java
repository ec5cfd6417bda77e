package io.tablecast.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * A loopback TCP relay in front of one server that counts the bytes the server sends to its
 * clients: what a client downloads on a snapshot or a resume, measured on the wire (frames,
 * compression and all). When either side closes, the other is closed too, so a client sees its
 * server go away as it would without the relay.
 */
final class CountingProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final String host;
  private final int port;
  private final LongAdder toClients = new LongAdder();
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  CountingProxy(String host, int port) throws IOException {
    this.host = host;
    this.port = port;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    daemon("bench-proxy-accept", this::accept).start();
  }

  /** {@code 127.0.0.1:PORT} of the relay, for a client's server list. */
  String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  /** Bytes the server sent to clients through the relay so far. */
  long bytesToClients() {
    return toClients.sum();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server;
        try {
          server = new Socket(host, port);
        } catch (IOException refused) {
          client.close(); // the server is gone: the client sees a closed connection
          continue;
        }
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        open.add(client);
        open.add(server);
        daemon("bench-proxy-up", () -> pump(client, server, null)).start();
        daemon("bench-proxy-down", () -> pump(server, client, toClients)).start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void pump(Socket from, Socket to, LongAdder counted) {
    byte[] buf = new byte[64 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
        if (counted != null) {
          counted.add(n);
        }
      }
    } catch (IOException e) {
      // one side went away: close both below
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static Thread daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    open.forEach(CountingProxy::closeQuietly);
  }
}
