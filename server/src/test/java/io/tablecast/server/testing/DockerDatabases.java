package io.tablecast.server.testing;

import java.time.Duration;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.PostgreSQLContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/** Testcontainers fallback, used only when no database URL is set and Docker is reachable. */
final class DockerDatabases {
  static final String MYSQL_ROOT_PASSWORD = "test";

  /**
   * The log line of a MySQL 8 server ready on its TCP port. The image's entrypoint first runs a
   * temporary server without networking, which logs {@code port: 0}; the X plugin logs {@code port:
   * 33060}. Waiting for this line needs no MySQL JDBC driver (MySQLContainer's check loads {@code
   * com.mysql.cj.jdbc.Driver}; the tests only have MariaDB Connector/J, the driver the server uses,
   * so that tests never run a driver production does not).
   */
  static final String MYSQL_READY_LOG = ".*mysqld: ready for connections\\..*port: 3306 .*\\s";

  private DockerDatabases() {}

  @SuppressWarnings("resource") // lives for the JVM; Ryuk removes it
  static String startMysql() {
    GenericContainer<?> c =
        new GenericContainer<>(DockerImageName.parse("mysql:8.0"))
            .withEnv("MYSQL_ROOT_PASSWORD", MYSQL_ROOT_PASSWORD)
            .withEnv("MYSQL_DATABASE", "test")
            .withCommand("--innodb-autoinc-lock-mode=2")
            .withExposedPorts(3306)
            .waitingFor(
                Wait.forLogMessage(MYSQL_READY_LOG, 1).withStartupTimeout(Duration.ofMinutes(3)));
    c.start();
    return mysqlUrl(c.getHost(), c.getMappedPort(3306));
  }

  /**
   * A MariaDB Connector/J URL for the container's root user. MySQL 8 authenticates with {@code
   * caching_sha2_password}; over a connection without TLS the driver needs the server's RSA public
   * key, which it may only fetch with {@code allowPublicKeyRetrieval=true}.
   */
  static String mysqlUrl(String host, int port) {
    return "jdbc:mariadb://"
        + host
        + ":"
        + port
        + "/test?user=root&password="
        + MYSQL_ROOT_PASSWORD
        + "&allowPublicKeyRetrieval=true";
  }

  @SuppressWarnings("resource")
  static String startPostgres() {
    PostgreSQLContainer<?> c = new PostgreSQLContainer<>("postgres:16");
    c.start();
    return c.getJdbcUrl()
        + (c.getJdbcUrl().contains("?") ? "&" : "?")
        + "user="
        + c.getUsername()
        + "&password="
        + c.getPassword();
  }
}
