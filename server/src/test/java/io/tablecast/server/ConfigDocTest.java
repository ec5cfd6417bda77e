package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.tablecast.server.capture.CachedTable;
import io.tablecast.server.capture.SourceConfig;
import io.tablecast.server.config.ByteSize;
import io.tablecast.server.config.ConfigMapper;
import io.tablecast.server.config.Units;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps the key tables of docs/CONFIGURATION.md (and docs/TLS.md for {@code tls.*}) equal to the
 * records {@link ServerConfig} binds, in both directions: every key of the records has a row, every
 * row names a real key, every documented default is the records' default, and the environment
 * variables of the rows are exactly those of {@link ConfigLoader#ENVIRONMENT}. The {@code auth}
 * section has a table of its own, checked by {@link AuthConfigDocTest}.
 */
class ConfigDocTest {

  /** A row of a key table: its key, its default and its environment variables (or meaning). */
  record Row(String doc, String key, String defaultValue, String variables) {}

  private static final Pattern KEY = Pattern.compile("`([a-z0-9_.\\[\\]]+)`");
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");
  private static final Pattern VARIABLE = Pattern.compile("TABLECAST_[A-Z0-9_]+");

  private static Map<String, Row> rows;
  private static Map<String, BeanPropertyDefinition> settings;

  @BeforeAll
  static void read() throws IOException {
    Path root = Path.of(System.getenv().getOrDefault("TABLECAST_REPO_ROOT", ".."));
    rows = new LinkedHashMap<>();
    rows(root.resolve("docs/CONFIGURATION.md"));
    rows(root.resolve("docs/TLS.md"));
    rows(root.resolve("docs/SCALE-OUT.md"));
    settings = new LinkedHashMap<>();
    settings("", ServerConfig.class);
  }

  /**
   * The rows of every table whose first column is {@code Key}; a wildcard row only points
   * elsewhere.
   */
  private static void rows(Path doc) throws IOException {
    List<String> header = null;
    for (String line : Files.readAllLines(doc)) {
      if (!line.startsWith("|")) {
        header = null;
        continue;
      }
      List<String> cells =
          Arrays.stream(line.substring(1, line.length() - 1).split("\\|", -1))
              .map(String::trim)
              .toList();
      if (header == null) {
        header = cells;
        continue;
      }
      Matcher key = KEY.matcher(cells.get(0));
      if (!header.get(0).equals("Key") || !key.matches()) {
        continue;
      }
      int variables = header.indexOf("Environment variable");
      rows.put(
          key.group(1),
          new Row(
              doc.getFileName().toString(),
              key.group(1),
              cells.get(header.indexOf("Default")),
              variables < 0 ? cells.get(cells.size() - 1) : cells.get(variables)));
    }
  }

  /**
   * Every key the records bind, as the file writes it; a list or a section read elsewhere is one
   * key.
   */
  private static void settings(String prefix, Class<?> type) {
    ConfigMapper.settings(type)
        .forEach(
            (name, setting) -> {
              String key = ConfigLoader.fileKey(prefix + name);
              if (!ConfigMapper.settings(setting.getRawPrimaryType()).isEmpty()) {
                settings(key + ".", setting.getRawPrimaryType());
              } else {
                settings.put(key, setting);
              }
            });
  }

  @Test
  void everyKeyOfTheRecordsIsDocumented() {
    List<String> undocumented = new ArrayList<>(settings.keySet());
    undocumented.removeAll(rows.keySet());
    assertThat(undocumented)
        .as("keys without a row in docs/CONFIGURATION.md (or docs/TLS.md, docs/SCALE-OUT.md)")
        .containsExactly("auth"); // the section of its own, see AuthConfigDocTest
  }

  @Test
  void everyDocumentedKeyIsReal() {
    List<String> unknown = new ArrayList<>(rows.keySet());
    unknown.removeAll(settings.keySet());
    unknown.removeIf(k -> k.startsWith("auth.")); // AuthConfigReader's keys, see AuthConfigDocTest
    assertThat(unknown).as("documented keys the records do not have").isEmpty();
  }

  @Test
  void documentedDefaultsAreTheRecordsDefaults() {
    SourceConfig postgres = source("jdbc:postgresql://h/db");
    SourceConfig mysql = source("jdbc:mariadb://h/db");
    settings.forEach(
        (key, setting) -> {
          Row row = rows.get(key);
          if (row == null || key.startsWith("tls.") || key.startsWith("nats.")) {
            // TLS: defaults follow from other keys, see TlsConfigTest; nats: no section by default
            return;
          }
          if (key.startsWith("source.") || key.equals("cached_tables")) {
            String sub =
                key.startsWith("source.") ? key.substring("source.".length()) : "cached_tables";
            List<String> values =
                CODE.matcher(row.defaultValue()).results().map(m -> m.group(1)).toList();
            assertDefault(
                row,
                setting,
                value(postgres, sub),
                values.isEmpty() ? row.defaultValue() : values.get(0));
            assertDefault(
                row,
                setting,
                value(mysql, sub),
                values.isEmpty() ? row.defaultValue() : values.get(values.size() - 1));
          } else {
            Object value = ServerConfig.DEFAULTS;
            for (String part : key.split("\\.")) {
              value = value(value, part);
            }
            Matcher code = CODE.matcher(row.defaultValue());
            assertDefault(row, setting, value, code.find() ? code.group(1) : row.defaultValue());
          }
        });
  }

  @Test
  void documentedEnvironmentVariablesAreTheOverrideTable() {
    Map<String, String> documented = new LinkedHashMap<>();
    rows.values()
        .forEach(
            row ->
                VARIABLE
                    .matcher(row.variables())
                    .results()
                    .forEach(m -> documented.put(m.group(), row.key())));
    Map<String, String> applied = new LinkedHashMap<>();
    ConfigLoader.ENVIRONMENT.forEach(v -> applied.put(v.name(), v.key()));
    assertThat(documented)
        .as("variable → key in the docs' rows")
        .containsExactlyInAnyOrderEntriesOf(applied);
  }

  /** A source with every default, and the setting {@code key} of it. */
  private static SourceConfig source(String url) {
    return new SourceConfig(
        url, null, null, false, null, null, null, null, List.of(CachedTable.of("t")));
  }

  private static Object value(Object record, String key) {
    BeanPropertyDefinition setting = ConfigMapper.settings(record.getClass()).get(key);
    assertThat(setting).as("setting %s of %s", key, record.getClass().getSimpleName()).isNotNull();
    return setting.getAccessor().getValue(record);
  }

  private static void assertDefault(
      Row row, BeanPropertyDefinition setting, Object value, String documented) {
    String where = row.doc() + ", default of " + row.key();
    if (ConfigLoader.REQUIRED.containsKey(row.key())) {
      assertThat(documented).as(where).isEqualTo("required");
    } else if (value == null) {
      assertThat(documented).as(where).isEqualTo("none");
    } else if (value instanceof Duration d) {
      assertThat(Units.parseDuration(documented)).as(where).isEqualTo(d);
    } else if (setting.getPrimaryMember().hasAnnotation(ByteSize.class)) {
      assertThat(Units.parseSize(documented)).as(where).isEqualTo(((Number) value).longValue());
    } else if (value instanceof Number n) {
      assertThat(Long.parseLong(documented)).as(where).isEqualTo(n.longValue());
    } else if (value instanceof Boolean b) {
      assertThat(Units.parseBoolean(documented)).as(where).isEqualTo(b);
    } else {
      assertThat(documented).as(where).isEqualTo(value.toString());
    }
  }
}
