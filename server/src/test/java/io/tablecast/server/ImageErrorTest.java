package io.tablecast.server;

import static io.tablecast.server.hub.FakeChangeSource.insert;
import static io.tablecast.server.hub.FakeChangeSource.row;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static io.tablecast.server.hub.FakeChangeSource.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.Op;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.tail.RowEvent;
import io.tablecast.server.testing.TestClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An event a table's image cannot take is not logged and skipped: the table is stale to its
 * clients, counted in {@code tablecast_image_errors_total{table}}, and re-read through the change
 * source; the re-read repairs the mirrors and ends the staleness. The whole server over loopback,
 * with an in-memory change source.
 */
class ImageErrorTest {

  private static final TableSchema PRODUCTS = table("products");
  private static final TableSchema COUNTRIES = table("countries");

  private final FakeChangeSource source =
      new FakeChangeSource().withTable(PRODUCTS, 3).withTable(COUNTRIES, 2);
  private EventLoopGroup group;
  private TablecastServer server;

  @BeforeEach
  void setUp() throws Exception {
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    ServerConfig config =
        ServerConfig.builder()
            .listen("127.0.0.1", 0)
            .set("heartbeat", Duration.ofSeconds(30))
            .source(
                new SourceConfig(
                    "jdbc:postgresql://fake/app",
                    null,
                    null,
                    List.of("public.products", "public.countries"),
                    false,
                    null,
                    null))
            .build();
    server = TablecastServers.start(config, source);
  }

  @AfterEach
  void tearDown() {
    server.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private TestClient subscribed(String... tables) throws InterruptedException {
    TestClient c = TestClient.tcp(group, new InetSocketAddress("127.0.0.1", server.port()));
    c.send(new Message.Hello(Message.PROTOCOL_VERSION, "image-error-test", null, null, null));
    c.next(Message.Welcome.class);
    c.send(Message.Subscribe.fresh(List.of(tables)));
    for (int i = 0; i < tables.length; i++) {
      c.next(Message.SnapshotBegin.class);
      while (!(c.nextNonHeartbeat() instanceof Message.SnapshotEnd)) {
        // the rows
      }
    }
    return c;
  }

  @Test
  void anEventTheImageCannotTakeMakesTheTableStaleUntilItIsReReadWhole() throws Exception {
    try (TestClient c = subscribed("public.products", "public.countries")) {
      byte[] five = FakeChangeSource.bytes(5, "five");
      byte[] cutShort =
          java.util.Arrays.copyOf(five, five.length - 2); // not a row of the table's row form
      source.commit(
          insert("public.products", 4, "four"),
          new RowEvent.Upsert("public.products", PRODUCTS, FakeChangeSource.key(5), cutShort, null),
          update("public.countries", 1, "row1", "changed"));

      Message.ChangeBatch batch = (Message.ChangeBatch) c.nextNonHeartbeat();
      assertThat(batch.changes())
          .as("the batch's other changes are delivered")
          .extracting(Message.Change::table, ch -> ch.key().get(0).longValue())
          .containsExactly(tuple("public.products", 4L), tuple("public.countries", 1L));
      Message.TableStatus stale = (Message.TableStatus) c.nextNonHeartbeat();
      assertThat(stale.table()).isEqualTo("public.products");
      assertThat(stale.stale()).isTrue();
      assertThat(stale.reason()).contains("re-reading the table");
      assertThat(server.metrics().imageErrors()).isEqualTo(1.0);
      assertThat(server.metrics().prometheusText())
          .contains("tablecast_image_errors_total{table=\"public.products\"} 1.0")
          .contains("tablecast_table_stale{table=\"public.products\"} 1.0");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> source.resyncs.equals(List.of("public.products")));
      assertThat(server.hub().staleTables())
          .as("only the table whose image failed")
          .containsOnlyKeys("public.products");

      // until the re-read lands, a client that subscribes now hears the table is stale after its
      // snapshot
      try (TestClient late = subscribed("public.products")) {
        Message.TableStatus told = (Message.TableStatus) late.nextNonHeartbeat();
        assertThat(told.stale()).isTrue();
      }

      List<ObjectNode> now = new ArrayList<>();
      for (long id = 1; id <= 3; id++) {
        now.add(row(id, "row" + id));
      }
      now.add(row(4, "four"));
      now.add(row(5, "five")); // what the change the image could not take did to the table
      source.tableHolds(PRODUCTS, now);
      source.completeResyncs();

      Message.ChangeBatch repair = (Message.ChangeBatch) c.nextNonHeartbeat();
      assertThat(repair.changes())
          .singleElement()
          .satisfies(
              ch -> {
                assertThat(ch.op()).isEqualTo(Op.INSERT);
                assertThat(ch.key().get(0).longValue()).isEqualTo(5);
                assertThat(ch.after().get("name").textValue()).isEqualTo("five");
              });
      Message.TableStatus followed = (Message.TableStatus) c.nextNonHeartbeat();
      assertThat(followed.table()).isEqualTo("public.products");
      assertThat(followed.stale()).as("followed again after the re-read").isFalse();
      assertThat(server.hub().staleTables()).isEmpty();
      assertThat(server.metrics().resyncs()).isEqualTo(1.0);
      assertThat(server.metrics().reconcileRepairs()).as("a re-read, not a repair").isZero();
    }
  }
}
