package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.server.auth.PasswordHasher;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.testing.TestClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code auth:} section changed in the configuration file while the server serves ({@link
 * ConfigFileWatch}): a principal added logs in at once, sessions the new rules no longer admit
 * (principal removed, password changed, what it may read changed) are ended saying why, the others
 * go on untouched; a file that cannot be used changes nothing; other keys are said to wait for a
 * restart. Before, every change of a principal needed a restart, which sent every client of every
 * table back to a snapshot, and a removed principal's open sessions went on reading.
 */
class AuthReloadTest {
  private static String alicePw;
  private static String bobPw;
  private static String carolPw;
  private static String carolNewPw;

  @TempDir Path dir;
  private final FakeChangeSource source =
      new FakeChangeSource().withTable(table("products"), 3).withTable(table("prices"), 2);
  private EventLoopGroup group;
  private TablecastServer server;
  private Path file;
  private ConfigFileWatch watch;

  @BeforeAll
  static void hashes() { // 210,000 PBKDF2 iterations each: made once for the class
    alicePw = PasswordHasher.hash("alice-pw".toCharArray());
    bobPw = PasswordHasher.hash("bob-pw".toCharArray());
    carolPw = PasswordHasher.hash("carol-pw".toCharArray());
    carolNewPw = PasswordHasher.hash("carol-new-pw".toCharArray());
  }

  @BeforeEach
  void start() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    file = dir.resolve("tablecast.yaml");
    Files.writeString(
        file,
        config(
            "heartbeat: 200ms",
            principal("alice", alicePw, "[public.products]"),
            principal("carol", carolPw, "[public.products, public.prices]")));
    ServerConfig loaded = ServerConfig.load(file);
    server = TablecastServers.start(loaded, source);
    watch = ConfigFileWatch.unscheduled(file, loaded, server);
  }

  @AfterEach
  void stop() {
    watch.close();
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void aPrincipalAddedLogsInAtOnceAndOpenSessionsGoOn() throws Exception {
    assertThat(refusal("bob", "bob-pw").code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
    long since = System.currentTimeMillis();
    try (TestClient alice = subscribed("alice", "alice-pw", "public.products");
        TestClient carol = subscribed("carol", "carol-pw", "public.products")) {
      Files.writeString(
          file,
          config(
              "heartbeat: 200ms",
              principal("alice", alicePw, "[public.products]"),
              principal("carol", carolPw, "[public.products, public.prices]"),
              principal("bob", bobPw, "[public.prices]")));
      assertThat(watch.check()).isTrue();
      assertThat(watch.check()).as("the same bytes are not applied twice").isFalse();

      try (TestClient bob = loggedIn("bob", "bob-pw")) {
        assertThat(bob.channel.isActive()).isTrue();
      }
      source.commit(insert("public.products", 4, "after the change"));
      assertThat(changeOf(alice)).isEqualTo(1);
      assertThat(changeOf(carol)).isEqualTo(1);
    }
    assertThat(warnedSince(since, "at the next start")).isFalse();
  }

  @Test
  void sessionsTheNewRulesNoLongerAdmitAreEndedSayingWhyTheOthersGoOn() throws Exception {
    Files.writeString(
        file,
        config(
            "heartbeat: 200ms",
            principal("alice", alicePw, "[public.products]"),
            principal("carol", carolPw, "[public.products, public.prices]"),
            principal("bob", bobPw, "[public.prices]")));
    watch.check();
    try (TestClient alice = subscribed("alice", "alice-pw", "public.products");
        TestClient bob = subscribed("bob", "bob-pw", "public.prices");
        TestClient carol = subscribed("carol", "carol-pw", "public.products")) {
      Files.writeString(
          file,
          config(
              "heartbeat: 200ms",
              principal("alice", alicePw, "[public.prices]"), // may read another table now
              principal("carol", carolNewPw, "[public.products, public.prices]")));
      assertThat(watch.check()).isTrue(); // bob removed

      assertThat(ended(alice)).contains("what principal 'alice' may read changed");
      assertThat(ended(bob)).contains("principal 'bob' was removed");
      assertThat(ended(carol)).contains("the password of principal 'carol' changed");
      assertThat(refusal("bob", "bob-pw").code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
      try (TestClient again = loggedIn("carol", "carol-new-pw")) {
        assertThat(again.channel.isActive()).isTrue();
      }
    }
    try (TestClient untouched = subscribed("alice", "alice-pw", "public.prices")) {
      Files.writeString(
          file,
          config(
              "heartbeat: 200ms",
              principal("alice", alicePw, "[public.prices]"),
              principal("carol", carolNewPw, "[public.prices]")));
      watch.check(); // carol narrowed, alice as she was
      source.commit(insert("public.prices", 3, "alice still reads"));
      assertThat(changeOf(untouched)).isEqualTo(1);
    }
  }

  @Test
  void aWebSocketSessionIsEndedToo() throws Exception {
    try (TestClient browser = TestClient.webSocket(group, server.port())) {
      browser.sendText(
          "{\"type\":\"hello\",\"protocolVersion\":2,\"clientName\":\"browser\","
              + "\"user\":\"alice\",\"password\":\"alice-pw\"}");
      assertThat(browser.nextNonHeartbeatText()).contains("\"welcome\"");
      Files.writeString(
          file,
          config(
              "heartbeat: 200ms", principal("carol", carolPw, "[public.products, public.prices]")));
      watch.check();
      String said = browser.nextNonHeartbeatText();
      assertThat(said)
          .contains("AUTHENTICATION_FAILED")
          .contains("principal 'alice' was removed from the server's access rules");
      await().atMost(Duration.ofSeconds(5)).until(() -> !browser.channel.isActive());
    }
  }

  @Test
  void theConsoleFollowsTheAdminsOfNow() throws Exception {
    assertThat(console("alice", "alice-pw")).isEqualTo(403);
    Files.writeString(
        file,
        config(
            "heartbeat: 200ms",
            "    - { name: alice, password_hash: '" + alicePw + "', admin: true }",
            principal("carol", carolPw, "[public.products, public.prices]")));
    watch.check();
    assertThat(console("alice", "alice-pw")).isEqualTo(200);
  }

  @Test
  void theWholeAuthSectionRemovedWaitsForARestart() throws Exception {
    long since = System.currentTimeMillis();
    try (TestClient alice = subscribed("alice", "alice-pw", "public.products")) {
      Files.writeString(
          file,
          String.join(
              "\n",
              "listen: { host: 127.0.0.1, port: 0 }",
              "source: { jdbc_url: 'jdbc:postgresql://fake/app' }",
              "cached_tables: [public.products, public.prices]",
              ""));
      assertThat(watch.check()).isFalse();
      assertThat(warnedSince(since, "removed the auth section: that takes effect at the next"))
          .isTrue();
      assertThat(refusal(null, null).code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
      source.commit(insert("public.products", 4, "still served"));
      assertThat(changeOf(alice)).isEqualTo(1);
    }
  }

  private int console(String user, String password) throws Exception {
    String basic =
        java.util.Base64.getEncoder()
            .encodeToString(
                (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return java.net.http.HttpClient.newHttpClient()
        .send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(
                        "http://127.0.0.1:" + server.port() + "/console/api/tables"))
                .header("Authorization", "Basic " + basic)
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  /**
   * A hello whose check began under the old rules and ends after they were replaced is not admitted
   * by a verdict of rules no longer in force: it is refused, and its client connects again under
   * the new ones.
   */
  @Test
  void aHelloCheckedWhileTheRulesChangedIsNotAdmittedByTheOldOnes() throws Exception {
    java.util.concurrent.CountDownLatch checking = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    io.tablecast.server.auth.Authenticator slow =
        new io.tablecast.server.auth.Authenticator() {
          @Override
          public io.tablecast.server.auth.Principal authenticate(Message.Hello hello) {
            checking.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return io.tablecast.server.auth.Principal.anonymous(hello.user());
          }

          @Override
          public java.util.concurrent.Executor executor() {
            return pool;
          }
        };
    try (TablecastServer slowServer =
            TablecastServer.start(
                ServerConfig.load(file),
                s -> new FakeChangeSource().withTable(table("products"), 1),
                slow,
                io.tablecast.server.metrics.MicrometerServerMetrics.prometheus());
        TestClient c =
            TestClient.tcp(group, new InetSocketAddress("127.0.0.1", slowServer.port()))) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", "alice", "alice-pw", null));
      assertThat(checking.await(10, TimeUnit.SECONDS)).isTrue();
      slowServer.replaceAuthenticator(ServerConfig.load(file).authenticator());
      release.countDown();
      assertThat(until(c, Message.Error.class).message())
          .contains("access rules changed while the credentials were checked");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFileThatCannotBeUsedChangesNothing() throws Exception {
    long since = System.currentTimeMillis();
    Files.writeString(file, config("heartbeat: 200ms", "    - name: [unfinished"));
    assertThat(watch.check()).isFalse();
    assertThat(warnedSince(since, "changed but cannot be used")).isTrue();
    try (TestClient alice = loggedIn("alice", "alice-pw")) {
      assertThat(alice.channel.isActive()).isTrue();
    }
  }

  @Test
  void otherKeysChangedAreSaidToTakeEffectAtTheNextStart() throws Exception {
    long since = System.currentTimeMillis();
    Files.writeString(
        file,
        config(
            "heartbeat: 300ms",
            principal("alice", alicePw, "[public.products]"),
            principal("carol", carolPw, "[public.products, public.prices]")));
    assertThat(watch.check()).isTrue();
    assertThat(warnedSince(since, "changed heartbeat: it takes effect at the next start")).isTrue();
    assertThat(
            WatchedConfigFile.changedBesidesAuth(ServerConfig.load(file), ServerConfig.load(file)))
        .as("a file read twice has no changes")
        .isEmpty();
  }

  private static String config(String heartbeat, String... principals) {
    return String.join(
        "\n",
        "listen: { host: 127.0.0.1, port: 0 }",
        heartbeat,
        "source: { jdbc_url: 'jdbc:postgresql://fake/app' }",
        "cached_tables: [public.products, public.prices]",
        "auth:",
        "  principals:",
        String.join("\n", principals),
        "");
  }

  private static String principal(String name, String hash, String tables) {
    return "    - { name: " + name + ", password_hash: '" + hash + "', tables: " + tables + " }";
  }

  private TestClient connect() throws InterruptedException {
    return TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
  }

  private TestClient loggedIn(String user, String password) throws Exception {
    TestClient c = connect();
    c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", user, password, null));
    until(c, Message.Welcome.class);
    return c;
  }

  private TestClient subscribed(String user, String password, String table) throws Exception {
    TestClient c = loggedIn(user, password);
    c.send(Message.Subscribe.fresh(List.of(table)));
    until(c, Message.SnapshotEnd.class);
    return c;
  }

  private Message.Error refusal(String user, String password) throws Exception {
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", user, password, null));
      return until(c, Message.Error.class);
    }
  }

  /** The next message of {@code type}, skipping others. */
  private static <T extends Message> T until(TestClient c, Class<T> type)
      throws InterruptedException {
    while (true) {
      Message m = c.nextNonHeartbeat();
      if (type.isInstance(m)) {
        return type.cast(m);
      }
    }
  }

  /** The changes of the next batch with any, skipping heartbeats. */
  private static int changeOf(TestClient c) throws InterruptedException {
    while (true) {
      Message m = c.nextNonHeartbeat();
      if (m instanceof Message.ChangeBatch b && !b.changes().isEmpty()) {
        return b.changes().size();
      }
    }
  }

  /** The error that ended the session, once its connection closed. */
  private static String ended(TestClient c) throws InterruptedException {
    Message.Error e = until(c, Message.Error.class);
    assertThat(e.code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
    await().atMost(Duration.ofSeconds(5)).until(() -> !c.channel.isActive());
    return e.message();
  }

  private static boolean warnedSince(long since, String text) {
    return RecentEvents.global().newestFirst().stream()
        .anyMatch(e -> e.timeMillis() >= since && e.message().contains(text));
  }
}
