package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Validation of the TLS builder settings (the TLS sessions themselves: tests/TlsClientTest). */
class TlsBuilderTest {

  @TempDir Path dir;

  @Test
  void missingTrustFileIsNamed() {
    assertThatThrownBy(
            () ->
                TablecastClient.builder()
                    .servers("localhost:7070")
                    .tls(dir.resolve("nope.pem"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope.pem");
  }

  @Test
  void notAPemFileIsNamed() throws Exception {
    Path junk = Files.writeString(dir.resolve("junk.pem"), "not a certificate");
    assertThatThrownBy(() -> TablecastClient.builder().servers("localhost:7070").tls(junk).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("junk.pem");
  }

  @Test
  void clientCertificateNeedsItsKey() throws Exception {
    Path junk = Files.writeString(dir.resolve("c.pem"), "x");
    assertThatThrownBy(
            () -> TablecastClient.builder().servers("localhost:7070").tls(null, junk, null).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("clientKeyPem");
  }

  @Test
  void systemTrustBuilds() {
    try (TablecastClient c = TablecastClient.builder().servers("localhost:1").tls().build()) {
      assertThat(c).isNotNull();
    }
  }
}
