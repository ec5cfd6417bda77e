package io.tablecast.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/**
 * Logging of the client-side commands ({@code watch}, {@code dump}): their standard error carries
 * what needs a look, not the client library's account of every connection and snapshot, which
 * {@link ConnectionReport} condenses into a line per change of state. The library's loggers
 * ({@value #CLIENT_LOGGERS}) are set to WARN when the logging is as shipped ({@link
 * ShippedLogging}) and {@code TABLECAST_LOG_LEVEL} is not set; {@code TABLECAST_LOG_LEVEL=INFO}
 * brings their lines back, and an edited {@code logback.xml} is left as written. The commands' own
 * progress lines stay.
 */
final class CommandLogging {

  /** The client library's loggers. */
  static final String CLIENT_LOGGERS = "io.tablecast.client";

  private CommandLogging() {}

  static void quietClientLibrary() {
    if (System.getProperty("TABLECAST_LOG_LEVEL") == null
        && System.getenv("TABLECAST_LOG_LEVEL") == null
        // another SLF4J backend (one embedding the command line): no Logback class is touched
        && "ch.qos.logback.classic.LoggerContext"
            .equals(LoggerFactory.getILoggerFactory().getClass().getName())
        && ShippedLogging.shippedFileIsTheConfiguration()) {
      ((LoggerContext) LoggerFactory.getILoggerFactory())
          .getLogger(CLIENT_LOGGERS)
          .setLevel(Level.WARN);
    }
  }
}
