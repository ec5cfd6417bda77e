package io.tablecast.server.postgresql;

import io.tablecast.server.capture.DatabaseFamily;
import io.tablecast.server.capture.Dialect;
import io.tablecast.server.capture.SourceConfig;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL 13 and later ({@code pg_current_snapshot} and {@code xid8}). Registered in {@code
 * META-INF/services/io.tablecast.server.capture.DatabaseFamily}.
 */
public final class PgFamily implements DatabaseFamily {

  @Override
  public List<String> urlPrefixes() {
    return List.of("jdbc:postgresql:");
  }

  /** {@link SourceConfig#DEFAULT_PG_CAPTURE_CHECK_INTERVAL}. */
  @Override
  public Duration defaultCaptureCheckInterval() {
    return SourceConfig.DEFAULT_PG_CAPTURE_CHECK_INTERVAL;
  }

  /**
   * pgjdbc's {@code loginTimeout} (whole seconds, rounded up): its {@code connectTimeout} bounds
   * only the TCP connect, and a database that accepts the connection but answers nothing held the
   * login for ever (or for {@code sslResponseTimeout}'s 5 s, where SSL is tried first).
   */
  @Override
  public Map<String, String> connectBounds(Duration within) {
    long seconds = Math.max(1, (within.toMillis() + 999) / 1000);
    return Map.of("loginTimeout", Long.toString(seconds));
  }

  @Override
  public Dialect detect(Connection c) {
    return PgDialect.INSTANCE;
  }
}
