package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.cli.TablecastCommand;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/** The {@code tablecast} launcher's commands against real databases and a real server. */
class CommandLineTest {

  static final List<String> ITEMS =
      List.of(
          "CREATE TABLE items (id int PRIMARY KEY, name varchar(40), price decimal(8,2))",
          "INSERT INTO items VALUES (3, 'c', 3.00), (1, 'a', 1.10), (2, 'b', NULL)");

  @TempDir Path dir;

  private Path writeConfig(Pipeline p) throws IOException {
    Path cfg = dir.resolve("tablecast.yaml");
    Files.writeString(
        cfg,
        String.join(
            "\n",
            "server_name: cli-test",
            "listen: { host: 127.0.0.1, port: 0 }",
            "source:",
            "  jdbc_url: '" + p.db.jdbcUrl() + "'",
            "  install_triggers: true",
            "cached_tables: [" + p.db.table("items") + "]",
            ""));
    return cfg;
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void printSqlInstallAndUninstallAreIdempotent(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.create(kind, "cli_sql", ITEMS, "items")) {
      Path cfg = writeConfig(p);
      Cli print = Cli.run("print-sql", "--config", cfg.toString());
      assertThat(print.exitCode()).as(print.err()).isZero();
      assertThat(print.out()).contains("tablecast_outbox").containsIgnoringCase("trigger");
      assertThat(triggerCount(p)).isZero();

      for (int i = 0; i < 2; i++) {
        Cli install = Cli.run("install", "--config", cfg.toString());
        assertThat(install.exitCode()).as(install.err()).isZero();
        assertThat(triggerCount(p)).isEqualTo(3);
      }
      for (int i = 0; i < 2; i++) {
        Cli uninstall = Cli.run("uninstall", "--config", cfg.toString());
        assertThat(uninstall.exitCode()).as(uninstall.err()).isZero();
        assertThat(triggerCount(p)).isZero();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void dumpPrintsRowsSortedByPrimaryKeyAsJsonLines(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "cli_dump", ITEMS, "items")) {
      Cli dump = Cli.run("dump", p.db.table("items"), "--server", p.address());
      assertThat(dump.exitCode()).as(dump.err()).isZero();
      assertThat(dump.out().lines())
          .containsExactly(
              "{\"id\":1,\"name\":\"a\",\"price\":\"1.10\"}",
              "{\"id\":2,\"name\":\"b\",\"price\":null}",
              "{\"id\":3,\"name\":\"c\",\"price\":\"3.00\"}");
    }
  }

  /**
   * A row committed right before {@code dump} began is in its rows, whenever the server's tail
   * polls next (every 2 s here): dump asks the server to read its outbox first (sync). Before, it
   * printed the server's image as the snapshot found it, without the row until the next poll.
   */
  @Test
  void dumpHoldsEveryChangeCommittedBeforeItBegan() {
    try (Pipeline p = Pipeline.create(Kind.POSTGRESQL, "cli_dump_sync", ITEMS, "items")) {
      p.startServer(
          b ->
              b.set("source.min_poll_interval", "2s")
                  .set("source.max_poll_interval", "2s")
                  .set("source.poll_idle_after", "0s"));
      for (int id = 10; id < 13; id++) {
        p.sql("INSERT INTO items VALUES (" + id + ", 'committed before the dump', NULL)");
        Cli dump = Cli.run("dump", p.db.table("items"), "--server", p.address());
        assertThat(dump.exitCode()).as(dump.err()).isZero();
        assertThat(dump.out()).contains("{\"id\":" + id + ",");
      }
    }
  }

  /**
   * {@code --filter} and {@code --columns} ask the server for a shape; a filter it cannot use is
   * refused naming the position (one database: shapes are the server's, tested there).
   */
  @Test
  void dumpTakesTheRowsAndColumnsAShapeChooses() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "cli_dump_shape", ITEMS, "items")) {
      Cli dump =
          Cli.run(
              "dump",
              p.db.table("items"),
              "--server",
              p.address(),
              "--filter",
              "price > 1 AND name <> 'a'",
              "--columns",
              "name");
      assertThat(dump.exitCode()).as(dump.err()).isZero();
      assertThat(dump.out().lines()).containsExactly("{\"id\":3,\"name\":\"c\"}");
      Cli refused =
          Cli.run("dump", p.db.table("items"), "--server", p.address(), "--filter", "prize > 1");
      assertThat(refused.exitCode()).isEqualTo(1);
      assertThat(refused.err()).contains("filter, position 1: no column 'prize'");
    }
  }

  /** One write for the whole table, not one per row (one database: the output does not care). */
  @Test
  void dumpWritesItsRowsAtOnceNotLineByLine() {
    try (Pipeline p = Pipeline.start(Kind.POSTGRESQL, "cli_dump_flush", ITEMS, "items")) {
      FlushedChunks out = new FlushedChunks();
      CommandLine cl = TablecastCommand.commandLine();
      cl.setOut(new PrintWriter(out, true)); // flushes on println, as picocli's default writer
      cl.setErr(new PrintWriter(new StringWriter(), true));
      assertThat(cl.execute("dump", p.db.table("items"), "--server", p.address())).isZero();
      assertThat(out.chunks).singleElement().satisfies(c -> assertThat(c.lines()).hasSize(3));
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void dumpPrintsCsvAndAnAlignedTable(Kind kind) {
    List<String> ddl =
        List.of(
            "CREATE TABLE notes (id int PRIMARY KEY, body varchar(40), price decimal(8,2))",
            "INSERT INTO notes VALUES (1, 'a, \"b\"', 1.10), (2, '', NULL), (3, NULL, 10.00)");
    try (Pipeline p = Pipeline.start(kind, "cli_formats", ddl, "notes")) {
      Cli csv = Cli.run("dump", p.db.table("notes"), "--server", p.address(), "--format", "csv");
      assertThat(csv.exitCode()).as(csv.err()).isZero();
      assertThat(csv.out().lines())
          .containsExactly("id,body,price", "1,\"a, \"\"b\"\"\",1.10", "2,\"\",", "3,,10.00");
      Cli table =
          Cli.run("dump", p.db.table("notes"), "--server", p.address(), "--format", "TABLE");
      assertThat(table.exitCode()).as(table.err()).isZero();
      assertThat(table.out().lines())
          .containsExactly(
              "id | body   | price",
              "---+--------+------",
              " 1 | a, \"b\" |  1.10",
              " 2 |        |",
              " 3 |        | 10.00",
              "(3 rows)");
      Cli bad = Cli.run("dump", p.db.table("notes"), "--server", p.address(), "--format", "xml");
      assertThat(bad.exitCode()).isEqualTo(2);
      assertThat(bad.err()).contains("--format", "xml", "JSON, CSV, TABLE");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void dumpSortsDecimalKeysByValue(Kind kind) {
    List<String> ddl =
        List.of(
            "CREATE TABLE prices (amount decimal(6,2) PRIMARY KEY, label varchar(10))",
            "INSERT INTO prices VALUES (10.00, 'ten'), (9.00, 'nine'), (-1, 'minus one'), (0.50, 'half')");
    try (Pipeline p = Pipeline.start(kind, "cli_deckeys", ddl, "prices")) {
      Cli dump = Cli.run("dump", p.db.table("prices"), "--server", p.address());
      assertThat(dump.exitCode()).as(dump.err()).isZero();
      // as text the order would be -1.00, 0.50, 10.00, 9.00
      assertThat(dump.out().lines())
          .containsExactly(
              "{\"amount\":\"-1.00\",\"label\":\"minus one\"}",
              "{\"amount\":\"0.50\",\"label\":\"half\"}",
              "{\"amount\":\"9.00\",\"label\":\"nine\"}",
              "{\"amount\":\"10.00\",\"label\":\"ten\"}");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void dumpWaitsUntilIdleAndSeesLaterChanges(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "cli_idle", ITEMS, "items")) {
      double snapshotsBefore = p.server().metrics().snapshotsServed();
      CompletableFuture<Cli> dump =
          CompletableFuture.supplyAsync(
              () ->
                  Cli.run(
                      "dump", p.db.table("items"), "--server", p.address(), "--wait-idle", "3s"));
      // the writes start once the dump's snapshot is served, so each is a live change to its mirror
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> p.server().metrics().snapshotsServed() > snapshotsBefore);
      ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
      try {
        for (int i = 0; i < 6; i++) { // 300 ms apart: far below the 3 s the dump waits for quiet
          int id = 10 + i;
          writer.schedule(
              () -> p.sql("INSERT INTO items VALUES (" + id + ", 'x', 0.50)"),
              300L * (i + 1),
              TimeUnit.MILLISECONDS);
        }
        Cli result = dump.get(60, TimeUnit.SECONDS);
        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out().lines())
            .hasSize(9)
            .last()
            .isEqualTo("{\"id\":15,\"name\":\"x\",\"price\":\"0.50\"}");
      } finally {
        writer.shutdownNow();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void watchPrintsOneJsonLinePerChange(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "cli_watch", ITEMS, "items")) {
      StringWriter out = new StringWriter();
      Thread watch = startWatch(p, out, () -> out.toString().contains("\"op\":\"UPDATE\""));
      p.sql("DELETE FROM items WHERE id = 3");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> out.toString().contains("\"op\":\"DELETE\""));
      String deleteLine =
          out.toString().lines().filter(l -> l.contains("DELETE")).findFirst().orElseThrow();
      assertThat(deleteLine)
          .isEqualTo(
              "{\"table\":\""
                  + p.db.table("items")
                  + "\",\"op\":\"DELETE\",\"key\":3,"
                  + "\"before\":{\"id\":3,\"name\":\"c\",\"price\":\"3.00\"},\"after\":null}");
      watch.interrupt();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void watchWritesATransactionsLinesAtOnceNotLineByLine(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "cli_watch_batch", ITEMS, "items")) {
      FlushedChunks out = new FlushedChunks();
      Thread watch = startWatch(p, out, () -> !out.chunks.isEmpty());
      p.sql("UPDATE items SET price = 9.99"); // one transaction, three rows
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> out.chunks.stream().anyMatch(c -> c.contains("9.99")));
      // a pipe gets the transaction in one write, not one per row
      assertThat(out.chunks)
          .filteredOn(c -> c.contains("9.99"))
          .singleElement()
          .satisfies(c -> assertThat(c.lines().filter(l -> l.contains("9.99"))).hasSize(3));
      watch.interrupt();
    }
  }

  /**
   * Runs {@code tablecast watch} on items, printing to {@code out} through a writer that flushes on
   * each println (as picocli's default one does); the watcher prints nothing for the snapshot, so
   * this keeps updating a row until {@code printed} says its first line is out.
   */
  private static Thread startWatch(Pipeline p, Writer out, Callable<Boolean> printed) {
    CommandLine cl = TablecastCommand.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(new StringWriter(), true));
    Thread watch =
        new Thread(() -> cl.execute("watch", p.db.table("items"), "--server", p.address()));
    watch.setDaemon(true);
    watch.start();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> {
              p.sql("UPDATE items SET name = CONCAT(name, '+') WHERE id = 1");
              return printed.call();
            });
    return watch;
  }

  /** Keeps what was written between two flushes as one chunk. */
  private static final class FlushedChunks extends Writer {
    final List<String> chunks = new CopyOnWriteArrayList<>();
    private final StringBuilder pending = new StringBuilder();

    @Override
    public synchronized void write(char[] text, int offset, int length) {
      pending.append(text, offset, length);
    }

    @Override
    public synchronized void flush() {
      if (pending.length() > 0) {
        chunks.add(pending.toString());
        pending.setLength(0);
      }
    }

    @Override
    public void close() {
      flush();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void dumpOfAnUnknownTableFailsNamingIt(Kind kind) {
    try (Pipeline p = Pipeline.start(kind, "cli_unknown", ITEMS, "items")) {
      Cli dump = Cli.run("dump", p.db.table("nope"), "--server", p.address(), "--timeout", "10s");
      assertThat(dump.exitCode()).isNotZero();
      assertThat(dump.err()).contains("nope");
    }
  }

  private static int triggerCount(Pipeline p) throws SQLException {
    String sql =
        p.db.kind() == TestDatabases.Kind.MYSQL
            ? "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE EVENT_OBJECT_SCHEMA = '"
                + p.db.schema()
                + "' AND EVENT_OBJECT_TABLE = 'items'"
            : "SELECT COUNT(*) FROM information_schema.triggers WHERE event_object_schema = '"
                + p.db.schema()
                + "' AND event_object_table = 'items'";
    try (Connection c = p.db.connect();
        ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
