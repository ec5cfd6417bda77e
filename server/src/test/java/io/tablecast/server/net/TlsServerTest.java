package io.tablecast.server.net;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakerFactory;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.netty.handler.ssl.SslContext;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS on the single port: binary and WebSocket (wss) sessions over TLS, plaintext refused (or
 * allowed with {@code allow_plaintext}), client certificates required/optional and their subject
 * exposed as {@link TlsPeer#SUBJECT}. Certificates are made in-process (BouncyCastle).
 */
class TlsServerTest {

  @TempDir static Path dir;
  static TlsTestCerts certs;
  static EventLoopGroup group;

  private final FakeChangeSource source = new FakeChangeSource().withTable(table("products"), 3);
  private TablecastServer server;

  @BeforeAll
  static void certificates() {
    certs = TlsTestCerts.create(dir);
    group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  }

  @AfterAll
  static void stopGroup() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private TablecastServer start(TlsConfig tls) throws InterruptedException {
    server = TablecastServers.startWithTls("tls", tls, source);
    return server;
  }

  private static SslContext clientContext(Path trusted, Path chain, Path key) throws Exception {
    return TlsBinaryClient.context(trusted, chain, key);
  }

  @Test
  void binarySessionOverTls() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    try (TlsBinaryClient c =
        new TlsBinaryClient(group, clientContext(certs.caCert, null, null), server.port())) {
      Message.Welcome w = (Message.Welcome) c.next();
      assertThat(w.serverName()).isEqualTo("tls");
      assertThat(c.ssl.engine().getSession().getProtocol()).startsWith("TLSv1.");
      c.channel.writeAndFlush(Message.Subscribe.fresh(List.of("public.products")));
      assertThat(c.nextNonHeartbeat()).isInstanceOf(Message.SnapshotBegin.class);
      assertThat(((Message.SnapshotRows) c.next()).rows()).hasSize(3);
      assertThat(c.next()).isInstanceOf(Message.SnapshotEnd.class);
      source.commit(insert("public.products", 4, "over tls"));
      Message.ChangeBatch b = (Message.ChangeBatch) c.nextNonHeartbeat();
      assertThat(b.changes()).hasSize(1);
    }
  }

  @Test
  void webSocketOverTls() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    SslContext ctx = clientContext(certs.caCert, null, null);
    URI uri = URI.create("wss://localhost:" + server.port() + "/ws");
    LinkedBlockingQueue<String> texts = new LinkedBlockingQueue<>();
    CompletableFuture<Void> upgraded = new CompletableFuture<>();
    Channel ch =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(
                            ctx.newHandler(ch.alloc(), uri.getHost(), uri.getPort()),
                            new HttpClientCodec(),
                            new HttpObjectAggregator(65536),
                            new WebSocketClientProtocolHandler(
                                WebSocketClientHandshakerFactory.newHandshaker(
                                    uri,
                                    WebSocketVersion.V13,
                                    null,
                                    false,
                                    new DefaultHttpHeaders(),
                                    1 << 20),
                                false),
                            new SimpleChannelInboundHandler<WebSocketFrame>() {
                              @Override
                              public void userEventTriggered(ChannelHandlerContext c, Object evt) {
                                if (evt
                                    == WebSocketClientProtocolHandler.ClientHandshakeStateEvent
                                        .HANDSHAKE_COMPLETE) {
                                  upgraded.complete(null);
                                }
                              }

                              @Override
                              protected void channelRead0(
                                  ChannelHandlerContext c, WebSocketFrame f) {
                                if (f instanceof TextWebSocketFrame t) {
                                  texts.add(t.text());
                                }
                              }

                              @Override
                              public void exceptionCaught(
                                  ChannelHandlerContext c, Throwable cause) {
                                upgraded.completeExceptionally(cause);
                                c.close();
                              }
                            });
                  }
                })
            .connect("127.0.0.1", server.port())
            .sync()
            .channel();
    try {
      upgraded.get(10, TimeUnit.SECONDS);
      ch.writeAndFlush(
          new TextWebSocketFrame(
              "{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":\"wss\"}"));
      String welcome = texts.poll(10, TimeUnit.SECONDS);
      assertThat(welcome).startsWith("{\"type\":\"welcome\"").contains("\"serverName\":\"tls\"");
    } finally {
      ch.close().syncUninterruptibly();
    }
  }

  @Test
  void plaintextBinaryClientIsRefusedWithAnExplanation() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    try (TestClient c = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()))) {
      // The server refuses on the magic alone, which TestClient.tcp already sent, and closes: the
      // hello may find the channel closed, so its write is not awaited (it failed the test when
      // it lost that race, as CI saw).
      c.channel.writeAndFlush(
          new Message.Hello(Message.PROTOCOL_VERSION, "plain", null, null, null));
      Message.Error e = c.next(Message.Error.class);
      assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
      assertThat(e.message()).contains("requires TLS");
      await().atMost(Duration.ofSeconds(5)).until(() -> !c.channel.isActive());
    }
  }

  @Test
  void plaintextHttpClientIsRefusedWithAnExplanation() throws Exception {
    start(TlsConfig.of(certs.serverCert, certs.serverKey));
    String reply = rawHttp(server.port(), "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
    assertThat(reply).startsWith("HTTP/1.1 400 ").contains("requires TLS").contains("wss://");
  }

  @Test
  void allowPlaintextServesBothOnTheSamePort() throws Exception {
    start(new TlsConfig(certs.serverCert, certs.serverKey, null, TlsConfig.ClientAuth.NONE, true));
    assertThat(
            rawHttp(
                server.port(),
                "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
        .startsWith("HTTP/1.1 200");
    try (TestClient plain =
            TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
        TlsBinaryClient tls =
            new TlsBinaryClient(group, clientContext(certs.caCert, null, null), server.port())) {
      plain.send(new Message.Hello(Message.PROTOCOL_VERSION, "plain", null, null, null));
      assertThat(plain.next()).isInstanceOf(Message.Welcome.class);
      assertThat(tls.next()).isInstanceOf(Message.Welcome.class);
    }
  }

  @Test
  void requiredClientCertificateMissingFailsTheHandshake() throws Exception {
    start(
        new TlsConfig(
            certs.serverCert, certs.serverKey, certs.caCert, TlsConfig.ClientAuth.REQUIRE, false));
    try (TlsBinaryClient c =
        new TlsBinaryClient(group, clientContext(certs.caCert, null, null), server.port())) {
      Throwable t = c.failure.get(10, TimeUnit.SECONDS);
      assertThat(rootMessage(t))
          .containsAnyOf("certificate_required", "bad_certificate", "handshake_failure");
      await().atMost(Duration.ofSeconds(5)).until(() -> !c.channel.isActive());
      assertThat(c.received).isEmpty();
    }
  }

  @Test
  void requiredClientCertificateFromAnotherCaIsRefused() throws Exception {
    start(
        new TlsConfig(
            certs.serverCert, certs.serverKey, certs.caCert, TlsConfig.ClientAuth.REQUIRE, false));
    // a client certificate the server's client_ca did not sign: the rogue server's certificate
    try (TlsBinaryClient c =
        new TlsBinaryClient(
            group,
            clientContext(certs.caCert, certs.rogueServerCert, certs.rogueServerKey),
            server.port())) {
      assertThat(c.failure.get(10, TimeUnit.SECONDS)).isNotNull();
      assertThat(c.received).isEmpty();
    }
  }

  @Test
  void requiredClientCertificatePresentSucceeds() throws Exception {
    start(
        new TlsConfig(
            certs.serverCert, certs.serverKey, certs.caCert, TlsConfig.ClientAuth.REQUIRE, false));
    try (TlsBinaryClient c =
        new TlsBinaryClient(
            group, clientContext(certs.caCert, certs.clientCert, certs.clientKey), server.port())) {
      assertThat(c.next()).isInstanceOf(Message.Welcome.class);
    }
  }

  @Test
  void untrustedServerCertificateFailsOnTheClient() throws Exception {
    start(TlsConfig.of(certs.rogueServerCert, certs.rogueServerKey));
    try (TlsBinaryClient c =
        new TlsBinaryClient(group, clientContext(certs.caCert, null, null), server.port())) {
      assertThat(rootMessage(c.failure.get(10, TimeUnit.SECONDS)))
          .contains("unable to find valid certification path");
      assertThat(c.received).isEmpty();
    }
  }

  /**
   * The subject of the verified client certificate is a channel attribute before the first
   * decrypted byte.
   */
  @Test
  void clientCertificateSubjectIsAChannelAttribute() throws Exception {
    TlsConfig tls =
        new TlsConfig(
            certs.serverCert, certs.serverKey, certs.caCert, TlsConfig.ClientAuth.OPTIONAL, false);
    SslContext serverCtx = TlsDetector.serverContext(tls);
    LinkedBlockingQueue<String> subjects = new LinkedBlockingQueue<>();
    Channel listener =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast("tls-detector", new TlsDetector(() -> serverCtx, false, 5000));
                    ch.pipeline()
                        .addLast(
                            "detector",
                            new SimpleChannelInboundHandler<ByteBuf>() {
                              @Override
                              protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                                subjects.add(
                                    String.valueOf(TlsPeer.subject(ctx.channel()))
                                        + " tls="
                                        + TlsPeer.isTls(ctx.channel()));
                                ctx.close();
                              }
                            });
                  }
                })
            .bind("127.0.0.1", 0)
            .sync()
            .channel();
    int port = ((InetSocketAddress) listener.localAddress()).getPort();
    try {
      try (TlsBinaryClient withCert =
          new TlsBinaryClient(
              group, clientContext(certs.caCert, certs.clientCert, certs.clientKey), port)) {
        assertThat(subjects.poll(10, TimeUnit.SECONDS))
            .isEqualTo(TlsTestCerts.CLIENT_SUBJECT + " tls=true");
      }
      try (TlsBinaryClient without =
          new TlsBinaryClient(group, clientContext(certs.caCert, null, null), port)) {
        assertThat(subjects.poll(10, TimeUnit.SECONDS)).isEqualTo("null tls=true");
      }
      try (TlsBinaryClient rogue =
          new TlsBinaryClient(
              group,
              clientContext(certs.caCert, certs.rogueServerCert, certs.rogueServerKey),
              port)) {
        // optional: a certificate client_ca did not sign is ignored, the connection has no subject
        assertThat(subjects.poll(10, TimeUnit.SECONDS)).isEqualTo("null tls=true");
      }
    } finally {
      listener.close().syncUninterruptibly();
    }
  }

  @Test
  void badKeyFileFailsTheStartNamingTheFiles() {
    assertThatThrownBy(() -> start(TlsConfig.of(certs.serverCert, certs.caCert)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tls.private_key");
  }

  private static String rootMessage(Throwable t) {
    StringBuilder s = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      s.append(c).append(" | ");
    }
    return s.toString();
  }

  private static String rawHttp(int port, String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
