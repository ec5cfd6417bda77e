package io.tablecast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TriggerOverheadFigureTest {
  private static final String OUTPUT =
      """
      sysbench oltp_write_only, 2 threads, 30s per run, 5 rounds alternating order, 4 tables x 10000 rows; 2 cores

      | database | TPS without (runs) | TPS with (runs) | median without | median with | with / without | overhead |
      |---|---|---|---|---|---|---|
      | mariadb | 1704.10 2102.52 | 1161.51 1211.58 | 1903.31 | 1186.55 | 0.623 | 37.7 % |
      | postgresql | 533.05 1678.82 | 353.15 338.76 | 1105.93 | 345.95 | 0.313 | 68.7 % |
      """;

  @Test
  void takesTheRowOfItsDatabaseFromTheScriptsTable() {
    TriggerOverheadFigure.Result r =
        TriggerOverheadFigure.parse(Db.POSTGRESQL, "postgresql", OUTPUT);

    assertThat(r.cells())
        .isEqualTo(
            List.of(
                "postgresql",
                "533.05 1678.82",
                "353.15 338.76",
                "1105.93",
                "345.95",
                "0.313",
                "68.7 %"));
    assertThat(r.setup()).startsWith("sysbench oltp_write_only, 2 threads");
  }

  @Test
  void takesTheCpuColumnsWhenTheScriptPrintsThem() {
    String output =
        """
        | database | TPS without (runs) | TPS with (runs) | median without | median with | with / without | overhead | CPU µs/tx without | CPU µs/tx with | CPU ratio |
        |---|---|---|---|---|---|---|---|---|---|
        | mariadb | 900 | 700 | 900 | 700 | 0.778 | 22.2 % | 1200 | 1500 | 0.800 |
        """;

    TriggerOverheadFigure.Result r = TriggerOverheadFigure.parse(Db.MARIADB, "mariadb", output);

    assertThat(r.cells()).hasSize(10).endsWith("1200", "1500", "0.800");
  }

  @Test
  void failsNamingTheDatabaseWhenTheScriptPrintedNoRowForIt() {
    assertThatThrownBy(() -> TriggerOverheadFigure.parse(Db.MARIADB, "mariadb", "sysbench died\n"))
        .hasMessageContaining("no result row for mariadb")
        .hasMessageContaining("sysbench died");
  }

  @Test
  void findsTheScriptFromTheRepository() {
    assertThat(TriggerOverheadFigure.repoRoot().resolve(TriggerOverheadFigure.SCRIPT))
        .isRegularFile();
  }
}
