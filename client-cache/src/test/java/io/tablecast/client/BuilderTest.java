package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BuilderTest {

  @Test
  void serversMustNotBeEmpty() {
    assertThatThrownBy(() -> TablecastClient.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("servers must not be empty");
  }

  @Test
  void serverMustBeHostColonPort() {
    assertThatThrownBy(() -> TablecastClient.builder().servers("localhost").build())
        .hasMessage("server must be host:port, was \"localhost\"");
    assertThatThrownBy(() -> TablecastClient.builder().servers("localhost:70000").build())
        .hasMessage("server port must be 1..65535, was \"localhost:70000\"");
  }

  /** A URL (the JavaScript client's ws://, or http://) read as host "http" or a bad port before. */
  @Test
  void aServerGivenAsAUrlIsToldToBeHostColonPort() {
    for (String url : new String[] {"ws://h:7070/ws", "http://h:7070", "tcp://h:7070"}) {
      assertThatThrownBy(() -> TablecastClient.builder().servers(url).build())
          .hasMessage(
              "server must be host:port, without a scheme or path (the Java client speaks the"
                  + " binary protocol to the server's port; ws:// URLs are the JavaScript"
                  + " client's), was \""
                  + url
                  + "\"");
    }
  }

  @Test
  void backoffMinMustNotExceedMax() {
    assertThatThrownBy(
            () ->
                TablecastClient.builder()
                    .servers("h:1")
                    .reconnectBackoff(Duration.ofSeconds(10), Duration.ofSeconds(1))
                    .build())
        .hasMessage("reconnectBackoff min must be <= max, was PT10S > PT1S");
  }

  @Test
  void otherBadValuesAreNamed() {
    assertThatThrownBy(
            () -> TablecastClient.builder().servers("h:1").connectTimeout(Duration.ZERO).build())
        .hasMessageStartingWith("connectTimeout must be positive")
        .hasMessageEndingWith("was PT0S");
    assertThatThrownBy(() -> TablecastClient.builder().servers("h:1").maxFrameBytes(10).build())
        .hasMessage("maxFrameBytes must be at least 1024, was 10");
    assertThatThrownBy(() -> TablecastClient.builder().servers("h:1").clientName(" ").build())
        .hasMessage("clientName must not be blank, was \" \"");
  }

  @Test
  void tableNameMustNotBeBlank() {
    try (TablecastClient client = TablecastClient.builder().servers("127.0.0.1:1").build()) {
      assertThatThrownBy(() -> client.mirror(" "))
          .hasMessage("table must be a qualified name like schema.table, was \" \"");
    }
  }
}
