package io.tablecast.bench;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Host, port, database and credentials of a JDBC URL of the form {@code
 * jdbc:<kind>://host[:port]/database?user=..&password=..}, for tools that take them apart
 * (Debezium's connectors).
 */
record JdbcEndpoint(String host, int port, String database, String user, String password) {

  static JdbcEndpoint parse(String url, int defaultPort) {
    int schemeEnd = url.indexOf("//");
    if (!url.startsWith("jdbc:") || schemeEnd < 0) {
      throw new IllegalArgumentException(
          "expected jdbc:<kind>://host[:port]/database?user=..., was " + redact(url));
    }
    String rest = url.substring(schemeEnd + 2);
    int q = rest.indexOf('?');
    String params = q < 0 ? "" : rest.substring(q + 1);
    String hostDb = q < 0 ? rest : rest.substring(0, q);
    int slash = hostDb.indexOf('/');
    String hostPort = slash < 0 ? hostDb : hostDb.substring(0, slash);
    String database = slash < 0 ? "" : hostDb.substring(slash + 1);
    int colon = hostPort.lastIndexOf(':');
    String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
    int port = colon < 0 ? defaultPort : Integer.parseInt(hostPort.substring(colon + 1));
    Map<String, String> p = new LinkedHashMap<>();
    for (String kv : params.split("&", -1)) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        p.put(kv.substring(0, eq), URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return new JdbcEndpoint(
        host, port, database, p.getOrDefault("user", ""), p.getOrDefault("password", ""));
  }

  static String redact(String url) {
    return url.replaceAll("password=[^&]*", "password=***");
  }
}
