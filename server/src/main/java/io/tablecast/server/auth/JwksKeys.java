package io.tablecast.server.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.crypto.factories.DefaultJWSVerifierFactory;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import io.tablecast.server.log.RecentEvents;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.security.Key;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;

/**
 * The signing keys an identity provider publishes as a JSON Web Key Set ({@code auth.jwt.jwks_url}:
 * Keycloak, Auth0, Okta, Entra ID and the like), so that its key rotations need no change here:
 * nimbus-jose-jwt's {@link JWKSourceBuilder} fetches the set, keeps it for {@link #CACHE_TTL},
 * fetches it again at once (at most every {@code refreshLimit}) when a token names a key it does
 * not hold, and keeps using the last set it had while the URL cannot be reached ({@link
 * #OUTAGE_TOLERANCE}). Asymmetric algorithms only: a key of the set never verifies an HMAC token
 * (whose "secret" would be the public key).
 */
final class JwksKeys {
  private static final Logger LOG = RecentEvents.logger(JwksKeys.class);

  /** The algorithms a key of the set may verify. */
  static final Set<JWSAlgorithm> ALGORITHMS =
      Set.of(
          JWSAlgorithm.RS256,
          JWSAlgorithm.RS384,
          JWSAlgorithm.RS512,
          JWSAlgorithm.PS256,
          JWSAlgorithm.PS384,
          JWSAlgorithm.PS512,
          JWSAlgorithm.ES256,
          JWSAlgorithm.ES384,
          JWSAlgorithm.ES512);

  /** How long a fetched set is used before it is fetched again. */
  static final Duration CACHE_TTL = Duration.ofMinutes(5);

  /** The fewest time between two fetches for unknown keys (a flood of made-up key ids). */
  static final Duration REFRESH_LIMIT = Duration.ofSeconds(30);

  /** How long the last set is used while the URL cannot be reached. */
  static final Duration OUTAGE_TOLERANCE = Duration.ofHours(12);

  private static final int HTTP_TIMEOUT_MILLIS = 2_000;
  private static final int SIZE_LIMIT_BYTES = 512 * 1024;

  private final URL url;
  private final JWSVerificationKeySelector<SecurityContext> selector;
  private final DefaultJWSVerifierFactory verifiers = new DefaultJWSVerifierFactory();
  private final AtomicBoolean unavailableSaid = new AtomicBoolean();

  private JwksKeys(URL url, Duration refreshLimit) {
    this.url = url;
    JWKSource<SecurityContext> source =
        JWKSourceBuilder.<SecurityContext>create(
                url,
                new DefaultResourceRetriever(
                    HTTP_TIMEOUT_MILLIS, HTTP_TIMEOUT_MILLIS, SIZE_LIMIT_BYTES))
            .cache(CACHE_TTL.toMillis(), Duration.ofSeconds(15).toMillis())
            .rateLimited(refreshLimit.toMillis())
            .outageTolerant(OUTAGE_TOLERANCE.toMillis())
            .retrying(true)
            .build();
    this.selector = new JWSVerificationKeySelector<>(ALGORITHMS, source);
  }

  /**
   * The set at {@code url} (http or https).
   *
   * @throws IllegalArgumentException naming {@code auth.jwt.jwks_url} when it is no such URL
   */
  static JwksKeys at(String url) {
    return at(url, REFRESH_LIMIT);
  }

  /** As {@link #at(String)}, fetching for unknown keys at most every {@code refreshLimit}. */
  static JwksKeys at(String url, Duration refreshLimit) {
    URL parsed;
    try {
      URI uri = new URI(url);
      boolean web =
          "https".equalsIgnoreCase(uri.getScheme()) || "http".equalsIgnoreCase(uri.getScheme());
      if (!web || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "auth.jwt.jwks_url must be an https:// (or http://) URL of a JSON Web Key Set, was '"
                + url
                + "'");
      }
      parsed = uri.toURL();
    } catch (URISyntaxException | MalformedURLException e) {
      throw new IllegalArgumentException(
          "auth.jwt.jwks_url is not a URL: '" + url + "' (" + e.getMessage() + ")", e);
    }
    return new JwksKeys(parsed, refreshLimit);
  }

  /**
   * Fetches the set once, so that a URL that does not serve one is said at start: INFO with the key
   * ids, or a WARN (tokens it signs are refused until it can be fetched). Never throws.
   */
  void fetchAtStart() {
    try {
      List<JWK> keys =
          selector.getJWKSource().get(new JWKSelector(new JWKMatcher.Builder().build()), null);
      LOG.info(
          "auth.jwt.jwks_url {}: {} keys ({})",
          url,
          keys.size(),
          keys.stream().map(k -> String.valueOf(k.getKeyID())).toList());
    } catch (KeySourceException | RuntimeException e) {
      unavailableSaid.set(true);
      LOG.warn(
          "auth.jwt.jwks_url {} cannot be fetched now ({}): tokens signed by its keys are refused"
              + " until it can",
          url,
          e.getMessage());
    }
  }

  /**
   * The verifiers of the keys of the set that may have signed a token with {@code header} (by its
   * key id and algorithm), after fetching the set again when none does.
   *
   * @throws AuthenticationException {@code keys_unavailable} when the set cannot be fetched and
   *     none is kept
   */
  List<JWSVerifier> verifiersFor(JWSHeader header) {
    List<Key> keys;
    try {
      keys = selector.selectJWSKeys(header, null);
    } catch (KeySourceException e) {
      if (unavailableSaid.compareAndSet(false, true)) {
        LOG.warn(
            "auth.jwt.jwks_url {} cannot be fetched ({}): tokens signed by its keys are refused"
                + " until it can",
            url,
            e.getMessage());
      }
      throw new AuthenticationException(
          "keys_unavailable",
          "the server cannot fetch the signing keys of its identity provider now; retry later");
    }
    if (unavailableSaid.compareAndSet(true, false)) {
      LOG.info("auth.jwt.jwks_url {} fetched again", url);
    }
    List<JWSVerifier> found = new ArrayList<>(keys.size());
    for (Key key : keys) {
      try {
        found.add(verifiers.createJWSVerifier(header, key));
      } catch (JOSEException e) {
        // a key of another type than the algorithm's: not a candidate
      }
    }
    return found;
  }

  @Override
  public String toString() {
    return url.toString();
  }
}
