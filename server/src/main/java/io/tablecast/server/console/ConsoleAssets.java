package io.tablecast.server.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The console's page, script and style sheet, read once from the server's jar (resources under
 * {@code io/tablecast/server/console/assets/}): no network, no CDN, no {@code static_dir}. Every
 * reply carries a Content-Security-Policy that lets the page load and fetch from this server only.
 */
final class ConsoleAssets {

  /** The files served under {@code /console/}, with their content types. */
  static final Map<String, String> FILES =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "console.js", "text/javascript; charset=utf-8",
          "charts.js", "text/javascript; charset=utf-8",
          "console.css", "text/css; charset=utf-8");

  /** Scripts, styles, images and fetches from this origin only; never framed. */
  static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private static final String ROOT = "/io/tablecast/server/console/assets/";

  private final Map<String, ConsoleReply> replies = new HashMap<>();

  /**
   * Reads every file.
   *
   * @throws IllegalStateException when one is missing from the jar (a build error)
   */
  ConsoleAssets() {
    FILES.forEach(
        (name, type) ->
            replies.put(
                name,
                new ConsoleReply(
                    200,
                    type,
                    read(name),
                    Map.of(
                        "Cache-Control", "no-cache",
                        "X-Content-Type-Options", "nosniff",
                        "Content-Security-Policy", CONTENT_SECURITY_POLICY,
                        "Referrer-Policy", "no-referrer"))));
  }

  /** The reply for a file name ({@code index.html}), or null when there is no such file. */
  ConsoleReply get(String name) {
    return replies.get(name);
  }

  private static byte[] read(String name) {
    try (InputStream in = ConsoleAssets.class.getResourceAsStream(ROOT + name)) {
      if (in == null) {
        throw new IllegalStateException("console asset " + ROOT + name + " is not in the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the console asset " + name, e);
    }
  }
}
