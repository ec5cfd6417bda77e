package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.tablecast.client.TableMirror;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A start whose database stops answering without closing the connection, through a proxy that stops
 * passing the database's answers on ({@link UnansweredReadTest} for a server already serving): its
 * snapshot is read again on a new connection; its capture's install, or its connecting, is given up
 * after three times {@code source.answer_timeout}, and the start fails saying so, where it waited
 * for ever before.
 */
class UnansweredStartTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final List<String> DDL =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, v varchar(10))",
          "CREATE TABLE others (id int PRIMARY KEY)");

  /**
   * The start's snapshot, its answer lost on the way (the connection silenced right after the whole
   * read's first statement, which the database runs): the read is given up on the database's word
   * and made again on a new connection, and the server starts. Before, the start waited for ever,
   * its progress frozen (watched: no start within 90 s).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aStartWhoseSnapshotsAnswerWasLostReadsItAgainOnANewConnection(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "unanswered_start", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      p.sql("INSERT INTO items VALUES (1, 'a')");
      CountDownLatch silenced =
          proxy.stallAfterSending( // the whole read's first statement
              kind == Kind.POSTGRESQL ? "IN ACCESS SHARE MODE" : "WITH CONSISTENT SNAPSHOT");
      long began = System.nanoTime();
      assertTimeoutPreemptively(
          Duration.ofSeconds(90),
          () -> ServerSetups.atUrl(p, ServerSetups.urlThrough(p, proxy), Duration.ZERO));
      System.out.printf(
          "UnansweredStartTest %s: started in %d ms, its first snapshot's answer lost%n",
          kind, (System.nanoTime() - began) / 1_000_000);
      assertThat(silenced.getCount()).as("the snapshot's connection was silenced").isZero();
      TableMirror<Map<String, Object>> items = p.readyMirror(p.client("unanswered_start"), "items");
      assertThat(items.get(1)).containsEntry("v", "a");
      p.sql("INSERT INTO items VALUES (2, 'b')");
      await().atMost(WAIT).until(() -> items.get(2) != null);
    }
  }

  /**
   * The start's install of the capture, its answer lost on the way (the connection silenced right
   * after it sent the outbox's creation, which the database runs): the start fails once the install
   * has waited three times {@code source.answer_timeout} beyond its 2 s lock wait, saying what went
   * unanswered and the setting, and a start made after the database answers again installs and
   * serves at once. Before, the start waited for ever, its progress frozen (watched: no start
   * within 90 s); and with the install's session left to the database, a start made again waited
   * for its locks on PostgreSQL (21 s, watched).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aStartWhoseInstallGoesUnansweredFailsSayingSo(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "unanswered_install", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      CountDownLatch silenced = proxy.stallAfterSending("CREATE TABLE IF NOT EXISTS");
      String url = ServerSetups.urlThrough(p, proxy);
      FailedStart failed = failedStart(p, url, kind + ", its install unanswered");
      assertThat(silenced.getCount()).as("the install's connection was silenced").isZero();
      assertThat(failed.error())
          .hasMessageContaining("did not answer")
          .hasMessageContaining("source.answer_timeout");
      assertThat(failed.millis())
          .isGreaterThanOrEqualTo(3 * ServerSetups.ANSWER_TIMEOUT.toMillis());

      long again = System.nanoTime();
      ServerSetups.atUrl(p, url, Duration.ZERO); // the proxy silences no new connection
      assertThat(Duration.ofNanos(System.nanoTime() - again))
          .as(
              "the start made again (PostgreSQL: the given-up install's session was ended, and the"
                  + " locks of its transaction with it, not left to the database's 30 s"
                  + " idle_in_transaction_session_timeout)")
          .isLessThan(Duration.ofSeconds(15));
      TableMirror<Map<String, Object>> items =
          p.readyMirror(p.client("unanswered_install"), "items");
      p.sql("INSERT INTO items VALUES (1, 'a')");
      await().atMost(WAIT).until(() -> items.get(1) != null);
    }
  }

  /**
   * A database that accepts connections but answers nothing: the start fails once the connecting
   * has waited three times {@code source.answer_timeout} beyond the install's lock wait (MariaDB
   * Connector/J's {@code connectTimeout}, pgjdbc's {@code loginTimeout}, set where the URL does
   * not), saying the database did not answer and the setting. Before, the MariaDB driver gave up
   * after its own 30 s, and pgjdbc never without SSL (watched: no start within 90 s; with SSL tried
   * first, its {@code sslResponseTimeout} gives up after 5 s).
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aStartWhoseDatabaseAnswersNothingFailsSayingSo(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "unanswered_connect", DDL, "items", "others");
        CuttableProxy proxy = ServerSetups.databaseProxy(p)) {
      proxy.pause(true); // connections are accepted, nothing the database says comes back
      String url =
          ServerSetups.urlThrough(p, proxy) + (kind == Kind.POSTGRESQL ? "&sslmode=disable" : "");
      FailedStart failed = failedStart(p, url, kind + ", nothing answered");
      assertThat(failed.error())
          .hasMessageContaining("the database did not answer the connection")
          .hasMessageContaining("source.answer_timeout");
      assertThat(failed.millis()).isLessThan(30_000); // the MariaDB driver's own bound
    }
  }

  /** How a start failed, and after how long. */
  private record FailedStart(Throwable error, long millis) {}

  /** Starts the pipeline's server at {@code url}, which must fail within 90 s. */
  private static FailedStart failedStart(Pipeline p, String url, String what) {
    long began = System.nanoTime();
    Throwable failed =
        catchThrowable(
            () ->
                assertTimeoutPreemptively(
                    Duration.ofSeconds(90), () -> ServerSetups.atUrl(p, url, Duration.ZERO)));
    long millis = (System.nanoTime() - began) / 1_000_000;
    System.out.printf(
        "UnansweredStartTest %s: start failed after %d ms: %s%n", what, millis, failed);
    assertThat(failed).as("the start failed").isNotNull();
    return new FailedStart(failed, millis);
  }
}
