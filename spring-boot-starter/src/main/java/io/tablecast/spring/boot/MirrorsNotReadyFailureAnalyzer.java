package io.tablecast.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a {@link MirrorsNotReadyException} in Spring Boot's startup failure report. */
final class MirrorsNotReadyFailureAnalyzer
    extends AbstractFailureAnalyzer<MirrorsNotReadyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, MirrorsNotReadyException cause) {
    return new FailureAnalysis(
        cause.getMessage(),
        "Check that tablecast.client.servers reach a Tablecast server that caches these tables (its "
            + "cached_tables) and lets this client read them (auth.access), and that the table names are "
            + "schema.table; or give the first snapshots more time with tablecast.client.ready-timeout.",
        cause);
  }
}
