package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariConfig;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The driver properties a dialect needs on the source pool's connections ({@link
 * TailDialect#poolProperties}). A URL option wins over a property given beside it, so a URL that
 * sets one of them to another value is refused at start, naming the option, rather than failing
 * every read later.
 */
final class PoolProperties {
  private PoolProperties() {}

  /**
   * Sets {@code wanted} on {@code config}.
   *
   * @throws IllegalArgumentException when {@code url} sets one of them to another value
   */
  static void apply(HikariConfig config, String url, Map<String, String> wanted) {
    Map<String, String> options = urlOptions(url);
    wanted.forEach(
        (name, value) -> {
          String given = options.get(name.toLowerCase(Locale.ROOT));
          if (given != null && !given.equalsIgnoreCase(value)) {
            throw new IllegalArgumentException(
                "source.jdbc_url sets "
                    + name
                    + "="
                    + given
                    + ", but the server's own connections to the source need "
                    + name
                    + "="
                    + value
                    + ": remove "
                    + name
                    + " from source.jdbc_url (the server sets it on its own connections only)");
          }
          config.addDataSourceProperty(name, value);
        });
  }

  /**
   * The driver options of {@code url}'s query and of {@code properties}, names in lower case; the
   * URL's win, as they do in the drivers.
   */
  static Map<String, String> driverOptions(String url, Properties properties) {
    Map<String, String> options = new HashMap<>();
    properties.stringPropertyNames().stream()
        .filter(name -> !name.equalsIgnoreCase("password"))
        .forEach(name -> options.put(name.toLowerCase(Locale.ROOT), properties.getProperty(name)));
    options.putAll(urlOptions(url));
    return options;
  }

  /** The options of {@code url}'s query ({@code ?a=1&b=2}), names in lower case. */
  private static Map<String, String> urlOptions(String url) {
    int query = url.indexOf('?');
    if (query < 0) {
      return Map.of();
    }
    Map<String, String> options = new HashMap<>();
    for (String option : url.substring(query + 1).split("&", -1)) {
      int eq = option.indexOf('=');
      if (eq > 0) {
        options.put(
            option.substring(0, eq).trim().toLowerCase(Locale.ROOT), option.substring(eq + 1));
      }
    }
    return options;
  }
}
