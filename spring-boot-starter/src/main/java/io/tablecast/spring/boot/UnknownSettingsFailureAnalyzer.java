package io.tablecast.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains an {@link UnknownSettingsException} in Spring Boot's startup failure report. */
final class UnknownSettingsFailureAnalyzer
    extends AbstractFailureAnalyzer<UnknownSettingsException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, UnknownSettingsException cause) {
    return new FailureAnalysis(
        "Tablecast client settings that no setting reads (a misspelt key would leave its setting at "
            + "the default, or the client unconfigured):\n\n    "
            + String.join("\n    ", cause.problems()),
        "Correct or remove these keys. The tablecast.client.* settings are listed in docs/CLIENT.md "
            + "(Spring Boot) and in your IDE's completion (the starter's configuration metadata).",
        cause);
  }
}
