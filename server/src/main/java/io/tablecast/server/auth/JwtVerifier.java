package io.tablecast.server.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Verifies compact JWS tokens with nimbus-jose-jwt: HS256 with a shared secret, RS256 with an RSA
 * public key, and the RSA and EC algorithms with the keys an identity provider publishes at a JWKS
 * URL ({@link JwksKeys}). The verifier is chosen by the configured keys, never by the token: a
 * token whose {@code alg} is not one configured here (including {@code none}, and HS256 signed with
 * an RSA public key as secret) is rejected. {@code exp} is required; {@code exp} and {@code nbf}
 * are checked with {@link #CLOCK_SKEW_SECONDS} of skew; {@code iss} and {@code aud} when
 * configured.
 */
public final class JwtVerifier {

  /** Allowed clock difference for {@code exp}/{@code nbf}. */
  public static final int CLOCK_SKEW_SECONDS = 30;

  private final MACVerifier hs256;
  private final RSASSAVerifier rs256;
  private final JwksKeys jwks;
  private final DefaultJWTClaimsVerifier<?> claims;
  private final String principalClaim;

  /**
   * @param hs256Secret shared secret (at least 32 bytes), or null
   * @param rs256PublicKey RSA public key, or null
   * @param issuer required {@code iss}, or null
   * @param audience required {@code aud} member, or null
   * @param principalClaim the claim that names the principal ({@code sub} by default)
   * @throws IllegalArgumentException when no key is given or the secret is too short
   */
  public JwtVerifier(
      byte[] hs256Secret,
      RSAPublicKey rs256PublicKey,
      String issuer,
      String audience,
      String principalClaim) {
    this(hs256Secret, rs256PublicKey, null, issuer, audience, principalClaim);
  }

  /** As above, with the keys of a JWKS URL too ({@code jwks} null: none). */
  JwtVerifier(
      byte[] hs256Secret,
      RSAPublicKey rs256PublicKey,
      JwksKeys jwks,
      String issuer,
      String audience,
      String principalClaim) {
    if (hs256Secret == null && rs256PublicKey == null && jwks == null) {
      throw new IllegalArgumentException(
          "auth.jwt needs hs256_secret, rs256_public_key_pem or jwks_url");
    }
    this.jwks = jwks;
    try {
      this.hs256 = hs256Secret == null ? null : new MACVerifier(hs256Secret);
    } catch (JOSEException e) {
      throw new IllegalArgumentException(
          "auth.jwt.hs256_secret must be at least 32 bytes (256 bits), was "
              + hs256Secret.length
              + " bytes",
          e);
    }
    this.rs256 = rs256PublicKey == null ? null : new RSASSAVerifier(rs256PublicKey);
    JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder();
    if (issuer != null) {
      exact.issuer(issuer);
    }
    Set<String> required = new HashSet<>(Set.of("exp", principalClaim));
    DefaultJWTClaimsVerifier<?> v =
        new DefaultJWTClaimsVerifier<>(
            audience == null ? null : new HashSet<>(Set.of(audience)),
            exact.build(),
            required,
            new HashSet<>());
    v.setMaxClockSkew(CLOCK_SKEW_SECONDS);
    this.claims = v;
    this.principalClaim = principalClaim;
  }

  /**
   * Verifies a token and returns its principal.
   *
   * @throws AuthenticationException with reason {@code bad_token} or {@code expired_token}
   */
  public Principal verify(String token) {
    SignedJWT jwt;
    try {
      jwt = SignedJWT.parse(token); // an unsecured token (alg none) is not a JWS: refused here
    } catch (ParseException e) {
      throw new AuthenticationException("bad_token", "the token is not a signed JWT");
    }
    JWTClaimsSet set;
    try {
      if (!signedByAKeyOfOurs(jwt)) {
        throw new AuthenticationException("bad_token", "the token's signature is not valid");
      }
      set = jwt.getJWTClaimsSet();
      claims.verify(set, null);
    } catch (BadJWTException e) {
      String m = String.valueOf(e.getMessage());
      boolean expired = m.toLowerCase(java.util.Locale.ROOT).contains("expired");
      throw new AuthenticationException(
          expired ? "expired_token" : "bad_token",
          expired ? "the token has expired" : "the token was rejected: " + m);
    } catch (JOSEException | ParseException e) {
      throw new AuthenticationException("bad_token", "the token could not be verified");
    }
    Object name = set.getClaim(principalClaim);
    if (!(name instanceof String s) || s.isBlank()) {
      throw new AuthenticationException(
          "bad_token", "the token's claim '" + principalClaim + "' must name the principal");
    }
    Map<String, Object> claimsMap = new java.util.HashMap<>();
    set.getClaims()
        .forEach(
            (k, v) -> {
              if (v != null) {
                claimsMap.put(
                    k,
                    v instanceof java.util.Date d
                        ? d.toInstant().getEpochSecond()
                        : v); // NumericDate: seconds
              }
            });
    return new Principal(s, claimsMap);
  }

  /**
   * Fetches the JWKS URL's keys once on a thread of its own, so that a URL that serves none is said
   * when the server starts (not when a command merely reads the configuration), and without holding
   * the start up.
   */
  void fetchKeysInBackground() {
    if (jwks != null) {
      Thread fetch = new Thread(jwks::fetchAtStart, "tablecast-jwks-fetch");
      fetch.setDaemon(true);
      fetch.start();
    }
  }

  /**
   * Whether a configured key verifies {@code jwt}'s signature: the secret for HS256, the RSA key
   * for RS256, and the keys of the JWKS URL that match its key id for their algorithms.
   */
  private boolean signedByAKeyOfOurs(SignedJWT jwt) throws JOSEException {
    JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
    List<JWSVerifier> candidates = new ArrayList<>(2);
    if (JWSAlgorithm.HS256.equals(alg) && hs256 != null) {
      candidates.add(hs256);
    }
    if (JWSAlgorithm.RS256.equals(alg) && rs256 != null) {
      candidates.add(rs256);
    }
    boolean fromJwks = jwks != null && JwksKeys.ALGORITHMS.contains(alg);
    if (candidates.isEmpty() && !fromJwks) {
      throw new AuthenticationException(
          "bad_token",
          "the token's algorithm "
              + alg
              + " is not accepted; accepted: "
              + String.join(
                      " ",
                      (hs256 != null ? "HS256" : ""),
                      (rs256 != null ? "RS256" : ""),
                      (jwks != null ? "RS, PS and ES algorithms of auth.jwt.jwks_url's keys" : ""))
                  .trim()
                  .replaceAll(" +", " "));
    }
    for (JWSVerifier v : candidates) {
      if (jwt.verify(v)) {
        return true;
      }
    }
    if (!fromJwks) {
      return false;
    }
    List<JWSVerifier> published = jwks.verifiersFor(jwt.getHeader());
    if (published.isEmpty() && candidates.isEmpty()) {
      throw new AuthenticationException(
          "bad_token",
          "no signing key of the identity provider matches the token (key id "
              + jwt.getHeader().getKeyID()
              + ", algorithm "
              + alg
              + ")");
    }
    for (JWSVerifier v : published) {
      if (jwt.verify(v)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reads an RSA public key from PEM text ({@code -----BEGIN PUBLIC KEY-----}, X.509
   * SubjectPublicKeyInfo).
   *
   * @throws IllegalArgumentException when the text is not such a key
   */
  public static RSAPublicKey rsaPublicKey(String pem) {
    String body =
        pem.replace("-----BEGIN PUBLIC KEY-----", "")
            .replace("-----END PUBLIC KEY-----", "")
            .replaceAll("\\s", "");
    if (pem.contains("BEGIN RSA PUBLIC KEY") || body.isEmpty()) {
      throw new IllegalArgumentException(
          "rs256_public_key_pem must hold a '-----BEGIN PUBLIC KEY-----' "
              + "(X.509 SubjectPublicKeyInfo) RSA key; convert with 'openssl rsa -pubin -in key.pem -RSAPublicKey_in'");
    }
    try {
      return (RSAPublicKey)
          KeyFactory.getInstance("RSA")
              .generatePublic(
                  new X509EncodedKeySpec(
                      Base64.getDecoder().decode(body.getBytes(StandardCharsets.US_ASCII))));
    } catch (GeneralSecurityException | IllegalArgumentException | ClassCastException e) {
      throw new IllegalArgumentException(
          "rs256_public_key_pem is not an RSA public key: " + e.getMessage(), e);
    }
  }
}
