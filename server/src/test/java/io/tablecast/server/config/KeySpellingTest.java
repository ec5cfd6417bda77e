package io.tablecast.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class KeySpellingTest {
  static final List<String> KEYS =
      List.of("source", "heartbeat", "handshake_timeout", "idle_timeout", "listen", "tls");

  @Test
  void aKeyOneOrTwoEditsAwayIsTheOneMeant() {
    assertThat(KeySpelling.closest("sorce", KEYS)).isEqualTo("source"); // left out
    assertThat(KeySpelling.closest("heartbeet", KEYS)).isEqualTo("heartbeat"); // changed
    assertThat(KeySpelling.closest("lsiten", KEYS)).isEqualTo("listen"); // swapped
    assertThat(KeySpelling.closest("idle_timeouts", KEYS)).isEqualTo("idle_timeout"); // added
  }

  @Test
  void aKeyFarFromEveryOneOrAsCloseToTwoMeansNone() {
    assertThat(KeySpelling.closest("database", KEYS)).isNull();
    assertThat(KeySpelling.closest("tl", KEYS)).as("short: one edit at most").isEqualTo("tls");
    assertThat(KeySpelling.closest("ab", List.of("aa", "bb"))).as("a tie").isNull();
  }
}
