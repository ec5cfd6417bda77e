package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.server.capture.ColumnChoice;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.Units;
import io.tablecast.server.config.WriteBufferSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerConfigTest {

  private static final String EXAMPLE =
      String.join(
          "\n",
          "server_name: tablecast",
          "listen: { host: 0.0.0.0, port: 7070 }",
          "source:",
          "  jdbc_url: jdbc:postgresql://127.0.0.1:5432/app",
          "  user: app",
          "  password: secret",
          "  install_triggers: true",
          "  outbox_retention: 1h",
          "  max_poll_interval: 10ms",
          "cached_tables: [public.countries, public.products]",
          "");

  @TempDir Path dir;

  private Path write(String yaml) throws Exception {
    Path p = dir.resolve("tablecast.yaml");
    Files.writeString(p, yaml);
    return p;
  }

  private static SourceConfig source() {
    return new SourceConfig(
        "jdbc:postgresql://db/app", null, null, List.of("public.a"), false, null, null);
  }

  @Test
  void captureCheckIntervalIsReadDefaultedPerDatabaseFamilyAndValidated() throws Exception {
    ServerConfig c =
        ServerConfig.load(
            write(
                EXAMPLE.replace(
                    "  max_poll_interval: 10ms",
                    "  max_poll_interval: 10ms\n  capture_check_interval: 250ms")),
            Map.of());
    assertThat(c.source().captureCheckInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(
            ServerConfig.load(write(EXAMPLE), Map.of())
                .source()
                .captureCheckInterval()) // PostgreSQL
        .isEqualTo(SourceConfig.DEFAULT_PG_CAPTURE_CHECK_INTERVAL)
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(
            new SourceConfig("jdbc:mariadb://db/app", null, null, List.of("a"), false, null, null)
                .captureCheckInterval())
        .isEqualTo(SourceConfig.DEFAULT_MYSQL_CAPTURE_CHECK_INTERVAL)
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(
            ServerConfig.load(
                    write(
                        EXAMPLE.replace(
                            "  max_poll_interval: 10ms",
                            "  max_poll_interval: 10ms\n  capture_check_interval: 0s")),
                    Map.of())
                .source()
                .captureCheckInterval())
        .isZero();
    assertThatThrownBy(
            () ->
                new SourceConfig(
                    "jdbc:mariadb://db/app",
                    null,
                    null,
                    List.of("a"),
                    false,
                    null,
                    null,
                    null,
                    Duration.ofSeconds(-1)))
        .hasMessageContaining("capture_check_interval")
        .hasMessageContaining("-1");
  }

  @Test
  void answerTimeoutIsReadDefaultedAndValidated() throws Exception {
    ServerConfig c =
        ServerConfig.load(
            write(
                EXAMPLE.replace(
                    "  max_poll_interval: 10ms",
                    "  max_poll_interval: 10ms\n  answer_timeout: 3s")),
            Map.of());
    assertThat(c.source().answerTimeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(c.source().longAnswerTimeout()).isEqualTo(Duration.ofSeconds(9));
    assertThat(ServerConfig.load(write(EXAMPLE), Map.of()).source().answerTimeout())
        .isEqualTo(SourceConfig.DEFAULT_ANSWER_TIMEOUT)
        .isEqualTo(Duration.ofSeconds(10));
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(
                        EXAMPLE.replace(
                            "  max_poll_interval: 10ms",
                            "  max_poll_interval: 10ms\n  answer_timeout: 500ms")),
                    Map.of()))
        .hasMessageContaining("answer_timeout must be at least 1s")
        .hasMessageContaining("PT0.5S");
  }

  @Test
  void documentedExampleLoadsWithDefaultsForTheRest() throws Exception {
    ServerConfig c = ServerConfig.load(write(EXAMPLE), Map.of());
    assertThat(c.serverName()).isEqualTo("tablecast");
    assertThat(c.listen().host()).isEqualTo("0.0.0.0");
    assertThat(c.listen().port()).isEqualTo(7070);
    assertThat(c.source().jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/app");
    assertThat(c.source().user()).isEqualTo("app");
    assertThat(c.source().password()).isEqualTo("secret");
    assertThat(c.source().installTriggers()).isTrue();
    assertThat(c.source().outboxRetention()).isEqualTo(Duration.ofHours(1));
    assertThat(c.source().maxPollInterval()).isEqualTo(Duration.ofMillis(10));
    assertThat(c.source().tableNames()).containsExactly("public.countries", "public.products");
    assertThat(c.heartbeat()).isEqualTo(ServerConfig.DEFAULTS.heartbeat());
    assertThat(c.handshakeTimeout()).isEqualTo(ServerConfig.DEFAULTS.handshakeTimeout());
    assertThat(c.maxFrameBytes()).isEqualTo(ServerConfig.DEFAULTS.maxFrameBytes());
    assertThat(c.resumeBuffer().batches()).isEqualTo(100_000);
    assertThat(c.slowConsumer().maxPendingBytes()).isEqualTo(64L << 20);
    assertThat(c.toString()).doesNotContain("secret");
  }

  @Test
  void everyTunableKeyIsRead() throws Exception {
    ServerConfig c =
        ServerConfig.load(
            write(
                EXAMPLE
                    + String.join(
                        "\n",
                        "heartbeat: 500ms",
                        "handshake_timeout: 5s",
                        "max_frame_bytes: 2MiB",
                        "resume_buffer: { batches: 10, bytes: 1GiB }",
                        "write_buffer: { low_water_mark: 64KiB, high_water_mark: 128KiB }",
                        "slow_consumer_max_pending_bytes: 8MiB",
                        "")),
            Map.of());
    assertThat(c.heartbeat()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.handshakeTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.maxFrameBytes()).isEqualTo(2 << 20);
    assertThat(c.resumeBuffer().batches()).isEqualTo(10);
    assertThat(c.resumeBuffer().bytes()).isEqualTo(1L << 30);
    assertThat(c.writeBuffer().lowWaterMark()).isEqualTo(64 << 10);
    assertThat(c.writeBuffer().highWaterMark()).isEqualTo(128 << 10);
    assertThat(c.slowConsumer().maxPendingBytes()).isEqualTo(8L << 20);
  }

  @Test
  void limitsAndSlowConsumerKeysAreReadAndDefaultWhenAbsent() throws Exception {
    ServerConfig defaults = ServerConfig.load(write(EXAMPLE), Map.of());
    assertThat(defaults.idleTimeout())
        .isEqualTo(ServerConfig.DEFAULTS.idleTimeout())
        .isEqualTo(Duration.ofSeconds(60));
    assertThat(defaults.maxConnections())
        .isEqualTo(ServerConfig.DEFAULTS.maxConnections())
        .isEqualTo(10_000);
    assertThat(defaults.maxSubscriptionsPerConnection()).isEqualTo(100);
    assertThat(defaults.slowConsumer().coalesceMaxKeys()).isEqualTo(100_000);
    assertThat(defaults.slowConsumer().coalesceMaxBytes()).isEqualTo(16L << 20);
    assertThat(defaults.slowConsumer().snapshotTimeout()).isEqualTo(Duration.ofMinutes(5));

    ServerConfig c =
        ServerConfig.load(
            write(
                EXAMPLE
                    + String.join(
                        "\n",
                        "idle_timeout: 90s",
                        "max_connections: 500",
                        "max_subscriptions_per_connection: 7",
                        "slow_consumer:",
                        "  max_pending_bytes: 16MiB",
                        "  coalesce_max_keys: 5000",
                        "  coalesce_max_bytes: 2MiB",
                        "  snapshot_timeout: 30s",
                        "")),
            Map.of());
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(c.maxConnections()).isEqualTo(500);
    assertThat(c.maxSubscriptionsPerConnection()).isEqualTo(7);
    assertThat(c.slowConsumer().maxPendingBytes()).isEqualTo(16L << 20);
    assertThat(c.slowConsumer().coalesceMaxKeys()).isEqualTo(5000);
    assertThat(c.slowConsumer().coalesceMaxBytes()).isEqualTo(2L << 20);
    assertThat(c.slowConsumer().snapshotTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
  }

  @Test
  void badLimitsAreNamed() throws Exception {
    assertThatThrownBy(() -> ServerConfig.load(write(EXAMPLE + "idle_timeout: 0s\n"), Map.of()))
        .hasMessageContaining("idle_timeout must be a positive duration");
    assertThatThrownBy(
            () -> ServerConfig.load(write(EXAMPLE + "heartbeat: 5s\nidle_timeout: 2s\n"), Map.of()))
        .hasMessageContaining("idle_timeout must be at least the heartbeat");
    assertThatThrownBy(() -> ServerConfig.load(write(EXAMPLE + "max_connections: 0\n"), Map.of()))
        .hasMessageContaining("max_connections must be at least 1, was 0");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(EXAMPLE + "max_subscriptions_per_connection: 0\n"), Map.of()))
        .hasMessageContaining("max_subscriptions_per_connection must be at least 1, was 0");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(EXAMPLE + "slow_consumer: { coalesce_max_keys: -1 }\n"), Map.of()))
        .hasMessageContaining("slow_consumer.coalesce_max_keys must be at least 0");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(EXAMPLE + "slow_consumer: { coalesce_max_bytes: 100 }\n"), Map.of()))
        .hasMessageContaining("slow_consumer.coalesce_max_bytes must be at least 1024, was 100");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(EXAMPLE + "slow_consumer: { snapshot_timeout: 0s }\n"), Map.of()))
        .hasMessageContaining("slow_consumer.snapshot_timeout must be a positive duration");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(EXAMPLE + "slow_consumer: { max_pending_bytes: 1KiB }\n"), Map.of()))
        .hasMessageContaining("max_pending_bytes must be at least")
        .hasMessageContaining("(write_buffer.high_water_mark)");
    assertThatThrownBy(
            () -> ServerConfig.load(write(EXAMPLE + "slow_consumer: { speed: 1 }\n"), Map.of()))
        .hasMessageContaining("unknown configuration key 'slow_consumer.speed'");
  }

  @Test
  void environmentOverridesTheFile() throws Exception {
    ServerConfig c =
        ServerConfig.load(
            write(EXAMPLE),
            Map.of(
                "TABLECAST_JDBC_URL", "jdbc:mariadb://10.0.0.1:3306/shop",
                "TABLECAST_DB_USER", "shop",
                "TABLECAST_DB_PASSWORD", "pw2",
                "TABLECAST_CACHED_TABLES", "shop.a, shop.b,",
                "TABLECAST_LISTEN_HOST", "127.0.0.1",
                "TABLECAST_LISTEN_PORT", "9000",
                "TABLECAST_INSTALL_TRIGGERS", "false"));
    assertThat(c.source().jdbcUrl()).isEqualTo("jdbc:mariadb://10.0.0.1:3306/shop");
    assertThat(c.source().user()).isEqualTo("shop");
    assertThat(c.source().password()).isEqualTo("pw2");
    assertThat(c.source().tableNames()).containsExactly("shop.a", "shop.b");
    assertThat(c.listen().host()).isEqualTo("127.0.0.1");
    assertThat(c.listen().port()).isEqualTo(9000);
    assertThat(c.source().installTriggers()).isFalse();
  }

  @Test
  void environmentAloneIsEnoughWithAnEmptyFile() throws Exception {
    ServerConfig c =
        ServerConfig.load(
            write(""),
            Map.of(
                "TABLECAST_JDBC_URL",
                "jdbc:postgresql://db/app",
                "TABLECAST_CACHED_TABLES",
                "public.t"));
    assertThat(c.source().tableNames()).containsExactly("public.t");
    assertThat(c.listen().port()).isEqualTo(ServerConfig.DEFAULTS.listen().port());
  }

  @Test
  void metricsTokenFromTheFileOrTheEnvironmentIsKeptOutOfLogs() throws Exception {
    assertThat(ServerConfig.load(write(EXAMPLE), Map.of()).metricsToken())
        .as("open by default")
        .isNull();
    ServerConfig fromFile =
        ServerConfig.load(write(EXAMPLE + "metrics_token: file-token-0123456789\n"), Map.of());
    assertThat(fromFile.metricsToken().value()).isEqualTo("file-token-0123456789");
    assertThat(fromFile.toString())
        .contains("metricsToken=(set)")
        .doesNotContain("file-token-0123456789");
    assertThat(fromFile.toBuilder().build().metricsToken().value())
        .isEqualTo("file-token-0123456789");
    ServerConfig fromEnv =
        ServerConfig.load(
            write(EXAMPLE + "metrics_token: file-token-0123456789\n"),
            Map.of("TABLECAST_METRICS_TOKEN", "env-token-0123456789"));
    assertThat(fromEnv.metricsToken().value())
        .as("the environment wins")
        .isEqualTo("env-token-0123456789");
    assertThatThrownBy(() -> ServerConfig.load(write(EXAMPLE + "metrics_token: short\n"), Map.of()))
        .hasMessageContaining("metrics_token must be at least 16 characters")
        .hasMessageContaining("was 5")
        .message()
        .doesNotContain("short");
  }

  @Test
  void cachedTablesEntriesMayChooseColumns() throws Exception {
    ServerConfig c =
        ServerConfig.load(
            write(
                EXAMPLE.replace(
                    "cached_tables: [public.countries, public.products]",
                    String.join(
                        "\n",
                        "cached_tables:",
                        "  - public.countries",
                        "  - { table: public.products, columns: [id, name, price] }",
                        "  - table: public.users",
                        "    exclude_columns: [password_hash, avatar]"))),
            Map.of());
    assertThat(c.source().tableNames())
        .containsExactly("public.countries", "public.products", "public.users");
    assertThat(c.source().columnChoice("public.countries")).isEqualTo(ColumnChoice.ALL);
    assertThat(c.source().columnChoice("public.products").columns())
        .containsExactly("id", "name", "price");
    assertThat(c.source().columnChoice("public.users").excludeColumns())
        .containsExactly("password_hash", "avatar");
    assertThat(c.source().columnChoice("public.users").includes("password_hash")).isFalse();

    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(
                        EXAMPLE.replace(
                            "[public.countries, public.products]",
                            "[{ table: public.t, columns: [a], exclude_columns: [b] }]")),
                    Map.of()))
        .hasMessageContaining("cached_tables[0]")
        .hasMessageContaining("not both");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(
                        EXAMPLE.replace(
                            "[public.countries, public.products]",
                            "[public.a, { table: public.t, exclude: [b] }]")),
                    Map.of()))
        .hasMessageContaining("cached_tables[1].exclude");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(
                        EXAMPLE.replace(
                            "[public.countries, public.products]", "[{ columns: [a] }]")),
                    Map.of()))
        .hasMessageContaining("cached_tables[0] must name its table");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(
                        EXAMPLE.replace(
                            "[public.countries, public.products]",
                            "[{ table: public.t, exclude_columns: [] }]")),
                    Map.of()))
        .hasMessageContaining("cached_tables[0].exclude_columns must be a non-empty list");
  }

  /**
   * Every problem of a file at once, a mistyped key with the key meant: a file with a section spelt
   * {@code sorce} was refused as "source.jdbc_url must be set", and once that was mended, for the
   * next problem, one start at a time.
   */
  @Test
  void everyProblemOfAFileIsNamedAtOnceAndAMistypedKeyWithTheKeyMeant() throws Exception {
    Path p =
        write(
            String.join(
                "\n",
                "listen: { host: 0.0.0.0, port: 99999 }",
                "heartbeat: 5 seconds",
                "sorce:",
                "  jdbc_url: jdbc:postgresql://127.0.0.1:5432/app",
                "slow_consumer: { coalesce_max_key: 10 }",
                "cached_tables: [public.countries]",
                ""));
    assertThatThrownBy(() -> ServerConfig.load(p, Map.of()))
        .hasMessage(
            p
                + ": 5 problems in the configuration:"
                + "\n  - unknown configuration key 'slow_consumer.coalesce_max_key': did you mean"
                + " 'slow_consumer.coalesce_max_keys'? (expected one of [coalesce_max_bytes,"
                + " coalesce_max_keys, max_pending_bytes, snapshot_timeout])"
                + "\n  - unknown configuration key 'sorce': did you mean 'source'? (expected one of"
                + " [allowed_origins, auth, cached_tables, handshake_timeout, heap_reserve_percent, heartbeat,"
                + " idle_timeout, listen,"
                + " max_connections, max_frame_bytes, max_subscriptions_per_connection,"
                + " metrics_token, nats, resume_buffer, server_name, slow_consumer, source,"
                + " static_client_dir, static_dir, tls, write_buffer])"
                + "\n  - source.jdbc_url (or TABLECAST_JDBC_URL) must be set"
                + "\n  - heartbeat must be a duration like 500ms, 10s, 5m, 1h or 1d, was '5 seconds'"
                + "\n  - listen.port must be 0..65535 (0 = any free port), was 99999");
  }

  /** The auth section, read by its own reader, names a mistyped key with the key meant too. */
  @Test
  void aMistypedAuthKeyIsNamedWithTheKeyMeant() throws Exception {
    Path p = write(EXAMPLE + "auth:\n  principles: []\n");
    assertThatThrownBy(() -> ServerConfig.load(p, Map.of()))
        .hasMessageContaining(
            "unknown configuration key 'auth.principles': did you mean 'auth.principals'?");
  }

  @Test
  void unknownKeyIsNamed() throws Exception {
    Path p = write(EXAMPLE + "heartbeet: 1s\n");
    assertThatThrownBy(() -> ServerConfig.load(p, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown configuration key 'heartbeet'")
        .hasMessageContaining(p.toString());
    Path nested = write(EXAMPLE.replace("  user: app", "  usr: app"));
    assertThatThrownBy(() -> ServerConfig.load(nested, Map.of()))
        .hasMessageContaining("'source.usr'");
  }

  @Test
  void badValuesAreNamed() throws Exception {
    assertThatThrownBy(
            () -> ServerConfig.load(write(EXAMPLE.replace("port: 7070", "port: 70000")), Map.of()))
        .hasMessageContaining("listen.port must be 0..65535")
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> ServerConfig.load(write(EXAMPLE + "heartbeat: soon\n"), Map.of()))
        .hasMessageContaining("heartbeat must be a duration")
        .hasMessageContaining("'soon'");
    assertThatThrownBy(
            () -> ServerConfig.load(write(EXAMPLE + "max_frame_bytes: lots\n"), Map.of()))
        .hasMessageContaining("max_frame_bytes must be a byte count");
    assertThatThrownBy(
            () -> ServerConfig.load(write(EXAMPLE), Map.of("TABLECAST_LISTEN_PORT", "x")))
        .hasMessageContaining("TABLECAST_LISTEN_PORT")
        .hasMessageContaining("'x'");
    assertThatThrownBy(
            () ->
                ServerConfig.load(
                    write(EXAMPLE.replace("jdbc:postgresql", "jdbc:oracle")), Map.of()))
        .hasMessageContaining("jdbc:oracle");
    assertThatThrownBy(() -> ServerConfig.load(write("server_name: x\n"), Map.of()))
        .hasMessageContaining("jdbc_url");
  }

  @Test
  void builderValidatesInBuild() {
    assertThatThrownBy(() -> ServerConfig.builder().source(source()).set("listen.port", -1).build())
        .hasMessage("listen.port must be 0..65535 (0 = any free port), was -1");
    assertThatThrownBy(
            () -> ServerConfig.builder().source(source()).set("heartbeat", Duration.ZERO).build())
        .hasMessageContaining("heartbeat must be a positive duration, was PT0S");
    assertThatThrownBy(
            () ->
                ServerConfig.builder()
                    .source(source())
                    .set("write_buffer", new WriteBufferSettings(100, 50))
                    .build())
        .hasMessageContaining("high_water_mark")
        .hasMessageContaining("50");
    assertThatThrownBy(() -> ServerConfig.builder().build())
        .hasMessageContaining("source must be set");
    ServerConfig c = ServerConfig.builder().source(source()).listen("127.0.0.1", 0).build();
    assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
  }

  @Test
  void builderSettingsAreTheYamlKeysAndAnUnknownOneIsNamedWithItsPath() {
    assertThatThrownBy(
            () ->
                ServerConfig.builder()
                    .source(source())
                    .set("slow_consumer.coalesce_max_key", 1)
                    .build())
        .hasMessageContaining("unknown configuration key 'slow_consumer.coalesce_max_key'")
        .hasMessageContaining("coalesce_max_keys");
    ServerConfig c =
        ServerConfig.builder()
            .source(source())
            .set("slow_consumer.coalesce_max_keys", 7)
            .build()
            .toBuilder()
            .set("slow_consumer.snapshot_timeout", "30s")
            .build();
    assertThat(c.slowConsumer().coalesceMaxKeys()).isEqualTo(7);
    assertThat(c.slowConsumer().snapshotTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.slowConsumer().maxPendingBytes())
        .isEqualTo(ServerConfig.DEFAULTS.slowConsumer().maxPendingBytes());
  }

  @Test
  void durationsAcceptUnitsAndIso() {
    assertThat(Units.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Units.parseDuration("2d")).isEqualTo(Duration.ofDays(2));
    assertThat(Units.parseDuration("PT3S")).isEqualTo(Duration.ofSeconds(3));
    assertThatThrownBy(() -> Units.parseDuration("10")).hasMessageContaining("like 500ms");
  }
}
