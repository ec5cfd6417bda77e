package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tablecast.client.MirrorShape;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.auth.AccessPolicy;
import io.tablecast.server.auth.RowFilter;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A principal's row filter whose column the table no longer has (dropped while served): the
 * principal's mirror says it may differ from the table, naming the column, instead of keeping the
 * rows it held with no change after; a client connecting then is refused the table, naming the
 * column, instead of getting it empty. PostgreSQL: it sees a dropped column within a second.
 */
class RowFilterColumnTest {
  static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aRowFilterWhoseColumnIsDroppedRefusesTheTableNamingTheColumn() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.POSTGRESQL, "rowfilter_col", ShapedMirrorEndToEndTest.ddl(), "products")) {
      p.startServerWithPrincipal(
          "eu-app", "pw", new AccessPolicy(null, RowFilter.parse("region = 'eu'"), null));
      String table = p.db.table("products");
      String refusal =
          "the row_filter of principal 'eu-app' reads column 'region', which table '"
              + table
              + "' does not have";
      try (TablecastClient client = client(p)) {
        TableMirror<Map<String, Object>> m = client.mirror(table);
        assertThat(m.awaitReady(WAIT)).isTrue();
        assertThat(m.size()).isEqualTo(75); // ids 4, 8, ... 300: region 'eu'

        p.sql("ALTER TABLE products DROP COLUMN region");
        await().atMost(WAIT).until(() -> m.staleReason() != null);
        assertThat(m.staleReason()).contains(refusal);
      }
      try (TablecastClient late = client(p)) {
        TableMirror<Map<String, Object>> m = late.mirror(table);
        assertThatThrownBy(() -> m.awaitReady(WAIT)).hasMessageContaining(refusal);
      }
    }
  }

  /**
   * A shape's subquery over a table without the row filter's column: refused at subscribe, naming
   * both, instead of a mirror left empty (the filter let none of that table's rows give a value).
   */
  @Test
  void aSubqueryOverATableWithoutTheRowFiltersColumnIsRefusedNamingIt() throws Exception {
    try (Pipeline p =
        Pipeline.create(
            Kind.POSTGRESQL,
            "rowfilter_subq",
            ShapedMirrorEndToEndTest.ordersDdl(),
            "customers",
            "orders")) {
      p.startServerWithPrincipal(
          "eu-app", "pw", new AccessPolicy(null, RowFilter.parse("customer_id = 5"), null));
      String customers = p.db.table("customers");
      String orders = p.db.table("orders");
      try (TablecastClient client = client(p)) {
        TableMirror<Map<String, Object>> plain = client.mirror(orders);
        assertThat(plain.awaitReady(WAIT)).isTrue();
        assertThat(plain.size()).isPositive(); // orders of customer 5
      }
      try (TablecastClient client = client(p)) {
        TableMirror<Map<String, Object>> m =
            client.mirror(
                orders, MirrorShape.rows("customer_id IN (SELECT id FROM " + customers + ")"));
        assertThatThrownBy(() -> m.awaitReady(WAIT))
            .hasMessageContaining("the shape asked of table '" + orders + "' cannot be used")
            .hasMessageContaining(
                "the subquery reads table '"
                    + customers
                    + "', which lacks column 'customer_id' that this principal's row_filter"
                    + " reads");
      }
    }
  }

  private static TablecastClient client(Pipeline p) {
    return TablecastClient.builder()
        .servers(p.address())
        .clientName("row-filter")
        .credentials("eu-app", "pw")
        .build();
  }
}
