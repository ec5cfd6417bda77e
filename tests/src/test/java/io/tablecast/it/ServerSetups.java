package io.tablecast.it;

import io.tablecast.server.auth.AccessPolicy;
import io.tablecast.server.auth.ConfigAuthenticator;
import io.tablecast.server.auth.JwtVerifier;
import io.tablecast.server.capture.ColumnChoice;
import io.tablecast.server.capture.SourceConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Pipeline}'s server started with settings several tests share: columns chosen per table,
 * the database reached at another address, JWT tokens. Reconciliation, where on, fails the server's
 * stop when it repaired a row ({@link Pipeline#stopServer}).
 */
final class ServerSetups {
  /**
   * How long a server reading the database through a proxy ({@link #atUrl}, {@link #sourceAt}) lets
   * a statement go without an answer ({@code source.answer_timeout}, 10 s by default): the tests
   * that silence the proxy wait for it, again and again.
   */
  static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(2);

  private ServerSetups() {}

  /**
   * Caches the pipeline's tables with {@code choices} (by unqualified table name; the others
   * whole), reconciling every {@link Pipeline#RECONCILE_EVERY}.
   */
  static void withColumnChoices(Pipeline p, Map<String, ColumnChoice> choices) {
    SourceConfig base = p.sourceConfig();
    Map<String, ColumnChoice> qualified = new HashMap<>();
    choices.forEach((t, choice) -> qualified.put(p.db.table(t), choice));
    p.startServer(
        b ->
            b.source(
                new SourceConfig(
                    base.jdbcUrl(),
                    null,
                    null,
                    base.tableNames(),
                    true,
                    null,
                    null,
                    Pipeline.RECONCILE_EVERY,
                    Pipeline.CAPTURE_CHECK_EVERY,
                    qualified)));
  }

  /**
   * Reads the database at {@code url} (through a proxy, say), reconciling every {@code reconcile},
   * a statement unanswered for {@link #ANSWER_TIMEOUT} given up.
   */
  static void atUrl(Pipeline p, String url, Duration reconcile) {
    p.startServer(b -> b.source(sourceAt(p, url, reconcile)));
  }

  /**
   * The pipeline's source at {@code url}, reconciling every {@code reconcile}, a statement
   * unanswered for {@link #ANSWER_TIMEOUT} given up.
   */
  static SourceConfig sourceAt(Pipeline p, String url, Duration reconcile) {
    return new SourceConfig(
            url,
            null,
            null,
            p.sourceConfig().tableNames(),
            true,
            null,
            null,
            reconcile,
            Pipeline.CAPTURE_CHECK_EVERY)
        .withAnswerTimeout(ANSWER_TIMEOUT);
  }

  /**
   * Takes HS256 tokens signed with {@code secret} (principal claim {@code sub}), each principal
   * with {@code policy}.
   */
  static void withTokens(Pipeline p, byte[] secret, AccessPolicy policy) {
    p.startServer(
        b ->
            b.set(
                "auth",
                new ConfigAuthenticator(
                    List.of(), new JwtVerifier(secret, null, null, null, "sub"), policy)));
  }

  /** A raw proxy in front of the pipeline's database ({@link #urlThrough} reaches it). */
  static CuttableProxy databaseProxy(Pipeline p) throws java.io.IOException {
    java.net.URI db = java.net.URI.create(p.db.jdbcUrl().substring("jdbc:".length()));
    return CuttableProxy.raw(db.getHost(), db.getPort());
  }

  /** The pipeline's database URL with the proxy's address in place of the database's. */
  static String urlThrough(Pipeline p, CuttableProxy proxy) {
    java.net.URI db = java.net.URI.create(p.db.jdbcUrl().substring("jdbc:".length()));
    return p.db.jdbcUrl().replace(db.getHost() + ":" + db.getPort(), proxy.address());
  }
}
