package io.tablecast.server.postgresql;

import io.tablecast.server.capture.DatabaseFamily;
import io.tablecast.server.capture.Dialect;
import io.tablecast.server.capture.SourceConfig;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;

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

  @Override
  public Dialect detect(Connection c) {
    return PgDialect.INSTANCE;
  }
}
