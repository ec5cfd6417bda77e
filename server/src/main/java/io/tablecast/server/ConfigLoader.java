package io.tablecast.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.tablecast.server.capture.ColumnChoice;
import io.tablecast.server.capture.SourceConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@link ServerConfig} from YAML and {@code TABLECAST_*} environment variables. */
final class ConfigLoader {

  static final String ENV_JDBC_URL = "TABLECAST_JDBC_URL";
  static final String ENV_DB_USER = "TABLECAST_DB_USER";
  static final String ENV_DB_PASSWORD = "TABLECAST_DB_PASSWORD";
  static final String ENV_CACHED_TABLES = "TABLECAST_CACHED_TABLES";
  static final String ENV_LISTEN_HOST = "TABLECAST_LISTEN_HOST";
  static final String ENV_LISTEN_PORT = "TABLECAST_LISTEN_PORT";
  static final String ENV_INSTALL_TRIGGERS = "TABLECAST_INSTALL_TRIGGERS";
  static final String ENV_STATIC_DIR = "TABLECAST_STATIC_DIR";
  static final String ENV_STATIC_CLIENT_DIR = "TABLECAST_STATIC_CLIENT_DIR";
  static final String ENV_TLS_CERT_CHAIN = "TABLECAST_TLS_CERT_CHAIN";
  static final String ENV_TLS_PRIVATE_KEY = "TABLECAST_TLS_PRIVATE_KEY";
  static final String ENV_METRICS_TOKEN = "TABLECAST_METRICS_TOKEN";
  private static final Set<String> TLS_KEYS = Set.of("cert_chain", "private_key", "client_ca", "client_auth",
      "allow_plaintext");

  private static final Set<String> TOP_KEYS = Set.of("server_name", "listen", "source", "cached_tables",
      "heartbeat", "handshake_timeout", "max_frame_bytes", "resume_buffer", "write_buffer",
      "slow_consumer_max_pending_bytes", "static_dir", "static_client_dir", "tls",
      "slow_consumer", "idle_timeout", "max_subscriptions_per_connection", "max_connections", "auth",
      "metrics_token");
  private static final Set<String> SLOW_CONSUMER_KEYS = Set.of("max_pending_bytes", "coalesce_max_keys",
      "coalesce_max_bytes", "snapshot_timeout");
  private static final Set<String> LISTEN_KEYS = Set.of("host", "port");
  private static final Set<String> SOURCE_KEYS = Set.of("jdbc_url", "user", "password", "install_triggers",
      "outbox_retention", "max_poll_interval",
      "reconcile_interval", "capture_check_interval");
  private static final Set<String> CACHED_TABLE_KEYS = Set.of("table", "columns", "exclude_columns");
  private static final Set<String> RESUME_KEYS = Set.of("batches", "bytes");
  private static final Set<String> WRITE_BUFFER_KEYS = Set.of("low_water_mark", "high_water_mark");

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB)?");

  private ConfigLoader() {}

  static ServerConfig load(Path file, Map<String, String> env) throws IOException {
    String text = Files.readString(file);
    try {
      return parse(text, env);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  static ServerConfig parse(String yaml, Map<String, String> env) {
    JsonNode root;
    try {
      root = new YAMLMapper().readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not valid YAML: " + e.getOriginalMessage(), e);
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      root = YAMLMapper.builder().build().createObjectNode();
    }
    checkKeys(root, TOP_KEYS, "");
    ServerConfig.Builder b = ServerConfig.builder();
    if (has(root, "server_name")) {
      b.serverName(text(root.get("server_name"), "server_name"));
    }
    JsonNode listen = root.get("listen");
    if (listen != null && !listen.isNull()) {
      checkKeys(listen, LISTEN_KEYS, "listen.");
      if (has(listen, "host")) {
        b.listenHost(text(listen.get("host"), "listen.host"));
      }
      if (has(listen, "port")) {
        b.listenPort(integer(listen.get("port"), "listen.port"));
      }
    }
    if (has(root, "heartbeat")) {
      b.heartbeat(duration(root.get("heartbeat"), "heartbeat"));
    }
    if (has(root, "handshake_timeout")) {
      b.handshakeTimeout(duration(root.get("handshake_timeout"), "handshake_timeout"));
    }
    if (has(root, "max_frame_bytes")) {
      b.maxFrameBytes(Math.toIntExact(size(root.get("max_frame_bytes"), "max_frame_bytes")));
    }
    JsonNode resume = root.get("resume_buffer");
    if (resume != null && !resume.isNull()) {
      checkKeys(resume, RESUME_KEYS, "resume_buffer.");
      int batches = has(resume, "batches") ? integer(resume.get("batches"), "resume_buffer.batches")
          : ServerConfig.DEFAULT_RESUME_BUFFER_BATCHES;
      long bytes = has(resume, "bytes") ? size(resume.get("bytes"), "resume_buffer.bytes")
          : ServerConfig.DEFAULT_RESUME_BUFFER_BYTES;
      b.resumeBuffer(batches, bytes);
    }
    JsonNode wb = root.get("write_buffer");
    if (wb != null && !wb.isNull()) {
      checkKeys(wb, WRITE_BUFFER_KEYS, "write_buffer.");
      long low = has(wb, "low_water_mark") ? size(wb.get("low_water_mark"), "write_buffer.low_water_mark")
          : ServerConfig.DEFAULT_WRITE_BUFFER_LOW_WATER_MARK;
      long high = has(wb, "high_water_mark") ? size(wb.get("high_water_mark"), "write_buffer.high_water_mark")
          : ServerConfig.DEFAULT_WRITE_BUFFER_HIGH_WATER_MARK;
      b.writeBufferWaterMarks(Math.toIntExact(low), Math.toIntExact(high));
    }
    if (has(root, "slow_consumer_max_pending_bytes")) {
      b.slowConsumerMaxPendingBytes(size(root.get("slow_consumer_max_pending_bytes"),
          "slow_consumer_max_pending_bytes"));
    }

    JsonNode slow = root.get("slow_consumer");
    if (slow != null && !slow.isNull()) {
      checkKeys(slow, SLOW_CONSUMER_KEYS, "slow_consumer.");
      if (has(slow, "max_pending_bytes")) {
        b.slowConsumerMaxPendingBytes(size(slow.get("max_pending_bytes"), "slow_consumer.max_pending_bytes"));
      }
      if (has(slow, "coalesce_max_keys")) {
        b.slowConsumerCoalesceMaxKeys(integer(slow.get("coalesce_max_keys"), "slow_consumer.coalesce_max_keys"));
      }
      if (has(slow, "coalesce_max_bytes")) {
        b.slowConsumerCoalesceMaxBytes(size(slow.get("coalesce_max_bytes"), "slow_consumer.coalesce_max_bytes"));
      }
      if (has(slow, "snapshot_timeout")) {
        b.slowConsumerSnapshotTimeout(duration(slow.get("snapshot_timeout"), "slow_consumer.snapshot_timeout"));
      }
    }
    if (has(root, "idle_timeout")) {
      b.idleTimeout(duration(root.get("idle_timeout"), "idle_timeout"));
    }
    if (has(root, "max_subscriptions_per_connection")) {
      b.maxSubscriptionsPerConnection(integer(root.get("max_subscriptions_per_connection"),
          "max_subscriptions_per_connection"));
    }
    if (has(root, "max_connections")) {
      b.maxConnections(integer(root.get("max_connections"), "max_connections"));
    }
    String staticDir = has(root, "static_dir") ? text(root.get("static_dir"), "static_dir") : null;
    staticDir = env.getOrDefault(ENV_STATIC_DIR, staticDir);
    if (staticDir != null && !staticDir.isBlank()) {
      b.staticDir(Path.of(staticDir));
    }
    String staticClientDir = has(root, "static_client_dir")
        ? text(root.get("static_client_dir"), "static_client_dir") : null;
    staticClientDir = env.getOrDefault(ENV_STATIC_CLIENT_DIR, staticClientDir);
    if (staticClientDir != null && !staticClientDir.isBlank()) {
      b.staticClientDir(Path.of(staticClientDir));
    }

    tls(root, env, b);
    String metricsToken = has(root, "metrics_token") ? text(root.get("metrics_token"), "metrics_token") : null;
    metricsToken = env.getOrDefault(ENV_METRICS_TOKEN, metricsToken);
    if (metricsToken != null && !metricsToken.isEmpty()) {
      b.metricsToken(metricsToken);
    }

    if (has(root, "auth")) {
      b.authenticator(io.tablecast.server.auth.AuthConfigReader.read(root.get("auth"), env));
    } else if (env.containsKey(io.tablecast.server.auth.AuthConfigReader.ENV_JWT_HS256_SECRET)) {
      // fail closed: whoever set a token secret expects tokens to be required, not an open server
      throw new IllegalArgumentException(io.tablecast.server.auth.AuthConfigReader.ENV_JWT_HS256_SECRET
          + " is set but the configuration has no auth section; add one (auth: {} accepts tokens only, see "
          + "docs/CONFIGURATION.md) or unset the variable");
    }

    // source: YAML first, then the environment over it
    JsonNode src = root.get("source");
    if (src != null && !src.isNull()) {
      checkKeys(src, SOURCE_KEYS, "source.");
    } else {
      src = YAMLMapper.builder().build().createObjectNode();
    }
    String jdbcUrl = has(src, "jdbc_url") ? text(src.get("jdbc_url"), "source.jdbc_url") : null;
    String user = has(src, "user") ? text(src.get("user"), "source.user") : null;
    String password = has(src, "password") ? text(src.get("password"), "source.password") : null;
    boolean installTriggers = has(src, "install_triggers")
        && bool(src.get("install_triggers"), "source.install_triggers");
    Duration retention = has(src, "outbox_retention")
        ? duration(src.get("outbox_retention"), "source.outbox_retention") : null;
    Duration maxPoll = has(src, "max_poll_interval")
        ? duration(src.get("max_poll_interval"), "source.max_poll_interval") : null;
    Duration reconcile = has(src, "reconcile_interval")
        ? duration(src.get("reconcile_interval"), "source.reconcile_interval") : null;
    Duration captureCheck = has(src, "capture_check_interval")
        ? duration(src.get("capture_check_interval"), "source.capture_check_interval") : null;
    List<String> tables = null;
    Map<String, ColumnChoice> choices = new java.util.LinkedHashMap<>();
    if (has(root, "cached_tables")) {
      tables = new ArrayList<>();
      JsonNode list = root.get("cached_tables");
      if (!list.isArray()) {
        throw new IllegalArgumentException("cached_tables must be a list of table names, was " + list);
      }
      int i = 0;
      for (JsonNode t : list) {
        String path = "cached_tables[" + i++ + "]";
        if (!t.isObject()) {
          tables.add(text(t, path));
          continue;
        }
        checkKeys(t, CACHED_TABLE_KEYS, path + ".");
        if (!has(t, "table")) {
          throw new IllegalArgumentException(path + " must name its table: { table: schema.table, columns: [...] } "
              + "or { table: schema.table, exclude_columns: [...] }, was " + t);
        }
        String name = text(t.get("table"), path + ".table");
        tables.add(name);
        try {
          choices.put(name, new ColumnChoice(has(t, "columns") ? names(t.get("columns"), path + ".columns") : null,
              has(t, "exclude_columns") ? names(t.get("exclude_columns"), path + ".exclude_columns") : List.of()));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(path + " (" + name + "): " + e.getMessage(), e);
        }
      }
    }

    jdbcUrl = env.getOrDefault(ENV_JDBC_URL, jdbcUrl);
    user = env.getOrDefault(ENV_DB_USER, user);
    password = env.getOrDefault(ENV_DB_PASSWORD, password);
    if (env.containsKey(ENV_CACHED_TABLES)) {
      tables = new ArrayList<>();
      for (String t : env.get(ENV_CACHED_TABLES).split(",")) {
        if (!t.isBlank()) {
          tables.add(t.trim());
        }
      }
    }
    if (env.containsKey(ENV_INSTALL_TRIGGERS)) {
      installTriggers = parseBool(env.get(ENV_INSTALL_TRIGGERS), ENV_INSTALL_TRIGGERS);
    }
    if (env.containsKey(ENV_LISTEN_HOST)) {
      b.listenHost(env.get(ENV_LISTEN_HOST));
    }
    if (env.containsKey(ENV_LISTEN_PORT)) {
      String p = env.get(ENV_LISTEN_PORT).trim();
      try {
        b.listenPort(Integer.parseInt(p));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(ENV_LISTEN_PORT + " must be a port number, was '" + p + "'", e);
      }
    }
    if (jdbcUrl == null) {
      throw new IllegalArgumentException("source.jdbc_url (or " + ENV_JDBC_URL + ") must be set");
    }
    if (tables == null || tables.isEmpty()) {
      throw new IllegalArgumentException("cached_tables (or " + ENV_CACHED_TABLES
          + ") must name at least one table");
    }
    choices.keySet().retainAll(tables); // TABLECAST_CACHED_TABLES replaces the file's list
    b.source(new SourceConfig(jdbcUrl, user, password, tables, installTriggers, retention, maxPoll,
        reconcile, captureCheck, choices));
    return b.build();
  }

  /** A non-empty YAML list of column names. */
  private static List<String> names(JsonNode list, String path) {
    if (list == null || !list.isArray() || list.isEmpty()) {
      throw new IllegalArgumentException(path + " must be a non-empty list of column names, was " + list);
    }
    List<String> out = new ArrayList<>();
    int i = 0;
    for (JsonNode n : list) {
      out.add(text(n, path + "[" + i++ + "]"));
    }
    return out;
  }

  /** {@code tls:} from YAML, with TABLECAST_TLS_CERT_CHAIN / TABLECAST_TLS_PRIVATE_KEY over it. */
  private static void tls(JsonNode root, Map<String, String> env, ServerConfig.Builder b) {
    JsonNode tls = root.get("tls");
    if (tls != null && !tls.isNull()) {
      checkKeys(tls, TLS_KEYS, "tls.");
    } else {
      tls = YAMLMapper.builder().build().createObjectNode();
    }
    String chain = env.getOrDefault(ENV_TLS_CERT_CHAIN,
        has(tls, "cert_chain") ? text(tls.get("cert_chain"), "tls.cert_chain") : null);
    String key = env.getOrDefault(ENV_TLS_PRIVATE_KEY,
        has(tls, "private_key") ? text(tls.get("private_key"), "tls.private_key") : null);
    String ca = has(tls, "client_ca") ? text(tls.get("client_ca"), "tls.client_ca") : null;
    io.tablecast.server.net.TlsConfig.ClientAuth auth = has(tls, "client_auth")
        ? io.tablecast.server.net.TlsConfig.ClientAuth.parse(text(tls.get("client_auth"), "tls.client_auth"),
            "tls.client_auth") : null;
    boolean plaintext = has(tls, "allow_plaintext") && bool(tls.get("allow_plaintext"), "tls.allow_plaintext");
    boolean blankChain = chain == null || chain.isBlank();
    boolean blankKey = key == null || key.isBlank();
    if (blankChain && blankKey) {
      if (tls.size() > 0) {
        throw new IllegalArgumentException("tls needs cert_chain and private_key (or " + ENV_TLS_CERT_CHAIN
            + " and " + ENV_TLS_PRIVATE_KEY + ")");
      }
      return; // no TLS
    }
    if (blankChain || blankKey) {
      throw new IllegalArgumentException("tls needs both cert_chain (" + ENV_TLS_CERT_CHAIN + ") and private_key ("
          + ENV_TLS_PRIVATE_KEY + "), only " + (blankChain ? "private_key" : "cert_chain") + " is set");
    }
    b.tls(new io.tablecast.server.net.TlsConfig(Path.of(chain), Path.of(key),
        ca == null || ca.isBlank() ? null : Path.of(ca), auth, plaintext));
  }

  private static boolean has(JsonNode node, String key) {
    JsonNode v = node.get(key);
    return v != null && !v.isNull();
  }

  private static void checkKeys(JsonNode node, Set<String> allowed, String prefix) {
    if (!node.isObject()) {
      throw new IllegalArgumentException((prefix.isEmpty() ? "the configuration" : prefix.substring(0,
          prefix.length() - 1)) + " must be a mapping of keys, was " + node);
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!allowed.contains(key)) {
        throw new IllegalArgumentException("unknown configuration key '" + prefix + key
            + "', expected one of " + new java.util.TreeSet<>(allowed));
      }
    }
  }

  private static String text(JsonNode v, String key) {
    if (!v.isValueNode()) {
      throw new IllegalArgumentException(key + " must be a single value, was " + v);
    }
    return v.asText();
  }

  private static int integer(JsonNode v, String key) {
    if (v.canConvertToInt() && v.isIntegralNumber()) {
      return v.intValue();
    }
    try {
      return Integer.parseInt(v.asText().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " must be an integer, was '" + v.asText() + "'", e);
    }
  }

  private static boolean bool(JsonNode v, String key) {
    return v.isBoolean() ? v.booleanValue() : parseBool(v.asText(), key);
  }

  private static boolean parseBool(String s, String key) {
    switch (s.trim().toLowerCase(Locale.ROOT)) {
      case "true": case "yes": case "on": case "1": return true;
      case "false": case "no": case "off": case "0": return false;
      default:
        throw new IllegalArgumentException(key + " must be true or false, was '" + s + "'");
    }
  }

  /** Parses {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 2d} or ISO-8601 {@code PT10S}. */
  static Duration parseDuration(String s, String key) {
    String t = s.trim();
    Matcher m = DURATION.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      switch (m.group(2)) {
        case "ms": return Duration.ofMillis(n);
        case "s": return Duration.ofSeconds(n);
        case "m": return Duration.ofMinutes(n);
        case "h": return Duration.ofHours(n);
        default: return Duration.ofDays(n);
      }
    }
    try {
      return Duration.parse(t);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(key + " must be a duration like 500ms, 10s, 5m, 1h or 1d, was '"
          + s + "'", e);
    }
  }

  private static Duration duration(JsonNode v, String key) {
    return parseDuration(text(v, key), key);
  }

  /** Parses a byte count: {@code 1048576}, {@code 512KiB}, {@code 64MiB}, {@code 1GiB}. */
  static long parseSize(String s, String key) {
    Matcher m = SIZE.matcher(s.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(key + " must be a byte count like 1048576, 512KiB, 64MiB or 1GiB, was '"
          + s + "'");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2);
    switch (unit) {
      case "KiB": return n << 10;
      case "MiB": return n << 20;
      case "GiB": return n << 30;
      default: return n;
    }
  }

  private static long size(JsonNode v, String key) {
    if (v.isIntegralNumber()) {
      return v.longValue();
    }
    return parseSize(text(v, key), key);
  }
}
