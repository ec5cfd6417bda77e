package io.tablecast.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;

/**
 * The logback.xml of bin/tablecast (conf/logback.xml in the distribution): text lines by default,
 * one JSON object per line with TABLECAST_LOG_FORMAT=json, the level from TABLECAST_LOG_LEVEL,
 * everything on standard error. Each test runs on the file read by Logback's XML reader and on
 * {@link ShippedLogging}, which sets up the same in code where the file is the shipped one.
 */
class LoggingConfigTest {

  /** The two ways the shipped logging is set up. */
  enum Setup {
    XML_FILE,
    IN_CODE;

    LoggerContext configure() throws Exception {
      LoggerContext context = new LoggerContext();
      context.setMDCAdapter(new LogbackMDCAdapter());
      if (this == XML_FILE) {
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LoggingConfigTest.class.getResource("/logback.xml"));
      } else {
        ShippedLogging.configureAsShipped(context);
      }
      return context;
    }
  }

  /**
   * Configures a fresh Logback as {@code setup} does, with {@code properties} as system properties
   * (where both read TABLECAST_LOG_*, before the environment), logs, returns standard error.
   */
  private static String logWith(Setup setup, Map<String, String> properties) throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    properties.forEach(System::setProperty);
    LoggerContext context = null;
    try {
      context = setup.configure();
      Logger log = context.getLogger("io.tablecast.server.TablecastServer");
      log.debug("hidden at INFO");
      log.info("started on {} with \"quotes\"\nand a second line", "127.0.0.1:7070");
      log.error("could not read a row", new IllegalStateException("bad row"));
      context.getLogger("com.zaxxer.hikari.HikariDataSource").info("pool lifecycle, kept quiet");
      context
          .getLogger("org.mariadb.jdbc.message.server.ErrorPacket")
          .warn("Error: 1205-HY000: Lock wait timeout exceeded; try restarting transaction");
    } finally {
      if (context != null) {
        context.stop();
      }
      properties.keySet().forEach(System::clearProperty);
      System.setErr(err);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void textByDefaultOneEventPerLineWithLevelAndLogger(Setup setup) throws Exception {
    String out = logWith(setup, Map.of());
    assertThat(out)
        .containsPattern(
            "(?m)^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[[^]]+\\] "
                + "\\S*TablecastServer - started on 127\\.0\\.0\\.1:7070")
        .contains("ERROR", "could not read a row", "java.lang.IllegalStateException: bad row")
        .doesNotContain(
            "hidden at INFO", "pool lifecycle", "Lock wait timeout", "|-INFO", "|-WARN");
  }

  @ParameterizedTest
  @EnumSource(Setup.class)
  void jsonLinesForLogShippers(Setup setup) throws Exception {
    String out = logWith(setup, Map.of("TABLECAST_LOG_FORMAT", "json"));
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

  @ParameterizedTest
  @EnumSource(Setup.class)
  void theLevelComesFromTablecastLogLevel(Setup setup) throws Exception {
    String out = logWith(setup, Map.of("TABLECAST_LOG_LEVEL", "DEBUG"));
    assertThat(out).contains("hidden at INFO");
    out = logWith(setup, Map.of("TABLECAST_LOG_LEVEL", "WARN"));
    assertThat(out).doesNotContain("started on").contains("could not read a row");
  }

  /**
   * The set-up's loggers with a level, its root's appenders and the bytes each writes of events.
   */
  private static String described(Setup setup, Map<String, String> properties) throws Exception {
    properties.forEach(System::setProperty);
    LoggerContext context = setup.configure();
    try {
      StringBuilder out = new StringBuilder();
      for (ch.qos.logback.classic.Logger logger : context.getLoggerList()) {
        if (logger.getLevel() != null) {
          out.append(logger.getName()).append('=').append(logger.getLevel()).append('\n');
        }
      }
      ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
      for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
        Appender<ILoggingEvent> appender = it.next();
        out.append(appender.getName()).append(' ').append(appender.getClass().getName());
        ConsoleAppender<ILoggingEvent> console = (ConsoleAppender<ILoggingEvent>) appender;
        out.append(' ').append(console.getTarget()).append(' ').append(console.isStarted());
        out.append('\n').append(new String(written(console, root), StandardCharsets.UTF_8));
      }
      return out.toString();
    } finally {
      context.stop();
      properties.keySet().forEach(System::clearProperty);
    }
  }

  /** One throwable for both set-ups: the same stack trace printed. */
  private static final IllegalStateException BAD_ROW = new IllegalStateException("bad row");

  private static byte[] written(ConsoleAppender<ILoggingEvent> console, Logger logger) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (Level level : List.of(Level.INFO, Level.ERROR)) {
      LoggingEvent event =
          new LoggingEvent(
              LoggingConfigTest.class.getName(),
              (ch.qos.logback.classic.Logger) logger,
              level,
              "started on {} with \"quotes\"\nand a second line",
              level == Level.ERROR ? BAD_ROW : null,
              new Object[] {"127.0.0.1:7070"});
      event.setTimeStamp(1_795_643_281_098L);
      event.setThreadName("tablecast-tail");
      bytes.writeBytes(console.getEncoder().encode(event));
    }
    return bytes.toByteArray();
  }

  @Test
  void theLoggingSetUpInCodeIsTheShippedFilesForEverySetting() throws Exception {
    int compared = 0;
    for (String format : Arrays.asList(null, "json", "text", "JSON")) {
      for (String level : Arrays.asList(null, "DEBUG", "WARN", "TRACE", "off", "loud")) {
        Map<String, String> properties = new HashMap<>();
        if (format != null) {
          properties.put("TABLECAST_LOG_FORMAT", format);
        }
        if (level != null) {
          properties.put("TABLECAST_LOG_LEVEL", level);
        }
        assertThat(described(Setup.IN_CODE, properties))
            .as("TABLECAST_LOG_FORMAT=%s TABLECAST_LOG_LEVEL=%s", format, level)
            .isEqualTo(described(Setup.XML_FILE, properties))
            .contains("com.zaxxer.hikari=WARN", "console ch.qos.logback.core.ConsoleAppender");
        compared++;
      }
    }
    assertThat(compared).isEqualTo(24);
  }

  @Test
  void onlyTheShippedFileUnchangedIsSetUpInCode(@TempDir Path dir) throws Exception {
    byte[] shipped;
    try (InputStream in = LoggingConfigTest.class.getResourceAsStream("/logback.xml")) {
      shipped = in.readAllBytes();
    }
    Path copy = Files.write(dir.resolve("logback.xml"), shipped);
    String edited =
        new String(shipped, StandardCharsets.UTF_8).replace("level=\"WARN\"", "level=\"INFO\"");
    Path changed = Files.writeString(dir.resolve("edited.xml"), edited);
    assertThat(ShippedLogging.shippedFileIsTheConfiguration()).isTrue(); // the jar's own
    Map<Path, Boolean> named =
        Map.of(copy, true, changed, false, dir.resolve("missing.xml"), false, dir, false);
    named.forEach(
        (file, inCode) -> {
          System.setProperty(ShippedLogging.FILE_PROPERTY, file.toString());
          try {
            assertThat(ShippedLogging.shippedFileIsTheConfiguration())
                .as("%s", file)
                .isEqualTo(inCode);
          } finally {
            System.clearProperty(ShippedLogging.FILE_PROPERTY);
          }
        });
  }
}
