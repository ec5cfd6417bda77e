package io.tablecast.server.log;

import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.DefaultLoggingEvent;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LoggingEventAware;

/**
 * An SLF4J logger that passes every line to the backend's logger of the same name and keeps its
 * WARN and ERROR lines in {@link RecentEvents}, also when the backend is configured not to print
 * them. A backend that takes whole events (Logback) is given the frames of SLF4J's {@link
 * AbstractLogger} as the caller boundary, so that a pattern showing the caller's line shows the
 * server's class, not this one.
 */
final class RecordingLogger extends AbstractLogger {

  private static final long serialVersionUID = 1L;

  /** The frames above the caller: SLF4J's own, through which every call here passes. */
  private static final String CALLER_BOUNDARY = AbstractLogger.class.getName();

  private final transient Logger delegate;
  private final transient RecentEvents events;

  RecordingLogger(Logger delegate, RecentEvents events) {
    this.delegate = delegate;
    this.events = events;
    this.name = delegate.getName();
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return CALLER_BOUNDARY;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] args, Throwable error) {
    if (level == Level.WARN || level == Level.ERROR) {
      events.record(
          new RecentEvents.Event(
              System.currentTimeMillis(),
              level.name(),
              name,
              Thread.currentThread().getName(),
              MessageFormatter.basicArrayFormat(pattern, args),
              error == null ? null : error.toString()));
    }
    if (enabledInBackend(level, marker)) {
      forward(level, marker, pattern, args, error);
    }
  }

  private boolean enabledInBackend(Level level, Marker marker) {
    return switch (level) {
      case ERROR -> delegate.isErrorEnabled(marker);
      case WARN -> delegate.isWarnEnabled(marker);
      case INFO -> delegate.isInfoEnabled(marker);
      case DEBUG -> delegate.isDebugEnabled(marker);
      case TRACE -> delegate.isTraceEnabled(marker);
    };
  }

  private void forward(Level level, Marker marker, String pattern, Object[] args, Throwable error) {
    if (delegate instanceof LoggingEventAware aware) {
      DefaultLoggingEvent event = new DefaultLoggingEvent(level, delegate);
      event.setMessage(pattern);
      if (args != null) {
        event.addArguments(args);
      }
      if (marker != null) {
        event.addMarker(marker);
      }
      event.setThrowable(error);
      event.setCallerBoundary(CALLER_BOUNDARY);
      event.setTimeStamp(System.currentTimeMillis());
      aware.log(event);
      return;
    }
    // the public API: the throwable goes last among the arguments, where SLF4J looks for it
    Object[] all = args == null ? new Object[0] : args;
    if (error != null) {
      all = Arrays.copyOf(all, all.length + 1);
      all[all.length - 1] = error;
    }
    switch (level) {
      case ERROR -> delegate.error(marker, pattern, all);
      case WARN -> delegate.warn(marker, pattern, all);
      case INFO -> delegate.info(marker, pattern, all);
      case DEBUG -> delegate.debug(marker, pattern, all);
      case TRACE -> delegate.trace(marker, pattern, all);
    }
  }

  @Override
  public boolean isTraceEnabled() {
    return delegate.isTraceEnabled();
  }

  @Override
  public boolean isTraceEnabled(Marker marker) {
    return delegate.isTraceEnabled(marker);
  }

  @Override
  public boolean isDebugEnabled() {
    return delegate.isDebugEnabled();
  }

  @Override
  public boolean isDebugEnabled(Marker marker) {
    return delegate.isDebugEnabled(marker);
  }

  @Override
  public boolean isInfoEnabled() {
    return delegate.isInfoEnabled();
  }

  @Override
  public boolean isInfoEnabled(Marker marker) {
    return delegate.isInfoEnabled(marker);
  }

  /** Always: WARN lines are recorded whatever the backend prints. */
  @Override
  public boolean isWarnEnabled() {
    return true;
  }

  @Override
  public boolean isWarnEnabled(Marker marker) {
    return true;
  }

  /** Always: ERROR lines are recorded whatever the backend prints. */
  @Override
  public boolean isErrorEnabled() {
    return true;
  }

  @Override
  public boolean isErrorEnabled(Marker marker) {
    return true;
  }
}
