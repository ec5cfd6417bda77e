package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.server.capture.TableId;
import org.junit.jupiter.api.Test;

/**
 * The MySQL/MariaDB type table of docs/TYPES.md, for types this machine's MariaDB cannot create.
 */
class MysqlTypesTest {

  @Test
  void typeOfANewerServerIsRefusedNamingColumnTypeAndTheWayOut() {
    // MySQL 9 / MariaDB 11.7 add VECTOR; anything not in docs/TYPES.md is refused, never guessed at
    assertThat(MysqlTypes.kind("vector", "vector(3)", false)).isNull();
    assertThat(MysqlTypes.unsupported(new TableId("shop", "items"), "embedding", "vector(3)"))
        .hasMessageContaining("shop.items.embedding")
        .hasMessageContaining("vector(3)")
        .hasMessageContaining("leave the column out with exclude_columns");
  }

  @Test
  void mysql8OnlyTypeNamesMapLikeTheirMariadbTwins() {
    // MySQL 8 reports GEOMETRYCOLLECTION columns as geomcollection; MariaDB as geometrycollection
    assertThat(MysqlTypes.kind("geomcollection", "geomcollection", false))
        .isEqualTo(ColumnKind.JSON);
    assertThat(MysqlTypes.dbType("geomcollection", "geomcollection", ColumnKind.JSON))
        .isEqualTo("geomcollection");
    assertThat(MysqlTypes.kind("json", "json", false)).isEqualTo(ColumnKind.JSON);
    assertThat(MysqlTypes.dbType("json", "json", ColumnKind.JSON)).isEqualTo("json");
    assertThat(MysqlTypes.bitWidth(new ColumnInfo("b", "bit(64)", ColumnKind.STRING)))
        .isEqualTo(64);
    assertThat(MysqlTypes.bitWidth(new ColumnInfo("b", "varchar(64)", ColumnKind.STRING))).isZero();
  }
}
