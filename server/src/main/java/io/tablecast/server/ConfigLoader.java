package io.tablecast.server;

import static io.tablecast.server.config.SettingsTree.dropNulls;
import static io.tablecast.server.config.SettingsTree.get;
import static io.tablecast.server.config.SettingsTree.merge;
import static io.tablecast.server.config.SettingsTree.move;
import static io.tablecast.server.config.SettingsTree.put;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.server.auth.AuthConfigReader;
import io.tablecast.server.config.ConfigMapper;
import io.tablecast.server.config.ConfigProblems;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@link ServerConfig} from YAML: the file's keys, then the {@code TABLECAST_*} environment
 * variables of {@link #ENVIRONMENT} over them, then {@link ServerConfig#DEFAULTS} under them; bound
 * by {@link ConfigMapper} and validated.
 */
final class ConfigLoader {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigLoader.class);

  /** An environment variable that overrides the YAML key {@code key}. */
  record Variable(String name, String key) {}

  /** Every environment variable the server reads, each over one YAML key. */
  static final List<Variable> ENVIRONMENT =
      List.of(
          new Variable("TABLECAST_LISTEN_HOST", "listen.host"),
          new Variable("TABLECAST_LISTEN_PORT", "listen.port"),
          new Variable("TABLECAST_JDBC_URL", "source.jdbc_url"),
          new Variable("TABLECAST_DB_USER", "source.user"),
          new Variable("TABLECAST_DB_PASSWORD", "source.password"),
          new Variable("TABLECAST_DB_PASSWORD_FILE", "source.password_file"),
          new Variable("TABLECAST_INSTALL_TRIGGERS", "source.install_triggers"),
          new Variable("TABLECAST_CACHED_TABLES", "cached_tables"), // comma-separated
          new Variable("TABLECAST_STATIC_DIR", "static_dir"),
          new Variable("TABLECAST_STATIC_CLIENT_DIR", "static_client_dir"),
          new Variable("TABLECAST_METRICS_TOKEN", "metrics_token"),
          new Variable("TABLECAST_ALLOWED_ORIGINS", "allowed_origins"), // comma-separated
          new Variable("TABLECAST_TLS_CERT_CHAIN", "tls.cert_chain"),
          new Variable("TABLECAST_TLS_PRIVATE_KEY", "tls.private_key"),
          new Variable(AuthConfigReader.ENV_JWT_HS256_SECRET, "auth.jwt.hs256_secret"));

  /** YAML keys that live elsewhere in the records: the file's key → the record's key. */
  static final Map<String, String> MOVED = Map.of("cached_tables", "source.cached_tables");

  /** Older spellings still read: the older key → the key. */
  static final Map<String, String> ALIASES =
      Map.of("slow_consumer_max_pending_bytes", "slow_consumer.max_pending_bytes");

  /** Keys without a default, and what each must be, in the order they are checked. */
  static final Map<String, String> REQUIRED =
      ordered(
          "source.jdbc_url", "must be set",
          "cached_tables", "must name at least one table");

  private ConfigLoader() {}

  static ServerConfig load(Path file, Map<String, String> env) throws IOException {
    UnknownVariables.in(env).forEach(LOG::warn);
    String text = Files.readString(file);
    try {
      return parse(text, env);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  static ServerConfig parse(String yaml, Map<String, String> env) {
    ObjectNode tree = ConfigMapper.readYaml(yaml);
    dropNulls(tree);
    if (env.containsKey(AuthConfigReader.ENV_JWT_HS256_SECRET) && !tree.has("auth")) {
      // fail closed: whoever set a token secret expects tokens to be required, not an open server
      throw new IllegalArgumentException(
          AuthConfigReader.ENV_JWT_HS256_SECRET
              + " is set but the configuration has no auth section; add one (auth: {} accepts tokens only, see "
              + "docs/CONFIGURATION.md) or unset the variable");
    }
    Map<String, String> fromEnv = new HashMap<>();
    for (Variable v : ENVIRONMENT) {
      String value = env.get(v.name());
      if (value != null) {
        put(
            tree,
            v.key(),
            value.isBlank() && !v.key().equals("cached_tables")
                ? null
                : environmentValue(v, value));
        fromEnv.put(MOVED.getOrDefault(v.key(), v.key()), v.name());
      }
    }
    List<String> missing = new ArrayList<>();
    List<String> misplaced = misplaced(tree, missing);
    if (!tree.has("nats")) { // a server reading a NATS stream needs no database
      REQUIRED.forEach(
          (key, problem) -> {
            String why = misplaced.contains(key) ? null : missing(tree, key, problem);
            if (why != null) {
              missing.add(why);
            }
          });
    }
    ALIASES.forEach((older, key) -> move(tree, older, key));
    MOVED.forEach((from, to) -> move(tree, from, to));
    return bind(tree, fromEnv, missing);
  }

  /**
   * The {@link #MOVED} keys written where the server keeps them ({@code source.cached_tables}), not
   * where the file has them: each told in {@code problems} with where it goes, and taken out of
   * {@code tree} when the file has it at its place too. Read there, the key would be told missing,
   * or win over the one at its place without a word. Returns the keys so told.
   */
  private static List<String> misplaced(ObjectNode tree, List<String> problems) {
    List<String> misplaced = new ArrayList<>();
    MOVED.forEach(
        (key, kept) -> {
          if (get(tree, kept) != null) {
            if (tree.has(key)) { // the one at its place is bound, for what else may be wrong
              put(tree, kept, null);
            }
            misplaced.add(key);
            String section = kept.substring(0, kept.length() - key.length() - 1);
            problems.add(
                kept
                    + ": "
                    + key
                    + " is a key of the file's top level: move it out of "
                    + section
                    + ":, beside it");
          }
        });
    return misplaced;
  }

  /** Binds {@code settings} over the defaults and validates. */
  static ServerConfig bind(ObjectNode settings, Map<String, String> fromEnv) {
    return bind(settings, fromEnv, List.of());
  }

  /**
   * Binds {@code settings} over the defaults and validates; {@code missing} (required keys not set)
   * is told with the unknown keys and bad values, all at once.
   */
  private static ServerConfig bind(
      ObjectNode settings, Map<String, String> fromEnv, List<String> missing) {
    ObjectNode merged = merge(defaults(), settings);
    ConfigMapper.Bound<ServerConfig> bound =
        ConfigMapper.bindAll(
            merged,
            ServerConfig.class,
            key -> {
              String variable = fromEnv.get(key);
              key = fileKey(key);
              return variable == null ? key : key + " (" + variable + ")";
            },
            missing,
            defaults(),
            MOVED.keySet());
    List<String> problems = new ArrayList<>(bound.problems());
    if (bound.value() != null) { // its bad values replaced by defaults: what else is wrong
      for (String p : bound.value().problems()) {
        if (!bound.aboutLeftOut(p)) {
          ConfigProblems.addOncePerKey(problems, p);
        }
      }
    }
    if (!problems.isEmpty()) {
      throw ConfigProblems.listing(problems);
    }
    return bound.value();
  }

  /** The key as the file writes it: {@code source.cached_tables[0]} is {@code cached_tables[0]}. */
  static String fileKey(String key) {
    for (Map.Entry<String, String> m : MOVED.entrySet()) {
      key = key.startsWith(m.getValue()) ? m.getKey() + key.substring(m.getValue().length()) : key;
    }
    return key;
  }

  /** {@link ServerConfig#DEFAULTS} as a tree. */
  static ObjectNode defaults() {
    return ConfigMapper.toTree(ServerConfig.DEFAULTS);
  }

  /** {@code config} as a tree of its (Java) values. */
  static ObjectNode tree(ServerConfig config) {
    ObjectNode tree = JsonNodeFactory.instance.objectNode();
    ConfigMapper.settings(ServerConfig.class)
        .forEach(
            (key, setting) -> {
              Object value = setting.getAccessor().getValue(config);
              if (value != null) {
                put(tree, key, value);
              }
            });
    return tree;
  }

  private static Map<String, String> ordered(String... keysAndValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return Collections.unmodifiableMap(map);
  }

  /** Why the required {@code key} is not set well ({@code problem}), or null when it is. */
  private static String missing(ObjectNode tree, String key, String problem) {
    JsonNode value = get(tree, key);
    if (value == null || (value.isContainerNode() && value.isEmpty())) {
      String variable =
          ENVIRONMENT.stream().filter(v -> v.key().equals(key)).findFirst().orElseThrow().name();
      return key + " (or " + variable + ") " + problem;
    }
    return null;
  }

  private static JsonNode environmentValue(Variable v, String value) {
    if (!v.key().equals("cached_tables") && !v.key().equals("allowed_origins")) {
      return JsonNodeFactory.instance.textNode(value);
    }
    ArrayNode tables = JsonNodeFactory.instance.arrayNode();
    for (String t : value.split(",", -1)) {
      if (!t.isBlank()) {
        tables.add(t.trim());
      }
    }
    return tables;
  }
}
