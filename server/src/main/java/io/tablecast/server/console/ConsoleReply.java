package io.tablecast.server.console;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * One answer of the operations console, independent of the HTTP library that sends it.
 *
 * @param status the HTTP status code
 * @param contentType the {@code Content-Type} header
 * @param body the body's bytes (never modified)
 * @param headers further headers
 */
@SuppressWarnings("ArrayRecordComponent") // the body is handed to the network once, never changed
public record ConsoleReply(
    int status, String contentType, byte[] body, Map<String, String> headers) {

  public ConsoleReply {
    headers = Map.copyOf(headers);
  }

  static final String JSON = "application/json";
  static final String TEXT = "text/plain; charset=utf-8";

  /** A JSON body. */
  static ConsoleReply json(int status, String json) {
    return new ConsoleReply(
        status, JSON, json.getBytes(StandardCharsets.UTF_8), Map.of("Cache-Control", "no-store"));
  }

  /** A plain-text body. */
  static ConsoleReply text(int status, String text, Map<String, String> headers) {
    return new ConsoleReply(status, TEXT, text.getBytes(StandardCharsets.UTF_8), headers);
  }

  /** The same reply with one more header. */
  ConsoleReply withHeader(String name, String value) {
    return withHeaders(Map.of(name, value));
  }

  /** The same reply with more headers (replacing those of the same names). */
  ConsoleReply withHeaders(Map<String, String> more) {
    Map<String, String> h = new HashMap<>(headers);
    h.putAll(more);
    return new ConsoleReply(status, contentType, body, h);
  }
}
