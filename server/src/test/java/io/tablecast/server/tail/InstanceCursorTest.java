package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.Rows;
import io.tablecast.server.testing.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A cursor carries the database instance its position was read from, so that a capture resuming
 * after a failover of the database takes a snapshot instead of reading on from a position of
 * another instance (whose ids the new one may have handed to other transactions).
 */
class InstanceCursorTest {

  @Test
  void aPositionAndItsInstanceTravelAsOneTextAndACursorWithoutOneStillReads() {
    DatabaseInstance db =
        new DatabaseInstance(
            "server_id 7 on db#1:3306, \u00e9",
            Instant.parse("2026-12-02T08:00:00.123456Z"),
            Duration.ofSeconds(1));
    String text = InstanceCursor.join("745:750:746,748", db);
    assertThat(InstanceCursor.parse(text)).isEqualTo(new InstanceCursor("745:750:746,748", db));
    assertThat(InstanceCursor.parse("745:750:")).isEqualTo(new InstanceCursor("745:750:", null));
    assertThat(InstanceCursor.join(null, db)).isNull();
    assertThatThrownBy(() -> InstanceCursor.parse("745:750:#db=x,1"))
        .isInstanceOf(IllegalArgumentException.class);

    // PostgreSQL's last crash recovery travels too; a cursor written before it was known still
    // matches the instance it was read from
    DatabaseInstance pg =
        new DatabaseInstance(
            "PostgreSQL cluster 7",
            Instant.parse("2026-12-02T08:00:00.123456Z"),
            Duration.ZERO,
            Instant.parse("2026-12-02T09:30:00.5Z"));
    String withRecovery = InstanceCursor.join("745:750:", pg);
    assertThat(InstanceCursor.parse(withRecovery)).isEqualTo(new InstanceCursor("745:750:", pg));
    DatabaseInstance older =
        InstanceCursor.parse(withRecovery.substring(0, withRecovery.lastIndexOf(','))).instance();
    assertThat(older.recovered()).isNull();
    assertThat(older.sameAs(pg)).isTrue();
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aCursorReadFromAnotherInstanceIsNotResumedAfter(TestDatabases.Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("instance_cursor");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL)");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null);
    String cursor;
    try (ChangeSource first = ChangeSources.open(config)) {
      first.snapshot((t, row) -> {});
      cursor = first.cursor();
    }
    InstanceCursor read = InstanceCursor.parse(cursor);
    assertThat(read.instance()).as("the instance travels with the position").isNotNull();
    String forged =
        InstanceCursor.join(
            read.position(),
            new DatabaseInstance(
                read.instance().name(),
                read.instance().started().minusSeconds(3600), // restarted since
                read.instance().slack()));

    try (ChangeSource other = ChangeSources.open(config)) {
      assertThatThrownBy(() -> other.resumeAfter(forged))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("the cursor was read from")
          .hasMessageContaining("a failover, a restore or a restart");
    }
    try (ChangeSource same = ChangeSources.open(config)) {
      same.resumeAfter(cursor);
      db.execute("INSERT INTO items VALUES (1, 1)");
      List<Integer> ids = new ArrayList<>();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                CommittedBatch b = same.poll(Duration.ofMillis(50));
                b.events().forEach(e -> ids.add(Rows.after(e).get("id").asInt()));
                return !ids.isEmpty();
              });
      assertThat(ids).as("resumed after the cursor on its own instance").containsExactly(1);
    }
  }
}
