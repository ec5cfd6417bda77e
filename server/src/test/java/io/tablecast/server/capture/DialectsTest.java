package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The registry of database families (META-INF/services): each URL finds exactly its family. */
class DialectsTest {

  @Test
  void everyRegisteredPrefixFindsOneFamilyAndTheMysqlSchemeGoesToTheMariadbDriver() {
    assertThat(Dialects.all()).hasSize(2);
    DatabaseFamily mysql = Dialects.forUrl("jdbc:mariadb://h/db");
    assertThat(Dialects.forUrl("jdbc:mysql://h/db")).isSameAs(mysql);
    DatabaseFamily postgres = Dialects.forUrl("jdbc:postgresql://h/db");
    assertThat(postgres).isNotSameAs(mysql);
    assertThat(Dialects.all())
        .flatExtracting(DatabaseFamily::urlPrefixes)
        .containsExactly("jdbc:mariadb:", "jdbc:mysql:", "jdbc:postgresql:");
    assertThat(mysql.driverUrl("jdbc:mysql://h/db?x=1")).isEqualTo("jdbc:mariadb://h/db?x=1");
    assertThat(postgres.driverUrl("jdbc:postgresql://h/db")).isEqualTo("jdbc:postgresql://h/db");
    assertThat(List.of(postgres.defaultCaptureCheckInterval(), mysql.defaultCaptureCheckInterval()))
        .containsExactly(
            SourceConfig.DEFAULT_PG_CAPTURE_CHECK_INTERVAL,
            SourceConfig.DEFAULT_MYSQL_CAPTURE_CHECK_INTERVAL);
  }

  @Test
  void aUrlNoFamilyServesIsRefusedNamingEveryPrefix() {
    assertThatThrownBy(() -> Dialects.forUrl("jdbc:sqlserver://h;databaseName=db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "source.jdbc_url must start with jdbc:mariadb:, jdbc:mysql: or jdbc:postgresql:, was "
                + "'jdbc:sqlserver://h;databaseName=db'");
  }
}
