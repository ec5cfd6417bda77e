package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MirrorShape} against a scripted server: the subscribe carries the shape, again when the
 * client resumes; a shape the server refuses fails the mirror with the server's reason; a table
 * holds one shape per client.
 */
class MirrorShapeTest {
  static final String T = "shop.products";
  static final Duration WAIT = Duration.ofSeconds(10);
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  FakeServer server;
  TablecastClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    server.close();
  }

  private FakeServer.Conn welcomed() throws InterruptedException {
    FakeServer.Conn c = server.accept();
    c.expect(Message.Hello.class);
    return c.send(
        new Message.Welcome(Message.PROTOCOL_VERSION, "fake", FakeServer.EPOCH, 10, 10_000));
  }

  private void start() throws InterruptedException {
    server = new FakeServer();
    client =
        TablecastClient.builder()
            .servers(server.address())
            .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build();
  }

  // --- shape example start
  record Product(long id, String name, BigDecimal price) {}

  static TableMirror<Product> cheapInEurope(TablecastClient client) {
    return client.mirror(
        "shop.products",
        Product.class,
        MirrorShape.rows("region = ? AND price < ?", "eu", 100).columns("name", "price"));
  }

  // --- shape example end

  @Test
  void theSubscribeCarriesTheShapeAndTheResumeToo() throws Exception {
    start();
    TableMirror<Product> m = cheapInEurope(client);
    FakeServer.Conn c = welcomed();
    Message.Shape asked = c.expect(Message.Subscribe.class).shape(T);
    assertThat(asked)
        .isEqualTo(
            new Message.Shape(
                "region = ? AND price < ?",
                List.of(NODES.textNode("eu"), NODES.numberNode(new BigDecimal("100"))),
                List.of("name", "price")));
    c.snapshot(T, List.of("id"), 10, row("id", 1, "name", "pen", "price", "2.50"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    assertThat(m.get(1)).isEqualTo(new Product(1, "pen", new BigDecimal("2.50")));
    c.close();
    Message.Subscribe resume = welcomed().expect(Message.Subscribe.class);
    assertThat(resume.resumePosition()).isEqualTo(10);
    assertThat(resume.shape(T)).as("the resume keeps the shape").isEqualTo(asked);
    DocExamples.assertDocumentShows("\n## Subscription shapes\n", MirrorShapeTest.class, "shape");
  }

  @Test
  void aShapeTheServerRefusesFailsTheMirrorWithItsReason() throws Exception {
    start();
    TableMirror<Map<String, Object>> m = client.mirror(T, MirrorShape.rows("regoin = 'eu'"));
    FakeServer.Conn c = welcomed();
    c.expect(Message.Subscribe.class);
    c.send(
        new Message.Error(
            ErrorCode.PROTOCOL_VIOLATION,
            "the shape asked of table 'shop.products' cannot be used: filter, position 1: no"
                + " column 'regoin'",
            T));
    assertThatThrownBy(() -> m.awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("position 1: no column 'regoin'");
  }

  @Test
  void aServerWithoutShapesIsNotAskedForTheWholeTable() throws Exception {
    start();
    TableMirror<Map<String, Object>> shaped = client.mirror(T, MirrorShape.rows("region = 'eu'"));
    TableMirror<Map<String, Object>> whole = client.mirror("shop.other");
    FakeServer.Conn c = server.accept();
    c.expect(Message.Hello.class);
    c.send(new Message.Welcome(4, "fake", FakeServer.EPOCH, 10, 10_000));
    Message.Subscribe s = c.expect(Message.Subscribe.class);
    assertThat(s.tables()).as("only the table without a shape").containsExactly("shop.other");
    assertThatThrownBy(() -> shaped.awaitReady(WAIT))
        .isInstanceOf(TablecastException.class)
        .hasMessageContaining("speaks protocol version 4, which has no subscription shapes");
    c.snapshot("shop.other", List.of("id"), 10, row("id", 1));
    assertThat(whole.awaitReady(WAIT)).isTrue();
  }

  @Test
  void aTableHoldsOneShapePerClient() throws Exception {
    start();
    MirrorShape eu = MirrorShape.rows("region = ?", "eu");
    client.mirror(T, eu);
    assertThat(client.mirror(T, Product.class, MirrorShape.rows("region = ?", "eu")))
        .as("the same shape, another row type")
        .isNotNull();
    assertThatThrownBy(() -> client.mirror(T, MirrorShape.rows("region = ?", "us")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mirrors of shop.products hold MirrorShape[rows=region = ? [eu]");
    assertThatThrownBy(() -> client.mirror(T)).hasMessageContaining("not the whole table");
    assertThatThrownBy(() -> client.nearCache(T, NearCacheOptions.maximumRows(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MirrorShape.rows("id = ?", (Object) null))
        .hasMessageContaining("parameter 1 of the shape is null: write 'column IS NULL'");
    assertThatThrownBy(() -> MirrorShape.rows(" ")).hasMessageContaining("must not be blank");
  }
}
