package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.RowTextsFetch;
import io.tablecast.server.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link PgCopyFetch}: whole-table reads through {@code COPY ... TO STDOUT} give the texts the
 * query's result set gives, value for value (escapes, NULL against the text {@code \N}, UTF-8, JSON
 * text with backslashes), end on an interrupt with the connection usable, and fail with the
 * database's error.
 */
class PgCopyFetchTest {

  private static Connection open() throws SQLException {
    Connection c = TestDatabases.Kind.POSTGRESQL.isolated("copyfetch").connect();
    c.setAutoCommit(false); // a snapshot reads in its transaction
    return c;
  }

  private static List<String[]> fetch(RowTextsFetch fetch, Connection c, String sql, int columns)
      throws Exception {
    List<String[]> rows = new ArrayList<>();
    try (RowTextsFetch.Fetch f = fetch.open(c, sql, columns)) {
      f.run(rows::add);
    }
    return rows;
  }

  private static String[] fields(String line, int columns) {
    return PgCopyFetch.slices(line.getBytes(StandardCharsets.UTF_8), columns).texts();
  }

  @Test
  void aLineSplitsAtTabsAndUnescapesEachField() {
    assertThat(fields("1\trow-1\t1.5\n", 3)).containsExactly("1", "row-1", "1.5");
    assertThat(fields("\\N\t\t\\\\N\n", 3)).containsExactly(null, "", "\\N");
    assertThat(fields("a\\tb\\nc\\rd\\\\e\\bf\\fg\\vh\n", 1))
        .containsExactly("a\tb\nc\rd\\e\bf\fg\u000bh");
    assertThat(fields("é😀\\\\x\t\\\\x00ff\n", 2)).containsExactly("é😀\\x", "\\x00ff");
    assertThat(fields("x\\ty\t\\N\t\\\\\t\t\\N\n", 5))
        .containsExactly("x\ty", null, "\\", "", null);
    assertThat(fields("last field without a newline", 1))
        .containsExactly("last field without a newline");
  }

  @Test
  void aLineWithAnotherNumberOfFieldsIsRefusedWithoutItsValues() {
    assertThatThrownBy(() -> fields("1\tsecret\n", 3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a row of COPY output has 2 fields, its read 3 columns");
    assertThatThrownBy(() -> fields("1\tsecret\t3\t4\n", 3))
        .hasMessage("a row of COPY output has 4 fields, its read 3 columns");
  }

  @Test
  void copyGivesTheResultSetsTextsValueForValue() throws Exception {
    try (Connection c = open()) {
      try (Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE odd (id int PRIMARY KEY, t text, b bytea, n numeric, f float8, "
                + "ts timestamptz, a text[], j jsonb, ch char(4))");
        s.execute(
            "INSERT INTO odd VALUES "
                + "(1, E'tab\\there\\nnew line\\r\\\\ back \\\\N é😀 \\b\\f\\v', '\\x00ff5c09', "
                + "'NaN', 1e300, '2024-02-29 13:45:30.5+02', '{\"a\\\\b\", NULL, \"c\\td\"}', "
                + "'{\"k\": \"v\\\\\\\"\\t\"}', 'ab'), "
                + "(2, '\\N', '', 0.1, '-0', 'infinity', '{}', 'null', NULL), "
                + "(3, '', NULL, NULL, NULL, NULL, NULL, NULL, '')");
      }
      String sql = "SELECT t.*, to_jsonb(t.*)::text FROM odd t ORDER BY id";
      List<String[]> viaResultSet = fetch(RowTextsFetch.RESULT_SET, c, sql, 10);
      List<String[]> viaCopy = fetch(PgCopyFetch.COPY, c, sql, 10);
      assertThat(viaCopy).hasSize(3);
      for (int i = 0; i < 3; i++) {
        assertThat(viaCopy.get(i)).as("row %d", i + 1).containsExactly(viaResultSet.get(i));
      }
      assertThat(viaCopy.get(1)[1]).isEqualTo("\\N");
      assertThat(viaCopy.get(2)[1]).isEmpty();
      assertThat(viaCopy.get(2)[2]).isNull();
    }
  }

  /** How a reader's run ends early: interrupted by its caller, or its caller's encoding threw. */
  enum EarlyEnd {
    INTERRUPT,
    CALLER_THROWS
  }

  @ParameterizedTest
  @EnumSource(EarlyEnd.class)
  void aReadEndedEarlyLeavesTheConnectionInStep(EarlyEnd how) throws Exception {
    try (Connection c = open()) {
      AtomicReference<Throwable> ended = new AtomicReference<>();
      List<String> seen = new ArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                try (RowTextsFetch.Fetch f =
                    PgCopyFetch.COPY.open(c, "SELECT g FROM generate_series(1, 3000000) g", 1)) {
                  f.run(
                      texts -> {
                        seen.add(texts[0]);
                        if (seen.size() == 1_000 && how == EarlyEnd.INTERRUPT) {
                          Thread.currentThread().interrupt(); // as the caller of a reader does
                        } else if (seen.size() == 1_000) {
                          throw new IllegalStateException("row 1000 does not convert");
                        }
                      });
                } catch (Throwable t) {
                  ended.set(t);
                }
              });
      reader.start();
      reader.join(30_000);
      assertThat(reader.isAlive()).as("the copy ended").isFalse();
      assertThat(ended.get())
          .isInstanceOf(
              how == EarlyEnd.INTERRUPT ? InterruptedException.class : IllegalStateException.class)
          .hasNoSuppressedExceptions();
      assertThat(seen).hasSize(1_000);
      c.rollback(); // failed by the cancel: pgjdbc's cancelCopy left its error to this rollback
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
  }

  @Test
  void aFailingQueryFailsWithTheDatabasesError() throws Exception {
    try (Connection c = open()) {
      assertThatThrownBy(() -> fetch(PgCopyFetch.COPY, c, "SELECT nope FROM no_such_table", 1))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("no_such_table");
    }
  }

  @Test
  void rowsOfAMegabyteEachAreReadWhole() throws Exception {
    try (Connection c = open()) {
      List<String[]> rows =
          fetch(
              PgCopyFetch.COPY,
              c,
              "SELECT repeat(E'x\\t', 1 << 19) || g FROM generate_series(1, 12) g ORDER BY g",
              1);
      assertThat(rows).hasSize(12);
      assertThat(rows.get(11)[0]).hasSize((2 << 19) + 2).endsWith("x\t12");
    }
  }
}
