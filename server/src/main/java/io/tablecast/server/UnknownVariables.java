package io.tablecast.server;

import io.tablecast.server.config.ConfigProblems;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code TABLECAST_*} environment variables that nothing reads: a misspelt one ({@code
 * TABLECAST_JDBC_ULR}) would otherwise leave the YAML's value, or the default, in force without a
 * word. Warned, not refused: the prefix is shared with the launcher, the command-line client, the
 * Spring Boot starter's relaxed binding ({@code TABLECAST_CLIENT_*}), the tests and the benchmark,
 * and may be with a deployment's own variables.
 */
final class UnknownVariables {
  static final String PREFIX = "TABLECAST_";

  /** Read by others than the server: {@code bin/tablecast} and the command-line client. */
  static final Set<String> READ_ELSEWHERE =
      Set.of(
          "TABLECAST_JAVA_OPTS",
          "TABLECAST_LOG_LEVEL",
          "TABLECAST_LOG_FORMAT",
          "TABLECAST_CDS",
          "TABLECAST_CDS_DIR",
          "TABLECAST_JAR",
          "TABLECAST_SERVER",
          "TABLECAST_PASSWORD",
          "TABLECAST_TOKEN",
          "TABLECAST_URL");

  /** Prefixes of variables of the Spring Boot starter, the tests and the benchmark. */
  static final List<String> PREFIXES_ELSEWHERE =
      List.of("TABLECAST_CLIENT_", "TABLECAST_TEST_", "TABLECAST_BENCH_", "TABLECAST_REPO_");

  private UnknownVariables() {}

  /** One warning per {@code TABLECAST_*} variable of {@code env} that nothing reads, by name. */
  static List<String> in(Map<String, String> env) {
    Set<String> serverReads = new TreeSet<>();
    ConfigLoader.ENVIRONMENT.forEach(v -> serverReads.add(v.name()));
    List<String> warnings = new ArrayList<>();
    for (String name : new TreeSet<>(env.keySet())) {
      if (name.startsWith(PREFIX)
          && !serverReads.contains(name)
          && !READ_ELSEWHERE.contains(name)
          && PREFIXES_ELSEWHERE.stream().noneMatch(name::startsWith)) {
        warnings.add(ConfigProblems.unknownVariable(name, serverReads));
      }
    }
    return warnings;
  }
}
