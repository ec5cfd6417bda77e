package io.tablecast.server.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** The recorder behind the console's recent errors, and the loggers that feed it. */
class RecentEventsTest {

  /** A backend logger that keeps what it is given; INFO and above are enabled. */
  static final class Backend extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;
    final transient List<String> lines = new ArrayList<>();

    Backend() {
      this.name = "test.Backend";
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(
        Level level, Marker marker, String pattern, Object[] args, Throwable t) {
      lines.add(
          level
              + " "
              + MessageFormatter.basicArrayFormat(pattern, args)
              + (t == null ? "" : " !" + t.getMessage()));
    }

    @Override
    public boolean isTraceEnabled() {
      return false;
    }

    @Override
    public boolean isDebugEnabled() {
      return false;
    }

    @Override
    public boolean isInfoEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return false; // a backend configured to print no ERROR: the console still keeps them
    }
  }

  @Test
  void warnAndErrorLinesAreKeptWithTheirArgumentsAndPassedOnAsTheBackendPrintsThem() {
    RecentEvents events = new RecentEvents(10);
    Backend backend = new Backend();
    RecordingLogger log = new RecordingLogger(backend, events);

    log.info("started {} tables", 3);
    log.debug("not printed {}", 1);
    log.warn("table {} is {}", "public.a", "stale");
    log.error("poll failed", new IllegalStateException("db down"));

    assertThat(log.getName()).isEqualTo("test.Backend");
    assertThat(backend.lines)
        .containsExactly("INFO started 3 tables", "WARN table public.a is stale");
    List<RecentEvents.Event> kept = events.newestFirst();
    assertThat(kept).extracting(RecentEvents.Event::level).containsExactly("ERROR", "WARN");
    assertThat(kept.get(0).message()).isEqualTo("poll failed");
    assertThat(kept.get(0).error()).isEqualTo("java.lang.IllegalStateException: db down");
    assertThat(kept.get(1).message()).isEqualTo("table public.a is stale");
    assertThat(kept.get(1).logger()).isEqualTo("test.Backend");
    assertThat(kept.get(1).thread()).isEqualTo(Thread.currentThread().getName());
    assertThat(events.errors()).isEqualTo(1);
    assertThat(events.warnings()).isEqualTo(1);
  }

  @Test
  void onlyTheLastEventsAreKeptButAllAreCounted() {
    RecentEvents events = new RecentEvents(3);
    for (int i = 1; i <= 5; i++) {
      events.record(new RecentEvents.Event(i, "WARN", "l", "t", "m" + i, null));
    }
    assertThat(events.newestFirst())
        .extracting(RecentEvents.Event::message)
        .containsExactly("m5", "m4", "m3");
    assertThat(events.warnings()).isEqualTo(5);
  }

  @Test
  void aLongMessageIsCut() {
    RecentEvents events = new RecentEvents(1);
    events.record(new RecentEvents.Event(1, "ERROR", "l", "t", "x".repeat(10_000), null));
    assertThat(events.newestFirst().get(0).message())
        .hasSize(RecentEvents.MAX_MESSAGE_CHARS + 1)
        .endsWith("…");
  }

  /**
   * A class that logs a WARN or an ERROR takes its logger from {@link RecentEvents#logger}, so that
   * the console shows the line (a class that logs only INFO or DEBUG may use SLF4J's directly).
   */
  @Test
  void everyServerClassThatLogsWarningsOrErrorsRecordsThem() throws IOException {
    List<String> missing = new ArrayList<>();
    int checked = 0;
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String code = Files.readString(f);
        if (code.contains("LOG.warn(") || code.contains("LOG.error(")) {
          checked++;
          if (code.contains("LoggerFactory.getLogger(") || !code.contains("RecentEvents.logger(")) {
            missing.add(f.toString());
          }
        }
      }
    }
    assertThat(checked).as("classes that log WARN or ERROR").isGreaterThan(20);
    assertThat(missing).as("classes whose WARN/ERROR lines the console would miss").isEmpty();
  }
}
