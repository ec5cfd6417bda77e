package io.tablecast.server.image;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.hub.FakeChangeSource;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Rows that share a key are said: the gauge at every whole read, an ERROR naming the table and the
 * query that finds them when the count changes, not again at every pass that finds the same.
 */
class DuplicateKeysTest {

  @Test
  void anErrorWhenTheCountChangesAndTheGaugeAtEveryRead() {
    List<String> gauge = new ArrayList<>();
    DuplicateKeys keys =
        new DuplicateKeys(
            new ServerMetrics() {
              @Override
              public void duplicateKeyRows(String table, long rows) {
                gauge.add(table + "=" + rows);
              }
            });
    TableSchema items = FakeChangeSource.table("dup_items");
    long errors = RecentEvents.global().errors();

    keys.found(items, 0, "snapshot");
    keys.found(items, 2, "reconciliation");
    keys.found(items, 2, "reconciliation");
    keys.found(items, 0, "re-read");

    assertThat(gauge)
        .containsExactly(
            "public.dup_items=0", "public.dup_items=2", "public.dup_items=2", "public.dup_items=0");
    assertThat(RecentEvents.global().errors() - errors).as("one ERROR for the change").isEqualTo(1);
    assertThat(
            RecentEvents.global().newestFirst().stream()
                .filter(e -> e.message().contains("public.dup_items"))
                .map(RecentEvents.Event::message))
        .singleElement()
        .asString()
        .contains(
            "2 rows share its primary key (id)",
            "found by the reconciliation",
            "SELECT id, count(*) FROM public.dup_items GROUP BY id HAVING count(*) > 1");
  }

  @Test
  void theQueryQuotesNamesThatNeedIt() {
    TableSchema t =
        new TableSchema(
            new TableId("Sales", "order items"),
            List.of(
                new ColumnInfo("OrderId", "int8", ColumnKind.INTEGER),
                new ColumnInfo("line", "int4", ColumnKind.INTEGER)),
            List.of("OrderId", "line"));
    assertThat(DuplicateKeys.query(t))
        .isEqualTo(
            "SELECT \"OrderId\", line, count(*) FROM \"Sales\".\"order items\""
                + " GROUP BY \"OrderId\", line HAVING count(*) > 1");
  }
}
