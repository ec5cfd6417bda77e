package io.tablecast.server.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.capture.TableId;
import org.junit.jupiter.api.Test;

class RecreatedTablesTest {

  @Test
  void innodbNamesEncodeWhatIsNotALetterDigitOrUnderscore() {
    // as MariaDB 10.11 lists `tr-Test $x` of database test in INNODB_SYS_TABLES
    assertThat(RecreatedTables.innodbName(new TableId("test", "tr-Test $x")))
        .isEqualTo("test/tr@002dTest@0020@0024x");
    assertThat(RecreatedTables.innodbName(new TableId("shop_1", "Items_2")))
        .isEqualTo("shop_1/Items_2");
    assertThat(RecreatedTables.innodbName(new TableId("shop", "café"))).isNull();
  }
}
