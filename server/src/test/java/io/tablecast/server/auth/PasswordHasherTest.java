package io.tablecast.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PasswordHasherTest {

  @Test
  void hashVerifiesItsPasswordOnlyAndDescribesItself() {
    String hash = PasswordHasher.hash("s3cret".toCharArray());
    assertThat(hash).matches("pbkdf2-sha256\\$210000\\$[A-Za-z0-9+/]+\\$[A-Za-z0-9+/]+");
    assertThat(PasswordHasher.verify("s3cret".toCharArray(), hash)).isTrue();
    assertThat(PasswordHasher.verify("s3cret ".toCharArray(), hash)).isFalse();
    assertThat(PasswordHasher.hash("s3cret".toCharArray())).as("fresh salt").isNotEqualTo(hash);
  }

  @Test
  void weakOrMalformedHashesAreRefused() {
    assertThatThrownBy(
            () -> PasswordHasher.check("pbkdf2-sha256$1000$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"))
        .hasMessageContaining("at least 210000 iterations");
    assertThatThrownBy(() -> PasswordHasher.check("plain-text-password"))
        .hasMessageContaining("pbkdf2-sha256$<iterations>$");
    assertThatThrownBy(() -> PasswordHasher.hash("x".toCharArray(), 10))
        .hasMessageContaining("210000");
  }
}
