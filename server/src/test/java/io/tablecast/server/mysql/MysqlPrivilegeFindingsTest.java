package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.CaptureFinding;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code tablecast check} says of the {@code PROCESS} privilege: without it, both what is
 * slower (gaps settled by lock probes) and what is found late or never (a {@code TRUNCATE}, left to
 * reconciliation).
 */
class MysqlPrivilegeFindingsTest {

  @Test
  void withoutProcessTheCheckNamesTheGapsAndTheTruncates() throws Exception {
    List<CaptureFinding> findings =
        new MysqlDialect(MysqlFlavor.MARIADB)
            .privilegeFindings(
                sql -> "Access denied; you need (at least one of) the PROCESS privilege(s)");
    assertThat(findings)
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.severity()).isEqualTo(CaptureFinding.Severity.WARN);
              assertThat(f.toString())
                  .contains("grant PROCESS")
                  .contains("lock probes")
                  .contains("a TRUNCATE of a cached table")
                  .contains("never with source.reconcile_interval: 0s");
            });
  }

  @Test
  void withProcessItIsFine() throws Exception {
    assertThat(new MysqlDialect(MysqlFlavor.MARIADB).privilegeFindings(sql -> null))
        .singleElement()
        .satisfies(f -> assertThat(f.severity()).isEqualTo(CaptureFinding.Severity.OK));
  }
}
