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
import java.util.Base64;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Verifies compact JWS tokens with nimbus-jose-jwt: HS256 with a shared secret and/or RS256 with an
 * RSA public key. The verifier is chosen by the configured keys, never by the token: a token whose
 * {@code alg} is not one configured here (including {@code none}, and HS256 signed with the RSA
 * public key as secret) is rejected. {@code exp} is required; {@code exp} and {@code nbf} are
 * checked with {@link #CLOCK_SKEW_SECONDS} of skew; {@code iss} and {@code aud} when configured.
 */
public final class JwtVerifier {

  /** Allowed clock difference for {@code exp}/{@code nbf}. */
  public static final int CLOCK_SKEW_SECONDS = 30;

  private final MACVerifier hs256;
  private final RSASSAVerifier rs256;
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
    if (hs256Secret == null && rs256PublicKey == null) {
      throw new IllegalArgumentException("auth.jwt needs hs256_secret or rs256_public_key_pem");
    }
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
    JWSAlgorithm alg = jwt.getHeader().getAlgorithm();
    JWSVerifier verifier;
    if (JWSAlgorithm.HS256.equals(alg) && hs256 != null) {
      verifier = hs256;
    } else if (JWSAlgorithm.RS256.equals(alg) && rs256 != null) {
      verifier = rs256;
    } else {
      throw new AuthenticationException(
          "bad_token",
          "the token's algorithm "
              + alg
              + " is not accepted; accepted: "
              + (hs256 != null ? "HS256 " : "")
              + (rs256 != null ? "RS256" : "").trim());
    }
    JWTClaimsSet set;
    try {
      if (!jwt.verify(verifier)) {
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
