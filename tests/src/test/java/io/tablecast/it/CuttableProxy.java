package io.tablecast.it;

import io.tablecast.protocol.MessageType;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy between clients and a Tablecast server that a test can cut (close every proxied
 * connection, as a network failure would) and block (refuse new connections until unblocked). It
 * reads the server-to-client direction frame by frame (4-byte length, then the type byte) and
 * counts the frames by {@link MessageType}, so a test can tell a resume from a snapshot; a {@link
 * #raw} proxy forwards any bytes (HTTP, WebSocket) and counts no frames.
 */
final class CuttableProxy implements AutoCloseable {
  private final ServerSocket listener;
  private volatile InetSocketAddress upstream;
  private final boolean framed;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Set<Socket> stalled = ConcurrentHashMap.newKeySet();
  private final Map<MessageType, AtomicInteger> frames = new ConcurrentHashMap<>();
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger refusals = new AtomicInteger();
  private volatile boolean blocked;
  private final AtomicReference<StallAfter> stallAfter = new AtomicReference<>();
  private volatile boolean paused;
  private volatile int upstreamReceiveBuffer; // 0: the system's
  private volatile boolean closed;

  CuttableProxy(String upstreamHost, int upstreamPort) throws IOException {
    this(upstreamHost, upstreamPort, true);
  }

  private CuttableProxy(String upstreamHost, int upstreamPort, boolean framed) throws IOException {
    this.upstream = new InetSocketAddress(upstreamHost, upstreamPort);
    this.framed = framed;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "proxy-accept-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * A proxy that forwards bytes as they come in both directions, for HTTP and WebSocket clients.
   */
  static CuttableProxy raw(String upstreamHost, int upstreamPort) throws IOException {
    return new CuttableProxy(upstreamHost, upstreamPort, false);
  }

  /**
   * Reads from the server through a small receive buffer (32 KiB) on connections made from now on,
   * so that {@link #pause} backs the server's writes up at once, as a client that reads slowly
   * does.
   */
  CuttableProxy readingSlowly() {
    upstreamReceiveBuffer = 32 * 1024;
    return this;
  }

  /** host:port for clients. */
  String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  /** Frames of this type sent by the server through the proxy so far. */
  int frames(MessageType type) {
    AtomicInteger n = frames.get(type);
    return n == null ? 0 : n.get();
  }

  /** Client connections accepted (and forwarded) so far. */
  int connections() {
    return connections.get();
  }

  /** Connections closed at once because the proxy was blocked. */
  int refusals() {
    return refusals.get();
  }

  /** Closes every proxied connection; new connections are still accepted unless blocked. */
  void cut() {
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
    stalled.clear();
  }

  /**
   * Turns every current connection into a black hole, as a sleeping laptop, a lost NAT entry or a
   * host powered off does: the sockets stay open, but nothing passes in either direction any more,
   * not even the other end's close. New connections pass normally.
   */
  void stall() {
    stalled.addAll(sockets);
  }

  /**
   * Turns the next connection that sends {@code statement} (text a client's request contains, as
   * the SQL of a query does in both databases' protocols) into a black hole right after the request
   * passed: the database runs it, and its answer is lost on the way. The returned latch opens when
   * it happened.
   */
  CountDownLatch stallAfterSending(String statement) {
    CountDownLatch done = new CountDownLatch(1);
    stallAfter.set(new StallAfter(statement.getBytes(StandardCharsets.UTF_8), done));
    return done;
  }

  /** What {@link #stallAfterSending} waits for. */
  private record StallAfter(byte[] statement, CountDownLatch done) {}

  /** As {@link #stall}, for the connection accepted last only. */
  void stallNewest() {
    List<Socket> now = List.copyOf(sockets);
    stalled.addAll(now.subList(Math.max(0, now.size() - 2), now.size()));
  }

  /**
   * New connections go to {@code host:port} from now on, as a virtual address moves to a promoted
   * standby; current ones stay until {@link #cut}.
   */
  void retarget(String host, int port) {
    upstream = new InetSocketAddress(host, port);
  }

  /**
   * While paused, nothing more is read from the server on any connection (the bytes stay in its
   * socket, then in its queue): a client that reads slower than the changes come.
   */
  void pause(boolean paused) {
    this.paused = paused;
  }

  /** While blocked, new connections are closed at once. */
  void block(boolean blocked) {
    this.blocked = blocked;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      if (blocked) {
        refusals.incrementAndGet();
        closeQuietly(client);
        continue;
      }
      Socket server = new Socket();
      try {
        if (upstreamReceiveBuffer > 0) {
          server.setReceiveBufferSize(upstreamReceiveBuffer);
        }
        server.connect(upstream, 5000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(server);
        continue;
      }
      try { // as the client and server set theirs: without it, a frame written as its length
        // and then its body waits for the peer's delayed ACK (40 ms) on every frame
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(server);
        continue;
      }
      connections.incrementAndGet();
      sockets.add(client);
      sockets.add(server);
      start("proxy-up", () -> copyRaw(client, server, false));
      start(
          "proxy-down",
          framed ? () -> copyFrames(server, client) : () -> copyRaw(server, client, true));
    }
  }

  private static void start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  private void copyRaw(Socket from, Socket to, boolean fromServer) {
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buf = new byte[16384];
      for (int n; (n = in.read(buf)) >= 0; ) {
        while (fromServer && paused && !closed) {
          Thread.sleep(2); // pacing of the look: the server's writes back up meanwhile
        }
        if (!stalled.contains(from)) {
          StallAfter after = fromServer ? null : stallAfter.get();
          boolean last =
              after != null
                  && contains(buf, n, after.statement())
                  && stallAfter.compareAndSet(after, null);
          if (last) {
            // before the request is passed on: an answer read back before the stall was set (a
            // local database answers within microseconds) passed, and nothing was lost
            stalled.add(to);
          }
          out.write(buf, 0, n);
          out.flush();
          if (last) {
            stalled.add(from);
            after.done().countDown();
          }
        }
      }
    } catch (IOException e) {
      // cut or closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeBoth(from, to);
    }
  }

  private static boolean contains(byte[] buf, int n, byte[] part) {
    outer:
    for (int i = 0; i + part.length <= n; i++) {
      for (int j = 0; j < part.length; j++) {
        if (buf[i + j] != part[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private void copyFrames(Socket from, Socket to) {
    try {
      DataInputStream in = new DataInputStream(from.getInputStream());
      DataOutputStream out =
          new DataOutputStream(new BufferedOutputStream(to.getOutputStream(), 65536));
      while (true) {
        while (paused && !closed) {
          Thread.sleep(2); // pacing of the look: the server's writes back up meanwhile
        }
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        if (length > 0) {
          frames
              .computeIfAbsent(MessageType.forCode(body[0] & 0xff), k -> new AtomicInteger())
              .incrementAndGet();
        }
        if (!stalled.contains(from)) {
          out.writeInt(length); // buffered with the body: one write, one segment
          out.write(body);
          out.flush();
        }
      }
    } catch (EOFException e) {
      // server closed
    } catch (IOException | RuntimeException e) {
      // cut or closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeBoth(from, to);
    }
  }

  /**
   * Closes both ends of a connection one of whose directions ended; only {@code from} when the
   * connection is stalled: a black hole tells its other end nothing, not even that the peer went
   * away (a host powered off).
   */
  private void closeBoth(Socket from, Socket to) {
    closeQuietly(from);
    if (!stalled.contains(from)) {
      closeQuietly(to);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(listener);
    cut();
  }
}
