package io.tablecast.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The logging of {@code logback.xml} as shipped, set up in code: Logback's XML reader (Joran) took
 * 60-90 ms of every start of a server on this project's machine, a tenth of what comes before the
 * server's own work. Used only where that file would be read unchanged: no {@code
 * -Dlogback.configurationFile}, or one naming a file with exactly the shipped bytes (the
 * distribution's {@code conf/logback.xml} as installed), and no {@code logback-test.xml} on the
 * class path. Any other case, an edited {@code conf/logback.xml} first, goes to Joran as before.
 * {@code ShippedLoggingTest} holds this class to the file: the same loggers, levels, appenders and
 * bytes written, for both settings of {@code TABLECAST_LOG_FORMAT} and {@code TABLECAST_LOG_LEVEL}.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class ShippedLogging extends ContextAwareBase implements Configurator {

  /** The shipped file, in this jar. */
  static final String RESOURCE = "logback.xml";

  /** The system property that names another file (Logback's). */
  static final String FILE_PROPERTY = "logback.configurationFile";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (!shippedFileIsTheConfiguration()) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY; // Joran reads whatever it would have read
    }
    configureAsShipped(context);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /**
   * Whether Logback would read this jar's {@code logback.xml}, or a copy of it, and nothing else.
   */
  static boolean shippedFileIsTheConfiguration() {
    ClassLoader loader = ShippedLogging.class.getClassLoader();
    if (loader.getResource("logback-test.xml") != null) {
      return false;
    }
    try (InputStream in = loader.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return false;
      }
      String file = System.getProperty(FILE_PROPERTY);
      if (file == null) {
        return loader
            .getResource(RESOURCE)
            .equals(ShippedLogging.class.getResource("/" + RESOURCE));
      }
      Path path = Path.of(file);
      return Files.isRegularFile(path)
          && Arrays.equals(Files.readAllBytes(path), in.readAllBytes());
    } catch (IOException | RuntimeException e) {
      return false; // Joran reads it, and says what is wrong with it
    }
  }

  /** What {@code logback.xml} sets up, read from the same settings. */
  static void configureAsShipped(LoggerContext context) {
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("console");
    console.setTarget("System.err");
    console.setEncoder(encoder(context, "json".equals(setting("TABLECAST_LOG_FORMAT"))));
    console.start();
    context.getLogger("com.zaxxer.hikari").setLevel(Level.WARN);
    context.getLogger("io.zonky").setLevel(Level.WARN);
    context.getLogger("org.mariadb.jdbc.message.server.ErrorPacket").setLevel(Level.ERROR);
    String level = setting("TABLECAST_LOG_LEVEL");
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(level == null ? "INFO" : level));
    root.addAppender(console);
  }

  private static Encoder<ILoggingEvent> encoder(LoggerContext context, boolean json) {
    if (json) {
      JsonEncoder encoder = new JsonEncoder();
      encoder.setContext(context);
      encoder.setWithSequenceNumber(false);
      encoder.setWithNanoseconds(false);
      encoder.setWithContext(false);
      encoder.setWithMessage(false);
      encoder.setWithArguments(false);
      encoder.setWithFormattedMessage(true);
      encoder.start();
      return encoder;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    return encoder;
  }

  /** A setting as Logback's {@code ${NAME}} reads it: a system property, else the environment. */
  private static String setting(String name) {
    String value = System.getProperty(name);
    return value != null ? value : System.getenv(name);
  }
}
