package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The logback.xml of bin/tablecast (conf/logback.xml in the distribution): text lines by default,
 * one JSON object per line with TABLECAST_LOG_FORMAT=json, the level from TABLECAST_LOG_LEVEL,
 * everything on standard error.
 */
class LoggingConfigTest {

  /** Configures a fresh Logback from the built-in logback.xml, logs, returns standard error. */
  private static String logWith(Map<String, String> properties) throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    try {
      properties.forEach(context::putProperty);
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(LoggingConfigTest.class.getResource("/logback.xml"));
      Logger log = context.getLogger("io.tablecast.server.TablecastServer");
      log.debug("hidden at INFO");
      log.info("started on {} with \"quotes\"\nand a second line", "127.0.0.1:7070");
      log.error("could not read a row", new IllegalStateException("bad row"));
      context.getLogger("com.zaxxer.hikari.HikariDataSource").info("pool lifecycle, kept quiet");
    } finally {
      context.stop();
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @Test
  void textByDefaultOneEventPerLineWithLevelAndLogger() throws Exception {
    String out = logWith(Map.of());
    assertThat(out)
        .containsPattern(
            "(?m)^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[[^]]+\\] "
                + "\\S*TablecastServer - started on 127\\.0\\.0\\.1:7070")
        .contains("ERROR", "could not read a row", "java.lang.IllegalStateException: bad row")
        .doesNotContain("hidden at INFO", "pool lifecycle", "|-INFO", "|-WARN");
  }

  @Test
  void jsonLinesForLogShippers() throws Exception {
    String out = logWith(Map.of("TABLECAST_LOG_FORMAT", "json"));
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> events = new ArrayList<>();
    for (String line : out.split("\n", -1)) {
      if (!line.isEmpty()) {
        events.add(json.readTree(line));
      }
    }
    assertThat(events).hasSize(2);
    JsonNode started = events.get(0);
    assertThat(started.get("level").asText()).isEqualTo("INFO");
    assertThat(started.get("loggerName").asText()).isEqualTo("io.tablecast.server.TablecastServer");
    assertThat(started.get("formattedMessage").asText())
        .isEqualTo("started on 127.0.0.1:7070 with \"quotes\"\nand a second line");
    assertThat(started.get("timestamp").asLong()).isPositive();
    JsonNode error = events.get(1);
    assertThat(error.get("level").asText()).isEqualTo("ERROR");
    assertThat(error.get("throwable").toString()).contains("IllegalStateException", "bad row");
  }

  @Test
  void theLevelComesFromTablecastLogLevel() throws Exception {
    String out = logWith(Map.of("TABLECAST_LOG_LEVEL", "DEBUG"));
    assertThat(out).contains("hidden at INFO");
    out = logWith(Map.of("TABLECAST_LOG_LEVEL", "WARN"));
    assertThat(out).doesNotContain("started on").contains("could not read a row");
  }
}
