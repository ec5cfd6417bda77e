package io.tablecast.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.tail.CommittedBatch;
import io.tablecast.server.tail.RowEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A batch read back from its stream bytes is the batch capture published, byte for byte. */
class BatchCodecTest {

  private static final TableSchema ACCOUNTS =
      new TableSchema(
          new TableId("app", "accounts"),
          List.of(
              new ColumnInfo("id", "int4", ColumnKind.INTEGER),
              new ColumnInfo("owner", "text", ColumnKind.STRING)),
          List.of("id"));

  private static final TableSchema ACCOUNTS_ALTERED =
      new TableSchema(
          new TableId("app", "accounts"),
          List.of(
              new ColumnInfo("id", "int4", ColumnKind.INTEGER),
              new ColumnInfo("owner", "text", ColumnKind.STRING),
              new ColumnInfo("balance", "numeric", ColumnKind.DECIMAL)),
          List.of("id"));

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void everyPartOfABatchSurvivesTheRoundTrip() {
    CommittedBatch batch =
        new CommittedBatch(
            List.of(
                new RowEvent.Upsert("app.accounts", ACCOUNTS, b("k1"), b("row1"), null),
                new RowEvent.Upsert("app.accounts", ACCOUNTS_ALTERED, b("k2"), b("row2"), b("b2")),
                new RowEvent.Delete("app.accounts", ACCOUNTS, b("k3"), null),
                new RowEvent.Truncate("app.accounts")),
            1_700_000_000_123L,
            List.of(
                new CommittedBatch.TableRead(
                    ACCOUNTS,
                    List.of(b("r1"), new byte[0]),
                    CommittedBatch.Purpose.RECONCILE,
                    new CommittedBatch.Chunk(true, false)),
                new CommittedBatch.TableRead(
                    ACCOUNTS_ALTERED, List.of(), CommittedBatch.Purpose.RESYNC)),
            List.of(
                new CommittedBatch.Staleness("app.accounts", "row", "cannot read key 7 ✓"),
                new CommittedBatch.Staleness("app.accounts", "row", null)));

    CommittedBatch back = BatchCodec.decode(BatchCodec.encode(batch));

    assertThat(back.captureMillis()).isEqualTo(1_700_000_000_123L);
    assertThat(back.events()).hasSize(4);
    RowEvent.Upsert u1 = (RowEvent.Upsert) back.events().get(0);
    assertThat(u1.schema()).isEqualTo(ACCOUNTS);
    assertThat(u1.table()).isEqualTo("app.accounts");
    assertThat(u1.key()).isEqualTo(b("k1"));
    assertThat(u1.row()).isEqualTo(b("row1"));
    assertThat(u1.before()).isNull();
    RowEvent.Upsert u2 = (RowEvent.Upsert) back.events().get(1);
    assertThat(u2.schema()).as("each table version kept").isEqualTo(ACCOUNTS_ALTERED);
    assertThat(u2.before()).isEqualTo(b("b2"));
    RowEvent.Delete d = (RowEvent.Delete) back.events().get(2);
    assertThat(d.key()).isEqualTo(b("k3"));
    assertThat(d.before()).isNull();
    assertThat(back.events().get(3)).isEqualTo(new RowEvent.Truncate("app.accounts"));
    assertThat(back.tableReads()).hasSize(2);
    CommittedBatch.TableRead chunk = back.tableReads().get(0);
    assertThat(chunk.purpose()).isEqualTo(CommittedBatch.Purpose.RECONCILE);
    assertThat(chunk.chunk()).isEqualTo(new CommittedBatch.Chunk(true, false));
    assertThat(chunk.rows()).containsExactly(b("r1"), new byte[0]);
    assertThat(back.tableReads().get(1).chunk()).isNull();
    assertThat(back.tableReads().get(1).schema()).isEqualTo(ACCOUNTS_ALTERED);
    assertThat(back.staleness()).isEqualTo(batch.staleness());
  }

  @Test
  void bytesOfAnotherLayoutVersionAreRefusedNamingIt() {
    byte[] bytes = BatchCodec.encode(new CommittedBatch(List.of(), 0));
    bytes[0] = 9;
    assertThatThrownBy(() -> BatchCodec.decode(bytes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("layout version 9");
  }
}
