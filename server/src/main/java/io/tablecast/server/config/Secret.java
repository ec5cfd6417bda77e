package io.tablecast.server.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.Objects;

/**
 * A configured secret (a token, a password), written in YAML as one string: its {@link #toString()}
 * is {@code (set)}, so a record that holds one can be logged whole.
 */
public final class Secret {

  private final String value;

  private Secret(String value) {
    this.value = Objects.requireNonNull(value, "value");
  }

  /** The secret written as {@code text}; null when it is null or empty (not set). */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static Secret of(String text) {
    return text == null || text.isEmpty() ? null : new Secret(text);
  }

  /** The secret itself; never log it. */
  public String value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Secret s && s.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return "(set)";
  }
}
