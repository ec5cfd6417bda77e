package io.tablecast.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JdbcEndpointTest {

  @Test
  void takesHostPortDatabaseAndCredentialsApart() {
    JdbcEndpoint e =
        JdbcEndpoint.parse("jdbc:mariadb://127.0.0.1:3307/bench?user=root&password=s%26cret", 3306);

    assertThat(e).isEqualTo(new JdbcEndpoint("127.0.0.1", 3307, "bench", "root", "s&cret"));
  }

  @Test
  void usesTheDefaultPortAndEmptyCredentialsWhenAbsent() {
    JdbcEndpoint e = JdbcEndpoint.parse("jdbc:postgresql://localhost/bench?currentSchema=x", 5432);

    assertThat(e).isEqualTo(new JdbcEndpoint("localhost", 5432, "bench", "", ""));
  }

  @Test
  void refusesWhatIsNotAJdbcUrlWithoutShowingThePassword() {
    assertThatThrownBy(() -> JdbcEndpoint.parse("mariadb://h/db?password=secret", 3306))
        .hasMessageContaining("expected jdbc:<kind>://host[:port]/database")
        .hasMessageNotContaining("secret");
  }
}
