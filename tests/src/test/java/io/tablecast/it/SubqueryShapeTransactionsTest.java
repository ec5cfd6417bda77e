package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.client.MirrorShape;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A shape whose subquery reads another table ({@code customer_id IN (SELECT id FROM customers WHERE
 * region = 'eu')}), under transactions that change a row of the shaped table twice while they also
 * change which customers are in the region. The server tested each change of the batch on its own,
 * the middle image of a row against the customers as they were before the whole batch: on
 * PostgreSQL (whose capture records every image) an order given to a customer who had just joined
 * the region, then given back to one outside it, was sent in and never out, and the mirror kept it
 * for good, looking current; {@code ShapedMirrorsUnderLoadTest} found it in a CI run. Now a shaped
 * table's changes of one batch are folded per key first.
 */
class SubqueryShapeTransactionsTest {

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aRowChangedTwiceInATransactionThatMovesTheSubquerysValuesEndsAsTheTableHasIt(Kind kind)
      throws Exception {
    try (Pipeline p =
        Pipeline.start(
            kind, "subq_twice", ShapedMirrorEndToEndTest.ordersDdl(), "customers", "orders")) {
      TablecastClient client = p.client("subq-twice");
      String filter =
          "customer_id IN (SELECT id FROM " + p.db.table("customers") + " WHERE region = 'eu')";
      TableMirror<Map<String, Object>> m =
          client.mirror(p.db.table("orders"), MirrorShape.rows(filter));
      assertThat(m.awaitReady(Duration.ofSeconds(30))).isTrue();
      String query = "SELECT id, total FROM " + p.db.table("orders") + " WHERE " + filter;
      // customers: region eu when id % 4 == 0, us when 1, apac when 2; order n: customer 1 + n % 40

      // customer 6 joins eu; order 1 (customer 2, apac: out) is given to 6, then back to 2
      p.transaction(
          "UPDATE customers SET region = 'eu' WHERE id = 6",
          "UPDATE orders SET customer_id = 6 WHERE id = 1",
          "UPDATE orders SET customer_id = 2 WHERE id = 1");
      client.sync(Duration.ofSeconds(30));
      assertThat(m.get(1)).as("order 1, out before and after").isNull();
      assertThat(OrdersWorkload.contents(m)).isEqualTo(OrdersWorkload.selected(p, query));

      // order 7 (customer 8, eu: in) is given to 12 (eu), then back to 8; customer 8 leaves eu
      p.transaction(
          "UPDATE orders SET customer_id = 12 WHERE id = 7",
          "UPDATE orders SET customer_id = 8 WHERE id = 7",
          "UPDATE customers SET region = 'us' WHERE id = 8");
      client.sync(Duration.ofSeconds(30));
      assertThat(m.get(7)).as("order 7, its customer out of eu").isNull();
      assertThat(OrdersWorkload.contents(m)).isEqualTo(OrdersWorkload.selected(p, query));

      // order 3 (customer 4, eu: in) gets a new key, then is given to 6 (eu since above)
      p.transaction(
          "UPDATE orders SET id = 1003 WHERE id = 3",
          "UPDATE customers SET region = 'us' WHERE id = 6",
          "UPDATE orders SET customer_id = 6 WHERE id = 1003");
      client.sync(Duration.ofSeconds(30));
      assertThat(m.get(3)).isNull();
      assertThat(m.get(1003)).as("order 1003, its customer out of eu").isNull();
      assertThat(OrdersWorkload.contents(m)).isEqualTo(OrdersWorkload.selected(p, query));
    }
  }
}
