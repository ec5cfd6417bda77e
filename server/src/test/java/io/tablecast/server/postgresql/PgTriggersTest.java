package io.tablecast.server.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The capture functions run as their owner (SECURITY DEFINER) with the writer's search_path, which
 * a writer may begin with a schema of its own: every relation, function and operator their bodies
 * name must therefore be qualified, or a writer's own {@code to_jsonb} or {@code =} would run as
 * the owner (docs/SECURITY.md, "Writers need no grant").
 */
class PgTriggersTest {

  /** What a body may call unqualified: keywords that look like calls, and the outbox's columns. */
  private static final List<String> NOT_CALLS =
      List.of("COALESCE", "EXISTS", "VALUES", "AND", "OR", "NOT", "tablecast_outbox");

  @ParameterizedTest
  @ValueSource(strings = {PgTriggers.PLAIN_FUNCTION, PgTriggers.PINNED_FUNCTION})
  void everyRelationFunctionAndOperatorOfTheCaptureIsQualified(String function) {
    String body =
        PgTriggers.functionBody("app", function)
            .replaceAll("--[^\n]*", "") // comments
            .replaceAll("'[^']*'", "''"); // literals
    String operators = body.replaceAll("OPERATOR\\(pg_catalog\\.[^)]+\\)", " ");
    assertThat(operators.replaceAll("[^=<>|+*/!~@#%^&-]", ""))
        .as("operators not written OPERATOR(pg_catalog.x)")
        .isEmpty();
    List<String> calls = new ArrayList<>();
    Matcher m = Pattern.compile("(?<![.\\w\"])(\\w+)\\s*\\(").matcher(operators);
    while (m.find()) {
      calls.add(m.group(1));
    }
    assertThat(calls).as("unqualified calls").isSubsetOf(NOT_CALLS);
    Matcher from = Pattern.compile("(?:FROM|INTO|JOIN)\\s+(\\S+)").matcher(body);
    while (from.find()) {
      assertThat(from.group(1)).as("a relation").matches("(pg_catalog|\"app\")\\..+");
    }
    assertThat(body).contains("pg_catalog.to_jsonb(NEW)");
  }
}
