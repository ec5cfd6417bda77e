package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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

  private static TablecastClient client(Pipeline p) {
    return TablecastClient.builder()
        .servers(p.address())
        .clientName("row-filter")
        .credentials("eu-app", "pw")
        .build();
  }
}
