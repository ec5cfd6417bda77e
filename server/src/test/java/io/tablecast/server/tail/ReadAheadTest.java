package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.DatabaseFamily;
import io.tablecast.server.capture.Dialect;
import io.tablecast.server.testing.TestDatabases;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ReadAhead}: every row in order, whatever the chunking; a failure of the caller or of the
 * query ends the reader before the connection is handed back, usable, to the caller's transaction.
 * Each database's rows are fetched as its dialect fetches them: a result set on MySQL, {@code COPY}
 * on PostgreSQL.
 */
class ReadAheadTest {

  /** Runs {@code sql} through {@link ReadAhead} with the fetch of the dialect {@code c} is to. */
  private static long forEach(Connection c, String sql, int columns, ReadAhead.Rows<String[]> each)
      throws Exception {
    return ReadAhead.forEach(c, dialect(c).rowTextsFetch(), sql, columns, texts -> texts, each);
  }

  private static Dialect dialect(Connection c) throws SQLException {
    String url = c.getMetaData().getURL();
    for (DatabaseFamily family : ServiceLoader.load(DatabaseFamily.class)) {
      if (family.urlPrefixes().stream().anyMatch(url::startsWith)) {
        return family.detect(c);
      }
    }
    throw new IllegalStateException("no database family serves " + url);
  }

  private static Connection open(TestDatabases.Kind kind) throws SQLException {
    Connection c = kind.isolated("readahead").connect();
    c.setAutoCommit(false); // a snapshot reads in its transaction
    return c;
  }

  private static String numbers(TestDatabases.Kind kind, int n) {
    return kind == TestDatabases.Kind.POSTGRESQL
        ? "SELECT s.g::text FROM generate_series(1, " + n + ") AS s(g) ORDER BY s.g"
        : "SELECT CAST(seq AS CHAR) FROM seq_1_to_" + n + " ORDER BY seq";
  }

  private static List<Thread> readers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("tablecast-read-ahead"))
        .toList();
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void everyRowArrivesInOrderAcrossChunks(TestDatabases.Kind kind) throws Exception {
    try (Connection c = open(kind)) {
      List<String> seen = new ArrayList<>();
      long n = forEach(c, numbers(kind, 10_500), 1, texts -> seen.add(texts[0]));
      assertThat(n).isEqualTo(10_500);
      assertThat(seen).hasSize(10_500);
      for (int i = 0; i < seen.size(); i++) {
        assertThat(seen.get(i)).isEqualTo(Integer.toString(i + 1));
      }
      assertThat(readers()).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aFailingCallerStopsTheReaderAndKeepsTheConnection(TestDatabases.Kind kind) throws Exception {
    try (Connection c = open(kind)) {
      List<String> seen = new ArrayList<>();
      assertThatThrownBy(
              () ->
                  forEach(
                      c,
                      numbers(kind, 200_000),
                      1,
                      texts -> {
                        if (seen.size() == 1_500) {
                          throw new IllegalStateException("row 1501 does not convert");
                        }
                        seen.add(texts[0]);
                      }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("row 1501 does not convert");
      assertThat(readers()).as("the reader is finished when forEach throws").isEmpty();
      c.rollback(); // the cancelled read may have failed the transaction (PostgreSQL)
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aRowThatDoesNotEncodeFailsTheReadWithItsErrorAndKeepsTheConnection(TestDatabases.Kind kind)
      throws Exception {
    try (Connection c = open(kind)) {
      List<String> seen = new ArrayList<>();
      assertThatThrownBy(
              () ->
                  ReadAhead.forEach(
                      c,
                      dialect(c).rowTextsFetch(),
                      numbers(kind, 200_000),
                      1,
                      texts -> {
                        if (texts[0].equals("2501")) {
                          throw new IllegalStateException("row 2501 does not convert");
                        }
                        return texts[0];
                      },
                      seen::add))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("row 2501 does not convert");
      assertThat(readers()).as("the reader is finished when forEach throws").isEmpty();
      assertThat(seen).hasSizeLessThanOrEqualTo(2500);
      c.rollback();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT 41 + 1")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void aFailingQueryFailsWithTheDatabasesError(TestDatabases.Kind kind) throws Exception {
    try (Connection c = open(kind)) {
      assertThatThrownBy(() -> forEach(c, "SELECT nope FROM no_such_table", 1, t -> {}))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("no_such_table");
      assertThat(readers()).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(TestDatabases.Kind.class)
  void eachRowArrivesAsTheTextsOfItsColumnsNullsIncluded(TestDatabases.Kind kind) throws Exception {
    String sql =
        kind == TestDatabases.Kind.POSTGRESQL
            ? "SELECT g, 'row-' || g, CASE WHEN g % 2 = 0 THEN NULL ELSE g * 1.5 END "
                + "FROM generate_series(1, 2500) g ORDER BY g"
            : "SELECT seq, CONCAT('row-', seq), CASE WHEN seq % 2 = 0 THEN NULL ELSE seq * 1.5 END "
                + "FROM seq_1_to_2500 ORDER BY seq";
    try (Connection c = open(kind)) {
      List<String[]> seen = new ArrayList<>();
      assertThat(forEach(c, sql, 3, seen::add)).isEqualTo(2500);
      assertThat(seen).hasSize(2500);
      assertThat(seen.get(0)).containsExactly("1", "row-1", "1.5");
      assertThat(seen.get(1)).containsExactly("2", "row-2", null);
      assertThat(seen.get(2499)).containsExactly("2500", "row-2500", null);
    }
  }

  @Test
  void rowsOfAMegabyteEachAreReadWhole() throws Exception {
    try (Connection c = open(TestDatabases.Kind.POSTGRESQL)) {
      long[] chars = {0};
      long n =
          forEach(
              c,
              "SELECT repeat('x', 1 << 20) || g FROM generate_series(1, 12) g ORDER BY g",
              1,
              t -> chars[0] += t[0].length());
      assertThat(n).isEqualTo(12);
      assertThat(chars[0]).isGreaterThan(12L << 20);
    }
  }
}
