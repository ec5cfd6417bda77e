package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.testing.TestDatabases;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The source pool's driver properties: set beside the URL, and a URL that sets one otherwise (its
 * option would win and break every read) refused at start, naming the option.
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
}
