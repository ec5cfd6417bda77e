package io.tablecast.client;

import static io.tablecast.client.FakeServer.batch;
import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Warm restart against a scripted server: a mirror saved when its client closes starts a new client
 * ready at once from its file, and resumes from the saved position (or takes a snapshot compared
 * with its rows); a file that is corrupt, truncated or another mirror's is reported and never
 * loaded.
 */
class WarmRestartTest {
  static final String T = "shop.accounts";
  static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;
  FakeServer server;
  TablecastClient client;
  final List<String> fileProblems = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    server.close();
  }

  private TablecastClient connect() {
    return builder().build();
  }

  /** A client saving to {@link #dir} whose file problems go to {@link #fileProblems}. */
  private TablecastClient.Builder builder() {
    return TablecastClient.builder()
        .servers(server.address())
        .clientName("warm-test")
        .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .warmRestart(dir, Duration.ofHours(1))
        .errorListener(
            new ErrorListener() {
              @Override
              public void mirrorFileFailed(String table, Path file, String problem) {
                fileProblems.add(table + ": " + problem);
              }
            });
  }

  private static Message.Resumed resumed(long position) {
    List<ColumnInfo> cols =
        List.of(
            new ColumnInfo("id", "text", ColumnKind.STRING),
            new ColumnInfo("v", "text", ColumnKind.STRING));
    return new Message.Resumed(
        List.of(T), List.of(new Message.TableSchemaInfo(T, cols, List.of("id"))), position);
  }

  /** A first client: snapshot at 10, a batch at 11, closed: its mirror is saved at 11. */
  private void saveAtEleven() throws Exception {
    client = connect();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    FakeServer.Conn conn = server.handshake(10);
    assertThat(conn.expect(Message.Subscribe.class)).isEqualTo(Message.Subscribe.fresh(List.of(T)));
    conn.snapshot(T, List.of("id"), 10, row("id", "1", "v", "a"), row("id", "2", "v", "b"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    conn.send(batch(11, insert(T, row("id", "3", "v", "c"), "3")));
    await().atMost(WAIT).until(() -> m.position() == 11);
    client.close();
    client = null;
  }

  @Test
  void aSavedMirrorIsReadyAtOnceAndResumesFromItsPosition() throws Exception {
    server = new FakeServer();
    saveAtEleven();
    assertThat(dir.resolve("shop.accounts@rows.mirror")).exists();

    client = connect();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    assertThat(m.isReady()).as("ready as soon as created").isTrue();
    assertThat(m.copyToMap()).containsOnlyKeys("1", "2", "3");
    assertThat(m.get("3")).containsEntry("v", "c");
    assertThat(m.position()).isEqualTo(11);
    assertThat(m.staleReason()).contains("restored from").contains("position 11");

    FakeServer.Conn conn = server.handshake(12);
    assertThat(conn.expect(Message.Subscribe.class))
        .as("resumes from the file's epoch and position")
        .isEqualTo(new Message.Subscribe(List.of(T), FakeServer.EPOCH, 11));
    List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
    m.addListener(events::add);
    conn.send(resumed(11));
    await().atMost(WAIT).until(() -> m.staleReason() == null); // up to date once resumed
    conn.send(batch(12, insert(T, row("id", "4", "v", "d"), "4")));
    await().atMost(WAIT).until(() -> m.position() == 12);
    assertThat(m.copyToMap()).containsOnlyKeys("1", "2", "3", "4");
    assertThat(events)
        .extracting(ChangeEvent::op, ChangeEvent::key)
        .containsExactly(tuple(ChangeType.INSERT, "4"));
    assertThat(fileProblems).isEmpty();
  }

  // --- warm example start (docs/CLIENT.md, "Warm restart")
  static TablecastClient warmClient(String server, Path stateDirectory) {
    return TablecastClient.builder()
        .servers(server)
        .warmRestart(stateDirectory, Duration.ofMinutes(1)) // saved every minute and by close()
        .build();
  }

  // --- warm example end

  @Test
  void theWarmRestartExampleOfTheDocsRunsAndIsTheOneTheDocumentShows() throws Exception {
    server = new FakeServer();
    client = warmClient(server.address(), dir);
    TableMirror<Map<String, Object>> m = client.mirror(T);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 10, row("id", "1", "v", "a"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    client.close();
    client = warmClient(server.address(), dir);
    assertThat(client.mirror(T).get("1")).containsEntry("v", "a");

    DocExamples.assertDocumentShows("\n## Warm restart\n", WarmRestartTest.class, "warm");
  }

  @Test
  void aServerThatCannotResumeSendsASnapshotComparedWithTheSavedRows() throws Exception {
    server = new FakeServer();
    saveAtEleven();

    client = connect();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    Map<String, Object> unchanged = m.get("1");
    List<ChangeEvent<Map<String, Object>>> events = new CopyOnWriteArrayList<>();
    m.addListener(events::add);
    FakeServer.Conn conn = server.handshake("epoch-2", 40, 10_000);
    assertThat(conn.expect(Message.Subscribe.class))
        .isEqualTo(new Message.Subscribe(List.of(T), FakeServer.EPOCH, 11));
    conn.snapshot(
        T,
        List.of("id"),
        40,
        row("id", "1", "v", "a"),
        row("id", "2", "v", "B"),
        row("id", "5", "v", "e"));
    await().atMost(WAIT).until(() -> m.position() == 40);
    assertThat(events)
        .extracting(ChangeEvent::op, ChangeEvent::key)
        .containsExactlyInAnyOrder(
            tuple(ChangeType.UPDATE, "2"),
            tuple(ChangeType.DELETE, "3"),
            tuple(ChangeType.INSERT, "5"));
    assertThat(m.get("1")).isSameAs(unchanged);
    assertThat(m.copyToMap()).containsOnlyKeys("1", "2", "5");
  }

  @Test
  void typedRowsAreSavedAndReadBack() throws Exception {
    server = new FakeServer();
    client = connect();
    TableMirror<Account> m = client.mirror(T, Account.class);
    FakeServer.Conn conn = server.handshake(10);
    conn.expect(Message.Subscribe.class);
    conn.snapshot(T, List.of("id"), 10, row("id", "1", "v", "a", "extra", "x"));
    assertThat(m.awaitReady(WAIT)).isTrue();
    client.close();

    client = connect();
    TableMirror<Account> again = client.mirror(T, Account.class);
    assertThat(again.isReady()).isTrue();
    assertThat(again.get("1")).isEqualTo(new Account("1", "a"));
    assertThat(
            dir.resolve("shop.accounts@" + Account.class.getName().replace('$', '_') + ".mirror"))
        .exists();
  }

  /** A typed row without a property for the column {@code extra}. */
  record Account(String id, String v) {}

  @Test
  void aCorruptFileIsReportedAndNotLoaded() throws Exception {
    server = new FakeServer();
    saveAtEleven();
    Path file = dir.resolve("shop.accounts@rows.mirror");
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 5] ^= 0x20; // a byte of the last row
    Files.write(file, bytes);

    assertFreshStart("its checksum does not match");
  }

  @Test
  void aTruncatedFileIsReportedAndNotLoaded() throws Exception {
    server = new FakeServer();
    saveAtEleven();
    Path file = dir.resolve("shop.accounts@rows.mirror");
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(bytes, bytes.length - 6));

    assertFreshStart("truncated");
  }

  @Test
  void anotherTablesFileIsReportedAndNotLoaded() throws Exception {
    server = new FakeServer();
    saveAtEleven();
    Files.move(dir.resolve("shop.accounts@rows.mirror"), dir.resolve("shop.other@rows.mirror"));

    client = connect();
    TableMirror<Map<String, Object>> m = client.mirror("shop.other");
    assertThat(m.isReady()).isFalse();
    await().atMost(WAIT).until(() -> !fileProblems.isEmpty());
    assertThat(fileProblems)
        .singleElement()
        .asString()
        .contains("shop.other: the saved mirror is ignored")
        .contains("it holds rows of shop.accounts as java.util.Map");
    FakeServer.Conn conn = server.handshake(12);
    assertThat(conn.expect(Message.Subscribe.class))
        .isEqualTo(Message.Subscribe.fresh(List.of("shop.other")));
  }

  @Test
  void aWelcomeWaitsForAMirrorBeingReadBeforeItSubscribes() throws Exception {
    server = new FakeServer();
    saveAtEleven();
    Path file = dir.resolve("shop.accounts@rows.mirror");
    byte[] saved = Files.readAllBytes(file);
    Files.delete(file);
    Process mkfifo = new ProcessBuilder("mkfifo", file.toString()).start();
    assertThat(mkfifo.waitFor()).isZero();

    client = connect();
    // the mirror's file is a pipe: reading it waits until the test writes the saved bytes into it
    CompletableFuture<TableMirror<Map<String, Object>>> created = new CompletableFuture<>();
    Thread creator = new Thread(() -> created.complete(client.mirror(T)), "creates-the-mirror");
    creator.start();
    await() // the mirror is being read (announced to the session) before the server welcomes
        .atMost(WAIT)
        .until(
            () ->
                Arrays.stream(creator.getStackTrace())
                    .anyMatch(f -> f.getClassName().endsWith(".MirrorFile")));
    FakeServer.Conn conn = server.handshake(12);
    assertThat(conn.received.poll(300, TimeUnit.MILLISECONDS))
        .as("no subscribe while the mirror is being read")
        .isNull();
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write(saved);
    }
    TableMirror<Map<String, Object>> m = created.get(10, TimeUnit.SECONDS);
    assertThat(conn.expect(Message.Subscribe.class))
        .isEqualTo(new Message.Subscribe(List.of(T), FakeServer.EPOCH, 11));
    assertThat(m.isReady()).isTrue();
  }

  @Test
  void aMirrorRestoredAfterTheWelcomeStillResumesFromItsFile() throws Exception {
    server = new FakeServer();
    saveAtEleven();

    client = connect();
    CompletableFuture<String> connected = new CompletableFuture<>();
    client.addConnectionListener(
        new ConnectionListener() {
          @Override
          public void connected(String at) {
            connected.complete(at);
          }
        });
    FakeServer.Conn conn = server.handshake(12);
    connected.get(10, TimeUnit.SECONDS); // welcomed with no mirror: nothing subscribed yet
    TableMirror<Map<String, Object>> m = client.mirror(T);
    assertThat(conn.expect(Message.Subscribe.class))
        .as("the first mirror of the connection resumes from its file, as if created before")
        .isEqualTo(new Message.Subscribe(List.of(T), FakeServer.EPOCH, 11));
    conn.send(resumed(11));
    await().atMost(WAIT).until(() -> m.staleReason() == null);
    assertThat(m.copyToMap()).containsOnlyKeys("1", "2", "3");
  }

  @Test
  void aFileTheHeapCannotHoldIsReportedWithTheFiguresAndNotRead() throws Exception {
    server = new FakeServer();
    saveAtEleven();
    client = builder().heap(new TinyHeap()).build();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    assertThat(m.isReady()).isFalse();
    await().atMost(WAIT).until(() -> !fileProblems.isEmpty());
    assertThat(fileProblems)
        .singleElement()
        .asString()
        .contains("reading it takes about", "of heap (three times its", "the heap can give")
        .contains("maximum heap 1 KiB", "20 % kept for the application", "-Xmx");
  }

  /** A heap of 1 KiB, half of it in use: no mirror file fits. */
  static final class TinyHeap implements io.tablecast.client.internal.HeapRoom {
    @Override
    public long max() {
      return 1024;
    }

    @Override
    public long used() {
      return 512;
    }

    @Override
    public long usedAfterCollection() {
      return 512;
    }
  }

  private void assertFreshStart(String problem) throws Exception {
    client = connect();
    TableMirror<Map<String, Object>> m = client.mirror(T);
    assertThat(m.isReady()).as("nothing loaded").isFalse();
    assertThat(m.size()).isZero();
    await().atMost(WAIT).until(() -> !fileProblems.isEmpty());
    assertThat(fileProblems).singleElement().asString().contains(problem);
    FakeServer.Conn conn = server.handshake(12);
    assertThat(conn.expect(Message.Subscribe.class)).isEqualTo(Message.Subscribe.fresh(List.of(T)));
    conn.snapshot(T, List.of("id"), 12, row("id", "1", "v", "a"));
    assertThat(m.awaitReady(WAIT)).isTrue();
  }
}
