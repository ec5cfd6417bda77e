package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.server.testing.TestDatabases;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Per-table column choice ({@code columns} / {@code exclude_columns}) and complete refusals. */
class ColumnChoiceTest {

  private static SourceConfig config(
      TestDatabases.Isolated db, Map<String, ColumnChoice> choices, String... tables) {
    return new SourceConfig(
        db.jdbcUrl(), null, null, List.of(tables), true, null, null, null, null, choices);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void chosenColumnsAreDescribedInTableOrderWithTheKeyAlways(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("choice");
    db.execute(
        "CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(20), password_hash VARCHAR(100), note TEXT)");
    try (TriggerInstaller installer =
        TriggerInstaller.connect(
            config(
                db, Map.of("users", ColumnChoice.excluding(List.of("password_hash"))), "users"))) {
      assertThat(installer.describe().get(0).columns())
          .extracting(ColumnInfo::name)
          .containsExactly("id", "name", "note");
    }
    try (TriggerInstaller installer =
        TriggerInstaller.connect(
            config(db, Map.of("users", ColumnChoice.only(List.of("note", "name"))), "users"))) {
      assertThat(installer.describe().get(0).columns())
          .extracting(ColumnInfo::name)
          .containsExactly("id", "name", "note");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyProblemOfATableIsNamedWithItsWayOut(Kind kind) throws Exception {
    TestDatabases.Isolated db = kind.isolated("choice_bad");
    db.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)");
    try (TriggerInstaller installer =
        TriggerInstaller.connect(
            config(db, Map.of("t", ColumnChoice.excluding(List.of("id", "nope"))), "t"))) {
      assertThatThrownBy(installer::describe)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("column nope of " + db.table("t") + ", which does not exist")
          .hasMessageContaining(
              db.table("t") + ".id is part of the primary key and cannot be left out");
    }
  }

  /**
   * PostgreSQL {@code reg*} types cannot be captured: both are named, with the line that leaves
   * them out.
   */
  @Test
  void uncapturableColumnsAreNamedTogetherWithTheLineThatLeavesThemOutAndThatLineWorks()
      throws Exception {
    TestDatabases.Isolated db = Kind.POSTGRESQL.isolated("choice_types");
    db.execute("CREATE TABLE odd (id INT PRIMARY KEY, r regclass, v INT, t regtype)");
    try (TriggerInstaller installer = TriggerInstaller.connect(config(db, Map.of(), "odd"))) {
      assertThatThrownBy(installer::describe)
          .hasMessageContaining(db.table("odd") + ".r has type regclass")
          .hasMessageContaining(db.table("odd") + ".t has type regtype")
          .hasMessageContaining("{ table: " + db.table("odd") + ", exclude_columns: [r, t] }");
    }
    try (TriggerInstaller installer =
        TriggerInstaller.connect(
            config(db, Map.of("odd", ColumnChoice.excluding(List.of("r", "t"))), "odd"))) {
      assertThat(installer.describe().get(0).columns())
          .extracting(ColumnInfo::name)
          .containsExactly("id", "v");
    }
  }
}
