package io.tablecast.server.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** How tests find their databases, without needing Docker to test the Docker paths. */
class TestDatabasesTest {

  private final AtomicInteger containersStarted = new AtomicInteger();

  private String start() {
    containersStarted.incrementAndGet();
    return "jdbc:from-container";
  }

  @Test
  void theEnvironmentVariableWinsAndDockerIsNotAsked() {
    String url =
        TestDatabases.resolve(
            "PostgreSQL",
            TestDatabases.PG_ENV,
            " jdbc:postgresql://db/x ",
            "e.g.",
            () -> {
              throw new AssertionError("Docker must not be asked when the variable is set");
            },
            this::start);
    assertThat(url).isEqualTo("jdbc:postgresql://db/x");
    assertThat(containersStarted).hasValue(0);
  }

  @Test
  void withoutTheVariableButWithDockerAContainerIsStarted() {
    assertThat(
            TestDatabases.resolve(
                "MariaDB/MySQL", TestDatabases.MYSQL_ENV, "  ", "e.g.", () -> true, this::start))
        .isEqualTo("jdbc:from-container");
    assertThat(containersStarted).hasValue(1);
  }

  @Test
  void withNeitherTheTestFailsSayingHowToProvideADatabase() {
    assertThatThrownBy(
            () ->
                TestDatabases.resolve(
                    "MariaDB/MySQL",
                    TestDatabases.MYSQL_ENV,
                    null,
                    "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=",
                    () -> false,
                    this::start))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("No MariaDB/MySQL database for the tests")
        .hasMessageContaining("set TABLECAST_TEST_MYSQL_URL")
        .hasMessageContaining("jdbc:mariadb://127.0.0.1:3306/test?user=root&password=")
        .hasMessageContaining("Docker engine")
        .hasMessageContaining("DEVELOPERS.md");
    assertThat(containersStarted).hasValue(0);
  }

  @Test
  void mysqlContainerUrlLetsMariadbConnectorFetchTheServerKey() throws Exception {
    String url = DockerDatabases.mysqlUrl("localhost", 32768);
    assertThat(url).startsWith("jdbc:mariadb://localhost:32768/test?");
    org.mariadb.jdbc.Configuration parsed = org.mariadb.jdbc.Configuration.parse(url);
    assertThat(parsed.allowPublicKeyRetrieval())
        .as("allowPublicKeyRetrieval (caching_sha2_password without TLS)")
        .isTrue();
    assertThat(parsed.user()).isEqualTo("root");
    assertThat(parsed.password()).isEqualTo(DockerDatabases.MYSQL_ROOT_PASSWORD);
  }

  @Test
  void mysqlReadinessWaitsForTheRealServerNotTheInitServerOrTheXPlugin() {
    // as Testcontainers' LogMessageWaitStrategy matches each output frame
    Pattern ready = Pattern.compile("(?s)" + DockerDatabases.MYSQL_READY_LOG);
    String prefix =
        "2024-05-01T10:00:00.000000Z 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for "
            + "connections. Version: '8.0.36'  socket: '/var/run/mysqld/mysqld.sock'  port: ";
    assertThat(ready.matcher(prefix + "3306  MySQL Community Server - GPL.\n").matches()).isTrue();
    assertThat(ready.matcher(prefix + "0  MySQL Community Server - GPL.\n").matches()).isFalse();
    assertThat(
            ready
                .matcher(
                    "2024-05-01T10:00:00.000000Z 0 [System] [MY-011323] [Server] X Plugin ready for "
                        + "connections. Bind-address: '::' port: 33060, socket: /var/run/mysqld/mysqlx.sock\n")
                .matches())
        .isFalse();
  }
}
