package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a configuration's problems are told: each once, in the file's own keys. */
class ConfigProblemsTest {

  @TempDir Path dir;

  /**
   * {@code cached_table} for {@code cached_tables}: the key meant is named, and the table list's
   * absence is told once. Before, the list of keys expected at the top lacked {@code cached_tables}
   * (the loader moves it into {@code source}), and two more lines followed: Jackson's "Cannot
   * construct instance of `...SourceConfig`" and "source must be set", for a source that was set.
   */
  @Test
  void aMistypedTableListIsToldOnceWithTheKeyMeant() throws Exception {
    Path file = dir.resolve("tablecast.yaml");
    Files.writeString(
        file,
        "source:\n"
            + "  jdbc_url: jdbc:postgresql://127.0.0.1:5432/app\n"
            + "cached_table: [public.countries]\n");
    assertThatThrownBy(() -> ServerConfig.load(file, Map.of()))
        .hasMessage(
            file
                + ": 2 problems in the configuration:"
                + "\n  - unknown configuration key 'cached_table': did you mean 'cached_tables'?"
                + " (expected one of [allowed_origins, auth, cached_tables, handshake_timeout,"
                + " heap_reserve_percent, heartbeat, idle_timeout, listen, max_connections,"
                + " max_frame_bytes, max_subscriptions_per_connection, metrics_token, nats,"
                + " resume_buffer, server_name, slow_consumer, source, static_client_dir,"
                + " static_dir, tls, write_buffer])"
                + "\n  - cached_tables (or TABLECAST_CACHED_TABLES) must name at least one table");
  }

  /**
   * {@code cached_tables} written inside {@code source:} (where the server keeps it): before, the
   * file was told its tables were missing ("cached_tables must name at least one table") for a list
   * of nine; and with a list at the top as well, the one inside {@code source} was cached and the
   * other dropped without a word. Now the key is named with where it goes.
   */
  @Test
  void aTableListInsideTheSourceIsToldWhereItGoes() throws Exception {
    Path file = dir.resolve("tablecast.yaml");
    String source =
        "source:\n"
            + "  jdbc_url: jdbc:postgresql://127.0.0.1:5432/app\n"
            + "  cached_tables: [public.countries, public.cities]\n";
    Files.writeString(file, source);
    String told =
        "source.cached_tables: cached_tables is a key of the file's top level:"
            + " move it out of source:, beside it";
    assertThatThrownBy(() -> ServerConfig.load(file, Map.of())).hasMessage(file + ": " + told);

    Files.writeString(file, source + "cached_tables: [public.countries]\n");
    assertThatThrownBy(() -> ServerConfig.load(file, Map.of())).hasMessage(file + ": " + told);
    assertThatThrownBy(
            () -> ServerConfig.load(file, Map.of("TABLECAST_CACHED_TABLES", "public.cities")))
        .hasMessage(file + ": " + told);

    Files.writeString(file, source + "listen: {port: 70000}\n");
    assertThatThrownBy(() -> ServerConfig.load(file, Map.of()))
        .hasMessageStartingWith(file + ": 2 problems in the configuration:\n  - " + told)
        .hasMessageContaining("listen.port");
  }
}
