package io.tablecast.spring.boot;

import java.util.List;

/** {@code tablecast.client.*} keys that no setting reads, each named with where it was set. */
public final class UnknownSettingsException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  UnknownSettingsException(List<String> problems) {
    super(
        (problems.size() == 1
                ? "a tablecast.client key is not a setting: "
                : problems.size() + " tablecast.client keys are not settings: ")
            + String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /** One sentence per unknown key. */
  public List<String> problems() {
    return problems;
  }
}
