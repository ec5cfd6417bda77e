package io.tablecast.server.net;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.auth.Authenticator;
import io.tablecast.server.hub.ChangeHub;
import io.tablecast.server.hub.TestHubSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SessionHandshakeTest {

  private static final int MAX_FRAME = 4096;

  private ChangeHub hub;
  private EmbeddedChannel ch;

  @BeforeEach
  void setUp() {
    hub = new ChangeHub(TestHubSettings.of(Duration.ofHours(1), 10, 1 << 20, 64 << 20));
    hub.install(List.of(), java.util.Map.of());
    ch =
        new EmbeddedChannel(
            NettyServer.detector(
                hub,
                Authenticator.allowAll(),
                new ClientSessionHandler.Settings("test-server", 1000, 10_000),
                MAX_FRAME));
  }

  @AfterEach
  void tearDown() {
    ch.finishAndReleaseAll();
    hub.close();
  }

  private static ByteBuf frame(Message m) {
    ByteBuf buf = Unpooled.buffer();
    MessageCodec.encodeFrame(m, buf);
    return buf;
  }

  private void sendMagicAnd(Message... messages) {
    ByteBuf in = Unpooled.buffer();
    in.writeBytes(MessageCodec.MAGIC);
    for (Message m : messages) {
      in.writeBytes(frame(m));
    }
    ch.writeInbound(in);
  }

  private Message readMessage() {
    ch.runPendingTasks();
    ByteBuf out = ch.readOutbound();
    assertThat(out).as("an outbound frame").isNotNull();
    try {
      out.skipBytes(MessageCodec.LENGTH_FIELD_BYTES);
      return MessageCodec.decodeFrameBody(out);
    } finally {
      out.release();
    }
  }

  private Message.Error readError() {
    Message m = readMessage();
    assertThat(m).isInstanceOf(Message.Error.class);
    return (Message.Error) m;
  }

  private static Message.Hello hello(int version) {
    return new Message.Hello(version, "test-client", "u", "p", null);
  }

  @Test
  void helloGetsWelcomeWithEpochPositionAndHeartbeat() {
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    Message.Welcome w = (Message.Welcome) readMessage();
    assertThat(w.protocolVersion()).isEqualTo(Message.PROTOCOL_VERSION);
    assertThat(w.serverName()).isEqualTo("test-server");
    assertThat(w.epoch()).isEqualTo(hub.epoch());
    assertThat(w.position()).isZero();
    assertThat(w.heartbeatMillis()).isEqualTo(1000);
    assertThat(ch.isActive()).isTrue();
  }

  @Test
  void magicSplitAcrossReadsIsDetected() {
    ByteBuf all = Unpooled.buffer();
    all.writeBytes(MessageCodec.MAGIC).writeBytes(frame(hello(Message.PROTOCOL_VERSION)));
    ch.writeInbound(all.readRetainedSlice(2));
    ch.writeInbound(all.readRetainedSlice(all.readableBytes()));
    all.release();
    assertThat(readMessage()).isInstanceOf(Message.Welcome.class);
  }

  @Test
  void nonBinaryClientGetsHttp400AndIsClosed() {
    ch.writeInbound(Unpooled.copiedBuffer("SSH-2.0-OpenSSH\r\n", StandardCharsets.US_ASCII));
    ByteBuf out = ch.readOutbound();
    String reply = out.toString(StandardCharsets.UTF_8);
    out.release();
    assertThat(reply).startsWith("HTTP/1.1 400 ").contains("magic TCST").contains("/ws");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void messageBeforeHelloIsProtocolViolationAndCloses() {
    sendMagicAnd(Message.Subscribe.fresh(List.of("public.a")));
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
    assertThat(e.message()).contains("hello").contains("subscribe");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void wrongVersionIsUnsupportedVersionAndCloses() {
    sendMagicAnd(hello(1));
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED_VERSION);
    assertThat(e.message())
        .contains("versions 2 to " + Message.PROTOCOL_VERSION)
        .contains("version 1");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void undecodableFrameIsBadFrameAndCloses() {
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    readMessage();
    ByteBuf bad = Unpooled.buffer();
    bad.writeInt(3).writeByte(99).writeByte(1).writeByte(2);
    ch.writeInbound(bad);
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.BAD_FRAME);
    assertThat(e.message()).contains("unknown message type code 99");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void oversizedFrameIsBadFrameAndCloses() {
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    readMessage();
    ByteBuf big = Unpooled.buffer();
    big.writeInt(MAX_FRAME * 10).writeByte(3).writeZero(100);
    ch.writeInbound(big);
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.BAD_FRAME);
    assertThat(e.message()).contains("too long");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void pingIsAnsweredWithPongCarryingTheNonce() {
    sendMagicAnd(hello(Message.PROTOCOL_VERSION), new Message.Ping(42));
    readMessage();
    assertThat(readMessage()).isEqualTo(new Message.Pong(42));
    assertThat(ch.isActive()).isTrue();
  }

  @Test
  void secondHelloIsProtocolViolation() {
    sendMagicAnd(hello(Message.PROTOCOL_VERSION), hello(Message.PROTOCOL_VERSION));
    readMessage();
    assertThat(readError().code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
  }

  @Test
  void serverMessageFromClientIsProtocolViolation() {
    sendMagicAnd(hello(Message.PROTOCOL_VERSION), new Message.ChangeBatch(0, 0, List.of()));
    readMessage();
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
    assertThat(e.message()).contains("change_batch");
  }

  /** The server pings sessions that wait for their snapshot; their pongs must not close them. */
  @Test
  void pongAfterWelcomeIsAcceptedAndIgnored() {
    sendMagicAnd(hello(Message.PROTOCOL_VERSION), new Message.Pong(1));
    assertThat(readMessage()).isInstanceOf(Message.Welcome.class);
    ch.runPendingTasks();
    assertThat((Object) ch.readOutbound()).as("no answer, no error").isNull();
    assertThat(ch.isActive()).isTrue();
    // the session still works afterwards
    sendFrame(new Message.Ping(9));
    assertThat(readMessage()).isEqualTo(new Message.Pong(9));
    assertThat(ch.isActive()).isTrue();
  }

  private void sendFrame(Message m) {
    ch.writeInbound(frame(m));
  }

  @Test
  void noHelloWithinHandshakeDeadlineGetsErrorAndClose() {
    ch.writeInbound(Unpooled.wrappedBuffer(MessageCodec.MAGIC));
    ch.advanceTimeBy(9, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    assertThat((Object) ch.readOutbound()).isNull();
    ch.advanceTimeBy(2, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.PROTOCOL_VIOLATION);
    assertThat(e.message()).contains("no hello");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void rejectedCredentialsGetAuthenticationFailed() {
    ch.finishAndReleaseAll();
    ch =
        new EmbeddedChannel(
            NettyServer.detector(
                hub,
                h -> {
                  throw new SecurityException("user u is not allowed");
                },
                new ClientSessionHandler.Settings("s", 1000, 10_000),
                MAX_FRAME));
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
    assertThat(e.message()).contains("not allowed");
    assertThat(ch.isOpen()).isFalse();
  }

  /**
   * The handshake's continuation after the verdict fails (here on an authenticator that breaks its
   * contract and names no principal): the session closes with INTERNAL instead of waiting forever,
   * the failure lost in an unread future.
   */
  @Test
  void failureAfterTheVerdictClosesWithInternalError() {
    ch.finishAndReleaseAll();
    ch =
        new EmbeddedChannel(
            NettyServer.detector(
                hub, h -> null, new ClientSessionHandler.Settings("s", 1000, 10_000), MAX_FRAME));
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(ch.isOpen()).isFalse();
  }

  /** An authenticator whose checks wait in a queue the test runs, counting the checks made. */
  private static final class QueuedAuthenticator implements Authenticator {
    final java.util.List<Runnable> queue = new java.util.ArrayList<>();
    final java.util.concurrent.atomic.AtomicInteger checks =
        new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public io.tablecast.server.auth.Principal authenticate(Message.Hello hello) {
      checks.incrementAndGet();
      return io.tablecast.server.auth.Principal.anonymous(hello.user());
    }

    @Override
    public java.util.concurrent.Executor executor() {
      return queue::add;
    }

    void runQueued() {
      queue.forEach(Runnable::run);
      queue.clear();
    }
  }

  @Test
  void checkStillQueuedWhenTheHandshakeDeadlineClosesTheConnectionIsSkipped() {
    ch.finishAndReleaseAll();
    QueuedAuthenticator auth = new QueuedAuthenticator();
    ch =
        new EmbeddedChannel(
            NettyServer.detector(
                hub, auth, new ClientSessionHandler.Settings("s", 1000, 10_000), MAX_FRAME));
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    assertThat(auth.queue).as("the check waits for the authenticator's pool").hasSize(1);
    ch.advanceTimeBy(11, TimeUnit.SECONDS);
    ch.runScheduledPendingTasks();
    Message.Error e = readError();
    assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(e.message()).contains("too busy to check credentials");

    auth.runQueued();
    ch.runPendingTasks();
    assertThat(auth.checks).as("no password check for a connection that is gone").hasValue(0);
    assertThat((Object) ch.readOutbound()).as("no welcome").isNull();
  }

  @Test
  void checkStillQueuedWhenTheClientDisconnectsIsSkipped() {
    ch.finishAndReleaseAll();
    QueuedAuthenticator auth = new QueuedAuthenticator();
    ch =
        new EmbeddedChannel(
            NettyServer.detector(
                hub, auth, new ClientSessionHandler.Settings("s", 1000, 10_000), MAX_FRAME));
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    ch.close();
    auth.runQueued();
    ch.runPendingTasks();
    assertThat(auth.checks).hasValue(0);
  }

  @Test
  void checkOfALiveConnectionRunsAndTheSessionIsWelcomed() {
    ch.finishAndReleaseAll();
    QueuedAuthenticator auth = new QueuedAuthenticator();
    ch =
        new EmbeddedChannel(
            NettyServer.detector(
                hub, auth, new ClientSessionHandler.Settings("s", 1000, 10_000), MAX_FRAME));
    sendMagicAnd(hello(Message.PROTOCOL_VERSION));
    auth.runQueued();
    assertThat(auth.checks).hasValue(1);
    assertThat(readMessage()).isInstanceOf(Message.Welcome.class);
  }
}
