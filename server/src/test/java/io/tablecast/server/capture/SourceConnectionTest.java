package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.mysql.MysqlFamily;
import io.tablecast.server.postgresql.PgFamily;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The driver properties of an installer's connection: its connecting bounded, the URL's own win.
 */
class SourceConnectionTest {
  private static final Duration WITHIN = Duration.ofMillis(32_500);

  @Test
  void theConnectingIsBoundedInEachDriversOwnUnits() {
    assertThat(props(new PgFamily(), "jdbc:postgresql://db/shop"))
        .containsEntry("loginTimeout", "33") // seconds, rounded up
        .containsEntry("user", "app");
    assertThat(props(new MysqlFamily(), "jdbc:mariadb://db/shop"))
        .containsEntry("connectTimeout", "32500"); // milliseconds
  }

  @Test
  void aBoundTheUrlSetsIsLeftToIt() {
    assertThat(props(new PgFamily(), "jdbc:postgresql://db/shop?LoginTimeout=3"))
        .doesNotContainKey("loginTimeout");
    assertThat(props(new MysqlFamily(), "jdbc:mariadb://db/shop?connectTimeout=1000"))
        .doesNotContainKey("connectTimeout");
  }

  private static Properties props(DatabaseFamily family, String url) {
    SourceConfig config = new SourceConfig(url, "app", null, List.of("items"), true, null, null);
    return SourceConnection.properties(config, family, family.driverUrl(url), WITHIN);
  }
}
