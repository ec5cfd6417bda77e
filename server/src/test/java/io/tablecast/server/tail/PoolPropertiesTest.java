package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.metrics.MicrometerServerMetrics;
import io.tablecast.server.testing.TestDatabases;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The source pool's driver properties: set beside the URL, and a URL that sets one otherwise (its
 * option would win and break every read) refused at start, naming the option; and how long the pool
 * checks a connection it hands out.
 */
class PoolPropertiesTest {
  private static final Map<String, String> MULTI = Map.of("allowMultiQueries", "true");

  @Test
  void setsTheDialectsPropertiesBesideTheUrl() {
    HikariConfig config = new HikariConfig();
    PoolProperties.apply(config, "jdbc:mariadb://db:3306/shop?user=app&password=secret", MULTI);
    assertThat(config.getDataSourceProperties()).containsEntry("allowMultiQueries", "true");
  }

  /**
   * What a dialect's pool setup sees of the driver's options (PostgreSQL asks for generic plans
   * only where pgjdbc prepares on the server): the URL's and the properties', names in lower case,
   * the URL's winning as in the drivers, the password left out.
   */
  @Test
  void driverOptionsJoinUrlAndPropertiesTheUrlWinning() {
    java.util.Properties props = new java.util.Properties();
    props.setProperty("prepareThreshold", "5");
    props.setProperty("preferQueryMode", "extended");
    props.setProperty("password", "secret");
    assertThat(
            PoolProperties.driverOptions(
                "jdbc:postgresql://db/shop?PrepareThreshold=0&user=app", props))
        .containsEntry("preparethreshold", "0")
        .containsEntry("preferquerymode", "extended")
        .containsEntry("user", "app")
        .doesNotContainKey("password");
  }

  @Test
  void acceptsTheSameValueInTheUrlInAnyCase() {
    HikariConfig config = new HikariConfig();
    PoolProperties.apply(config, "jdbc:mariadb://db/shop?ALLOWMULTIQUERIES=TRUE", MULTI);
    assertThat(config.getDataSourceProperties()).containsEntry("allowMultiQueries", "true");
  }

  @Test
  void refusesAUrlThatSetsAnotherValueNamingTheOptionNotTheSecrets() {
    assertThatThrownBy(
            () ->
                PoolProperties.apply(
                    new HikariConfig(),
                    "jdbc:mariadb://db/shop?password=secret&allowmultiqueries=false",
                    MULTI))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source.jdbc_url sets allowMultiQueries=false")
        .hasMessageContaining("need allowMultiQueries=true")
        .hasMessageContaining("remove allowMultiQueries from source.jdbc_url")
        .hasMessageNotContaining("secret");
  }

  @Test
  void aMariadbSourceWhoseUrlForbidsMultiStatementsIsRefusedAtOpen() {
    TestDatabases.Isolated db = TestDatabases.Kind.MYSQL.isolated("poolprops");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, v INT NOT NULL)");
    String url =
        db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "allowMultiQueries=false";
    assertThatThrownBy(
            () ->
                ChangeSources.open(
                    new SourceConfig(url, null, null, List.of("items"), true, null, null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowMultiQueries=false");
  }

  /**
   * The pool's check of a connection it hands out waits half of {@code source.answer_timeout}, at
   * most HikariCP's 5 s: a connection gone silent in the pool held the tail's next read, and a stop
   * waiting for it, 5 s whatever the setting (a stop 4.4-4.7 s with a 2 s answer timeout; now
   * 0.4-0.7 s, {@code StopWithoutDatabaseTest}).
   */
  @Test
  void thePoolChecksAConnectionForHalfTheAnswerTimeoutAtMostFiveSeconds() throws Exception {
    TestDatabases.Isolated db = TestDatabases.Kind.POSTGRESQL.isolated("poolcheck");
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)");
    SourceConfig config =
        new SourceConfig(db.jdbcUrl(), null, null, List.of("items"), true, null, null);
    assertThat(validationTimeoutOpenedWith(config)).isEqualTo(5_000);
    assertThat(validationTimeoutOpenedWith(config.withAnswerTimeout(Duration.ofSeconds(2))))
        .isEqualTo(1_000);
    assertThat(validationTimeoutOpenedWith(config.withAnswerTimeout(Duration.ofMinutes(1))))
        .isEqualTo(5_000);
  }

  private static long validationTimeoutOpenedWith(SourceConfig config) throws Exception {
    long[] validation = new long[1];
    try (ChangeSource source =
        ChangeSources.open(
            config,
            MicrometerServerMetrics.inMemory(),
            ChangeSources.Tuning.DEFAULT.withPools(
                hc -> {
                  validation[0] = hc.getValidationTimeout();
                  return new HikariDataSource(hc);
                }))) {
      return validation[0];
    }
  }
}
