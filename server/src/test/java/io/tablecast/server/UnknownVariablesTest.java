package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code TABLECAST_*} environment variables nothing reads are warned of, each with the one
 * meant when it is spelt alike; those the server, the launcher, the command-line client, the Spring
 * Boot starter, the tests and the benchmark read are not.
 */
class UnknownVariablesTest {

  @Test
  void aMisspeltVariableIsWarnedOfWithTheOneMeant() {
    assertThat(
            UnknownVariables.in(
                Map.of(
                    "TABLECAST_JDBC_ULR", "jdbc:postgresql://db/app",
                    "TABLECAST_CACHED_TABELS", "public.items",
                    "TABLECAST_REGION", "eu",
                    "HOME", "/root")))
        .containsExactly(
            "environment variable TABLECAST_CACHED_TABELS is set but the server reads no such"
                + " variable, so it changes nothing: did you mean TABLECAST_CACHED_TABLES? (the"
                + " server reads TABLECAST_ALLOWED_ORIGINS, TABLECAST_CACHED_TABLES, TABLECAST_DB_PASSWORD, TABLECAST_DB_PASSWORD_FILE,"
                + " TABLECAST_DB_USER,"
                + " TABLECAST_INSTALL_TRIGGERS, TABLECAST_JDBC_URL, TABLECAST_JWT_HS256_SECRET,"
                + " TABLECAST_LISTEN_HOST, TABLECAST_LISTEN_PORT, TABLECAST_METRICS_TOKEN,"
                + " TABLECAST_STATIC_CLIENT_DIR, TABLECAST_STATIC_DIR, TABLECAST_TLS_CERT_CHAIN,"
                + " TABLECAST_TLS_PRIVATE_KEY)",
            "environment variable TABLECAST_JDBC_ULR is set but the server reads no such variable,"
                + " so it changes nothing: did you mean TABLECAST_JDBC_URL? (the server reads"
                + " TABLECAST_ALLOWED_ORIGINS, TABLECAST_CACHED_TABLES, TABLECAST_DB_PASSWORD, TABLECAST_DB_PASSWORD_FILE,"
                + " TABLECAST_DB_USER,"
                + " TABLECAST_INSTALL_TRIGGERS, TABLECAST_JDBC_URL, TABLECAST_JWT_HS256_SECRET,"
                + " TABLECAST_LISTEN_HOST, TABLECAST_LISTEN_PORT, TABLECAST_METRICS_TOKEN,"
                + " TABLECAST_STATIC_CLIENT_DIR, TABLECAST_STATIC_DIR, TABLECAST_TLS_CERT_CHAIN,"
                + " TABLECAST_TLS_PRIVATE_KEY)",
            "environment variable TABLECAST_REGION is set but the server reads no such variable,"
                + " so it changes nothing (the server reads TABLECAST_ALLOWED_ORIGINS, TABLECAST_CACHED_TABLES,"
                + " TABLECAST_DB_PASSWORD, TABLECAST_DB_PASSWORD_FILE, TABLECAST_DB_USER, TABLECAST_INSTALL_TRIGGERS,"
                + " TABLECAST_JDBC_URL, TABLECAST_JWT_HS256_SECRET, TABLECAST_LISTEN_HOST,"
                + " TABLECAST_LISTEN_PORT, TABLECAST_METRICS_TOKEN, TABLECAST_STATIC_CLIENT_DIR,"
                + " TABLECAST_STATIC_DIR, TABLECAST_TLS_CERT_CHAIN, TABLECAST_TLS_PRIVATE_KEY)");
  }

  @Test
  void theVariablesOfTheServerAndOfTheOtherPartsAreNotWarnedOf() {
    Map<String, String> env = new java.util.HashMap<>();
    ConfigLoader.ENVIRONMENT.forEach(v -> env.put(v.name(), "x"));
    UnknownVariables.READ_ELSEWHERE.forEach(name -> env.put(name, "x"));
    env.put("TABLECAST_CLIENT_SERVERS", "cache1:7070"); // the Spring Boot starter's relaxed binding
    env.put("TABLECAST_TEST_PG_URL", "jdbc:postgresql://127.0.0.1/test");
    env.put("TABLECAST_BENCH_MYSQL_URL", "jdbc:mariadb://127.0.0.1/test");
    env.put("TABLECAST_REPO_ROOT", "/work");
    assertThat(UnknownVariables.in(env)).isEmpty();
  }

  /**
   * Every {@code TABLECAST_*} name the launcher, the command-line client, the shipped files, the
   * examples and the build read is known here, so that setting it warns of nothing: a variable
   * added there and not here fails this test instead of warning every user who sets it.
   */
  @Test
  void everyVariableTheShippedPartsReadIsKnown() throws java.io.IOException {
    java.nio.file.Path repo = java.nio.file.Path.of("..");
    java.util.List<java.nio.file.Path> files = new java.util.ArrayList<>();
    for (String f :
        List.of(
            ".ci/run",
            "bin/tablecast",
            "cli/src/main/resources/logback.xml",
            "dist/src/conf/tablecast.yaml",
            "dist/src/systemd/tablecast.service",
            "examples/react-vite/vite.config.ts",
            "pom.xml")) {
      files.add(repo.resolve(f));
    }
    try (java.util.stream.Stream<java.nio.file.Path> cli =
        java.nio.file.Files.walk(repo.resolve("cli/src/main/java"))) {
      cli.filter(f -> f.toString().endsWith(".java")).forEach(files::add);
    }
    java.util.regex.Pattern name = java.util.regex.Pattern.compile("TABLECAST_[A-Z0-9_]*[A-Z0-9]");
    Map<String, String> env = new java.util.TreeMap<>();
    for (java.nio.file.Path f : files) {
      java.util.regex.Matcher m = name.matcher(java.nio.file.Files.readString(f));
      while (m.find()) {
        env.put(m.group(), f.toString());
      }
    }
    assertThat(env).containsKeys("TABLECAST_JAVA_OPTS", "TABLECAST_SERVER", "TABLECAST_JDBC_URL");
    assertThat(UnknownVariables.in(env)).as("read in %s", env).isEmpty();
  }
}
