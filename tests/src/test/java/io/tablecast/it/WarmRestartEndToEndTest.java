package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.ConnectionListener;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Warm restart against a real server and database: a client closed with its mirrors saved, while
 * the table keeps changing, starts again from the files (ready at once with the saved rows),
 * resumes from the saved position without a snapshot, and converges with the table; after the
 * server restarted (a new epoch, nothing to resume from) it starts from the files again and a
 * snapshot compared with the saved rows brings exactly the differences; a column added while away
 * reaches every restored row.
 */
class WarmRestartEndToEndTest {
  private static final Duration CONVERGE = Duration.ofSeconds(60);
  private static final int ROWS = 2_000;

  /** A typed row of the table. */
  record Account(long id, String name, BigDecimal balance) {}

  @TempDir Path dir;

  private static List<String> ddl() {
    List<String> ddl = new ArrayList<>();
    ddl.add(
        "CREATE TABLE accounts (id int PRIMARY KEY, name varchar(40) NOT NULL,"
            + " balance decimal(12,2) NOT NULL, note varchar(100) NULL)");
    StringBuilder insert = new StringBuilder("INSERT INTO accounts VALUES ");
    for (int id = 1; id <= ROWS; id++) {
      insert.append(id == 1 ? "" : ",").append("(").append(id).append(", 'n").append(id);
      insert
          .append("', ")
          .append(id)
          .append(".25, ")
          .append(id % 3 == 0 ? "NULL" : "'x'")
          .append(")");
    }
    ddl.add(insert.toString());
    return ddl;
  }

  /** What the connection listener heard: resumes and resnapshots. */
  private static final class Heard implements ConnectionListener {
    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void resumed(List<String> tables, long position) {
      events.add("resumed " + tables);
    }

    @Override
    public void resnapshotted(String table, int inserted, int updated, int deleted) {
      events.add("resnapshotted " + table + " +" + inserted + " ~" + updated + " -" + deleted);
    }
  }

  private TablecastClient client(Pipeline p, Heard heard) {
    return TablecastClient.builder()
        .servers(p.address())
        .clientName("warm")
        .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .warmRestart(dir)
        .connectionListener(heard)
        .build();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRestartedClientStartsFromItsFilesAndResumesOrComparesWithASnapshot(Kind kind)
      throws Exception {
    try (Pipeline p = Pipeline.start(kind, "warm", ddl(), "accounts");
        MirrorsVersusTables tables = new MirrorsVersusTables(p.db)) {
      String table = p.db.table("accounts");

      Heard first = new Heard();
      TablecastClient one = client(p, first);
      TableMirror<Map<String, Object>> rows = one.mirror(table);
      TableMirror<Account> typed = one.mirror(table, Account.class);
      assertThat(rows.awaitReady(CONVERGE)).isTrue();
      assertThat(typed.awaitReady(CONVERGE)).isTrue();
      p.sql("UPDATE " + table + " SET balance = balance + 1 WHERE id <= 10");
      tables.awaitEqual("before the first close", Map.of("accounts", rows), CONVERGE);
      one.close(); // saves both mirrors

      // the table changes while no client runs
      p.sql(
          "UPDATE " + table + " SET name = 'while away' WHERE id = 5",
          "DELETE FROM " + table + " WHERE id = 6",
          "INSERT INTO " + table + " VALUES (" + (ROWS + 1) + ", 'new', 1.50, NULL)");

      Heard second = new Heard();
      TablecastClient two = client(p, second);
      TableMirror<Map<String, Object>> restored = two.mirror(table);
      TableMirror<Account> restoredTyped = two.mirror(table, Account.class);
      assertThat(restored.isReady()).as("ready from its file when created").isTrue();
      assertThat(restoredTyped.isReady()).isTrue();
      assertThat(restoredTyped.get(7)).isEqualTo(new Account(7, "n7", new BigDecimal("8.25")));
      assertThat(restored.size()).isGreaterThanOrEqualTo(ROWS - 1);
      tables.awaitEqual("resumed from the files", Map.of("accounts", restored), CONVERGE);
      await().atMost(CONVERGE).until(() -> restoredTyped.get(ROWS + 1) != null);
      assertThat(restoredTyped.get(5).name()).isEqualTo("while away");
      assertThat(restoredTyped.get(6)).isNull();
      assertThat(second.events)
          .as("resumed, no snapshot")
          .containsExactly("resumed [" + table + "]");
      assertThat(restored.staleReason()).isNull();
      two.close();

      // a new server run: an epoch the files do not know, so a snapshot compared with them
      p.stopServer();
      p.sql(
          "UPDATE " + table + " SET note = 'changed' WHERE id IN (1, 2, 3)",
          "DELETE FROM " + table + " WHERE id IN (8, 9)");
      p.startServer();
      Heard third = new Heard();
      TablecastClient three = client(p, third);
      TableMirror<Map<String, Object>> again = three.mirror(table);
      assertThat(again.isReady()).isTrue();
      tables.awaitEqual("compared with a snapshot", Map.of("accounts", again), CONVERGE);
      await().atMost(CONVERGE).until(() -> !third.events.isEmpty());
      assertThat(third.events).containsExactly("resnapshotted " + table + " +0 ~3 -2");
      three.close();

      // a column added while away: resumed or sent a snapshot (the server may have seen the ALTER
      // TABLE first), the restored rows end in the new layout, equal to the table
      p.sql(
          "ALTER TABLE " + table + " ADD COLUMN tier int NULL",
          "UPDATE " + table + " SET tier = 2 WHERE id IN (11, 12)");
      TablecastClient four = client(p, new Heard());
      TableMirror<Map<String, Object>> altered = four.mirror(table);
      assertThat(altered.isReady()).isTrue();
      tables.awaitEqual("a column added while away", Map.of("accounts", altered), CONVERGE);
      assertThat(altered.rows()).allSatisfy(r -> assertThat(r).containsKey("tier"));
      four.close();
    }
  }
}
