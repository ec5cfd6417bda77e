package io.tablecast.server.auth;

import static io.tablecast.server.hub.FakeChangeSource.row;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static io.tablecast.server.hub.FakeChangeSource.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACSigner;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.TablecastServers;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.testing.TestClient;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Authentication and authorization through a whole server over loopback, with the fake source. */
class AuthServerTest {

  static final String SECRET = "0123456789abcdef0123456789abcdef-test";

  /**
   * The principals' hashes, made once for the class: a hash is 210,000 PBKDF2 iterations, and the
   * tests are about the server's checks, which still run on every login.
   */
  private static final String ALICE_HASH = PasswordHasher.hash("alice-pw".toCharArray());

  private static final String CAROL_HASH = PasswordHasher.hash("carol-pw".toCharArray());

  @TempDir Path dir;

  /**
   * Products have a note (NULL in the snapshot), so that a row can change inside the row filter.
   */
  private static final io.tablecast.server.capture.TableSchema PRODUCTS =
      FakeChangeSource.tableWithNote("products");

  private final FakeChangeSource source =
      new FakeChangeSource().withTable(table("countries"), 3).withTable(PRODUCTS, 3);
  private EventLoopGroup group;
  private TablecastServer server;

  @BeforeEach
  void setUp() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    String yaml =
        """
        listen: { host: 127.0.0.1, port: 0 }
        heartbeat: 200ms
        source: { jdbc_url: "jdbc:postgresql://fake/app" }
        cached_tables: [public.countries, public.products]
        auth:
          principals:
            - name: alice
              password_hash: %s
              tables: [public.products]
              row_filter: "name = 'row2'"
            - name: carol
              password_hash: %s
              columns: [id]
          jwt:
            principal_claim: sub
            default_policy:
              tables: [public.products]
              row_filter: "name = <claim:team>"
        """
            .formatted(ALICE_HASH, CAROL_HASH);
    Path file = dir.resolve("tablecast.yaml");
    Files.writeString(file, yaml);
    ServerConfig config =
        ServerConfig.load(file, Map.of(AuthConfigReader.ENV_JWT_HS256_SECRET, SECRET));
    server = TablecastServers.start(config, source);
  }

  @AfterEach
  void tearDown() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private TestClient connect() throws InterruptedException {
    return TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
  }

  private Message.Error refused(Message.Hello hello) throws Exception {
    try (TestClient c = connect()) {
      c.send(hello);
      Message.Error e = c.next(Message.Error.class);
      await().atMost(Duration.ofSeconds(5)).until(() -> !c.channel.isActive());
      return e;
    }
  }

  @Test
  void wrongPasswordAndUnknownUserAreRefusedAlikeAndCounted() throws Exception {
    Message.Error wrong =
        refused(new Message.Hello(Message.PROTOCOL_VERSION, "t", "alice", "nope", null));
    Message.Error unknown =
        refused(new Message.Hello(Message.PROTOCOL_VERSION, "t", "mallory", "nope", null));
    Message.Error none =
        refused(new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, null));
    assertThat(wrong.code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
    assertThat(unknown).isEqualTo(wrong);
    assertThat(none.code()).isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
    assertThat(server.metrics().authFailures("bad_credentials")).isEqualTo(2.0);
    assertThat(server.metrics().authFailures("missing_credentials")).isEqualTo(1.0);
    assertThat(server.metrics().prometheusText())
        .contains("tablecast_auth_failures_total{reason=\"bad_credentials\"}");
  }

  @Test
  void expiredTokenIsRefused() throws Exception {
    String token =
        JwtVerifierTest.token(
            JWSAlgorithm.HS256,
            new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)),
            new com.nimbusds.jwt.JWTClaimsSet.Builder()
                .subject("dave")
                .claim("team", "row3")
                .expirationTime(new java.util.Date(System.currentTimeMillis() - 600_000))
                .build());
    assertThat(refused(new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, token)).code())
        .isEqualTo(ErrorCode.AUTHENTICATION_FAILED);
    assertThat(server.metrics().authFailures("expired_token")).isEqualTo(1.0);
  }

  @Test
  void tableOutsideTheAllowListIsDeniedAndTheConnectionStaysOpen() throws Exception {
    try (TestClient c = connect()) {
      // hello and subscribe back to back: the subscribe waits for the verdict, in order
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", "alice", "alice-pw", null));
      c.send(Message.Subscribe.fresh(List.of("public.countries", "public.missing")));
      c.next(Message.Welcome.class);
      Message.Error denied = c.next(Message.Error.class);
      assertThat(denied.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
      assertThat(denied.table()).isEqualTo("public.countries");
      assertThat(denied.message()).contains("public.countries").contains("alice");
      Message.Error missing = c.next(Message.Error.class);
      assertThat(missing.code())
          .as("an unknown name outside the allow-list does not reveal whether it exists")
          .isEqualTo(ErrorCode.ACCESS_DENIED);
      c.send(new Message.Ping(5));
      assertThat(c.nextNonHeartbeat()).isEqualTo(new Message.Pong(5));
      assertThat(c.channel.isActive()).isTrue();
    }
  }

  @Test
  void rowFilterShapesSnapshotAndChanges() throws Exception {
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", "alice", "alice-pw", null));
      c.next(Message.Welcome.class);
      c.send(Message.Subscribe.fresh(List.of("public.products")));
      assertThat(c.next(Message.SnapshotBegin.class).rowCount()).isEqualTo(1);
      assertThat(c.next(Message.SnapshotRows.class).rows())
          .extracting(r -> r.get("id").longValue())
          .containsExactly(2L);
      c.next(Message.SnapshotEnd.class);

      source.commit(
          upsert(PRODUCTS, null, row(4, "row2")), // matches: INSERT
          upsert(PRODUCTS, null, row(5, "other")), // dropped
          upsert(PRODUCTS, row(1, "row1"), row(1, "row2")), // move-in: INSERT
          upsert(PRODUCTS, row(2, "row2"), row(2, "gone")), // move-out: DELETE
          FakeChangeSource.delete(PRODUCTS, row(3, "row3")), // never seen: dropped
          upsert(PRODUCTS, row(5, "other"), row(5, "other2")), // outside before and after: dropped
          upsert(PRODUCTS, row(4, "row2"), row(4, "row2").put("note", "changed")), // inside: UPDATE
          upsert(
              PRODUCTS,
              row(4, "row2").put("note", "changed"),
              row(4, "row2").put("note", "changed")), // no change: nothing
          FakeChangeSource.delete(PRODUCTS, row(4, "row2"))); // seen: DELETE
      Message.ChangeBatch b = nextChanges(c);
      assertThat(b.changes())
          .extracting(ch -> ch.op() + ":" + ch.key().get(0).longValue())
          .containsExactly("INSERT:4", "INSERT:1", "DELETE:2", "UPDATE:4", "DELETE:4");
      Message.Change moveIn = b.changes().get(1);
      assertThat(moveIn.before()).isNull();
      assertThat(moveIn.after().get("name").textValue()).isEqualTo("row2");

      source.commit(upsert(PRODUCTS, null, row(6, "nope")));
      source.commit(upsert(PRODUCTS, null, row(7, "row2")));
      assertThat(nextChanges(c).changes())
          .extracting(ch -> ch.key().get(0).longValue())
          .containsExactly(7L);
    }
  }

  @Test
  void jwtPrincipalGetsTheDefaultPolicyWithItsClaim() throws Exception {
    String token =
        JwtVerifierTest.token(
            JWSAlgorithm.HS256,
            new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)),
            new com.nimbusds.jwt.JWTClaimsSet.Builder()
                .subject("dave")
                .claim("team", "row3")
                .expirationTime(new java.util.Date(System.currentTimeMillis() + 600_000))
                .build());
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, token));
      c.next(Message.Welcome.class);
      c.send(Message.Subscribe.fresh(List.of("public.products")));
      c.next(Message.SnapshotBegin.class);
      assertThat(c.next(Message.SnapshotRows.class).rows())
          .extracting(r -> r.get("id").longValue())
          .containsExactly(3L);
    }
  }

  @Test
  void columnsAreProjectedWithThePrimaryKeyKept() throws Exception {
    try (TestClient c = connect()) {
      c.send(new Message.Hello(Message.PROTOCOL_VERSION, "t", "carol", "carol-pw", null));
      c.next(Message.Welcome.class);
      c.send(Message.Subscribe.fresh(List.of("public.countries")));
      Message.SnapshotBegin begin = c.next(Message.SnapshotBegin.class);
      assertThat(begin.columns())
          .extracting(io.tablecast.protocol.ColumnInfo::name)
          .containsExactly("id");
      assertThat(c.next(Message.SnapshotRows.class).rows().get(0).fieldNames())
          .toIterable()
          .containsExactly("id");
      c.next(Message.SnapshotEnd.class);
      source.commit(update("public.countries", 1, "row1", "secret"));
      Message.Change ch = nextChanges(c).changes().get(0);
      assertThat(ch.op()).isEqualTo(Op.UPDATE);
      assertThat(ch.after().has("name")).isFalse();
      assertThat(ch.before().has("name")).isFalse();
    }
  }

  private static Message.ChangeBatch nextChanges(TestClient c) throws InterruptedException {
    List<Message> seen = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Message m = c.nextNonHeartbeat();
      if (m instanceof Message.ChangeBatch b && !b.changes().isEmpty()) {
        return b;
      }
      seen.add(m);
    }
    throw new AssertionError("no change batch; saw " + seen);
  }
}
