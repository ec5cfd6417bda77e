package io.tablecast.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowFilterTest {

  private static ObjectNode row(Object tenant) {
    ObjectNode r = JsonNodeFactory.instance.objectNode().put("id", 1).put("name", "n");
    if (tenant instanceof Integer i) {
      r.put("tenant", i);
    } else if (tenant != null) {
      r.put("tenant", tenant.toString());
    }
    return r;
  }

  @Test
  void parsesTheTinyGrammar() {
    assertThat(RowFilter.parse("tenant = <claim:tenant_id>"))
        .isEqualTo(new RowFilter("tenant", null, "tenant_id"));
    assertThat(RowFilter.parse("tenant=42").literal().longValue()).isEqualTo(42);
    assertThat(RowFilter.parse(" region = 'it''s' ").literal().textValue()).isEqualTo("it's");
    assertThat(RowFilter.parse("active = true").literal().booleanValue()).isTrue();
  }

  @Test
  void refusesAnythingElse() {
    for (String bad :
        List.of(
            "tenant = 1 OR 1 = 1",
            "tenant > 3",
            "tenant = unquoted",
            "= 3",
            "tenant = <claim:>",
            "tenant = 'a' AND x = 'b'")) {
      assertThatThrownBy(() -> RowFilter.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("row_filter must be");
    }
  }

  @Test
  void configLoadNamesThePrincipalWithABadFilter() throws Exception {
    String yaml =
        "principals:\n  - name: alice\n    password_hash: "
            + PasswordHasher.hash("pw".toCharArray())
            + "\n    row_filter: \"tenant IN (1, 2)\"\n";
    assertThatThrownBy(() -> AuthConfigReader.read(new YAMLMapper().readTree(yaml), Map.of()))
        .hasMessageContaining("auth.principals[alice].row_filter");
  }

  @Test
  void matchesByValueAndResolvesClaims() {
    Principal p = new Principal("bob", Map.of("tenant", "7"));
    SessionPolicy policy =
        new AccessPolicy(null, RowFilter.parse("tenant = <claim:tenant>"), null).resolve(p);
    assertThat(policy.matches(row(7))).as("number column, string claim").isTrue();
    assertThat(policy.matches(row("7"))).isTrue();
    assertThat(policy.matches(row(8))).isFalse();
    assertThat(policy.matches(row(null))).as("a row without the column never matches").isFalse();
    assertThatThrownBy(
            () ->
                new AccessPolicy(null, RowFilter.parse("tenant = <claim:tenant>"), null)
                    .resolve(new Principal("eve", Map.of())))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("lack the claim 'tenant'");
  }

  @Test
  void projectionKeepsThePrimaryKey() {
    SessionPolicy policy = new SessionPolicy(null, null, null, java.util.Set.of("name"));
    assertThat(policy.project("public.t", row(3), List.of("id")).fieldNames())
        .toIterable()
        .containsExactly("id", "name");
  }
}
