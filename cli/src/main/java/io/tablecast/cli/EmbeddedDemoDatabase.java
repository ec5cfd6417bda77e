package io.tablecast.cli;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;

/**
 * The demo's embedded PostgreSQL (zonky's binaries, ~75 MB for four platforms). An optional
 * dependency: present in the source tree's {@code tablecast.jar} and the distribution's {@code
 * -with-demo} tarball, absent from the server's tarball; {@link #available()} tells, and only this
 * class names zonky's types, so the demo loads without them.
 */
final class EmbeddedDemoDatabase implements AutoCloseable {
  static final String USER = "postgres";
  private static final String ZONKY = "io.zonky.test.db.postgres.embedded.EmbeddedPostgres";

  private final EmbeddedPostgres postgres;

  private EmbeddedDemoDatabase(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /** Whether the embedded PostgreSQL is on the class path. */
  static boolean available() {
    try {
      Class.forName(ZONKY, false, EmbeddedDemoDatabase.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Unpacks and starts PostgreSQL on a free port (a few seconds). */
  static EmbeddedDemoDatabase start() throws IOException {
    return new EmbeddedDemoDatabase(EmbeddedPostgres.builder().start());
  }

  String jdbcUrl() {
    return postgres.getJdbcUrl(USER, "postgres");
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
