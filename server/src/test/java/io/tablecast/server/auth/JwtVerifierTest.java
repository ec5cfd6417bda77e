package io.tablecast.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import java.util.Date;
import org.junit.jupiter.api.Test;

class JwtVerifierTest {

  static final byte[] SECRET =
      "0123456789abcdef0123456789abcdef-test".getBytes(StandardCharsets.UTF_8);
  static final KeyPair RSA = rsa();

  static KeyPair rsa() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String token(JWSAlgorithm alg, JWSSigner signer, JWTClaimsSet claims) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader(alg), claims);
    jwt.sign(signer);
    return jwt.serialize();
  }

  static JWTClaimsSet.Builder claims(String sub, long expiresInSeconds) {
    return new JWTClaimsSet.Builder()
        .subject(sub)
        .issuer("tests")
        .audience("tablecast")
        .expirationTime(new Date(System.currentTimeMillis() + expiresInSeconds * 1000))
        .claim("team", "red");
  }

  private final JwtVerifier both =
      new JwtVerifier(SECRET, (RSAPublicKey) RSA.getPublic(), "tests", "tablecast", "sub");

  @Test
  void validHs256AndRs256TokensGiveTheirPrincipalAndClaims() throws Exception {
    Principal a =
        both.verify(token(JWSAlgorithm.HS256, new MACSigner(SECRET), claims("alice", 60).build()));
    assertThat(a.name()).isEqualTo("alice");
    assertThat(a.claims()).containsEntry("team", "red");
    Principal b =
        both.verify(
            token(
                JWSAlgorithm.RS256, new RSASSASigner(RSA.getPrivate()), claims("bob", 60).build()));
    assertThat(b.name()).isEqualTo("bob");
  }

  @Test
  void expiredTokenIsRefusedBeyondTheClockSkew() throws Exception {
    String expired =
        token(JWSAlgorithm.HS256, new MACSigner(SECRET), claims("alice", -120).build());
    assertThatThrownBy(() -> both.verify(expired))
        .isInstanceOfSatisfying(
            AuthenticationException.class, e -> assertThat(e.reason()).isEqualTo("expired_token"));
    // within the 30 s skew: accepted
    both.verify(token(JWSAlgorithm.HS256, new MACSigner(SECRET), claims("alice", -5).build()));
    String notYet =
        token(
            JWSAlgorithm.HS256,
            new MACSigner(SECRET),
            claims("alice", 600)
                .notBeforeTime(new Date(System.currentTimeMillis() + 300_000))
                .build());
    assertThatThrownBy(() -> both.verify(notYet)).isInstanceOf(AuthenticationException.class);
  }

  @Test
  void wrongSignatureIssuerAudienceOrMissingExpAreRefused() throws Exception {
    byte[] other = "another-secret-of-at-least-32-bytes!!".getBytes(StandardCharsets.UTF_8);
    assertBad(token(JWSAlgorithm.HS256, new MACSigner(other), claims("alice", 60).build()));
    assertBad(
        token(
            JWSAlgorithm.RS256, new RSASSASigner(rsa().getPrivate()), claims("alice", 60).build()));
    assertBad(
        token(
            JWSAlgorithm.HS256, new MACSigner(SECRET), claims("alice", 60).issuer("evil").build()));
    assertBad(
        token(
            JWSAlgorithm.HS256,
            new MACSigner(SECRET),
            claims("alice", 60).audience("other").build()));
    assertBad(
        token(
            JWSAlgorithm.HS256,
            new MACSigner(SECRET),
            claims("alice", 60).expirationTime(null).build()));
    assertBad("not.a.token");
  }

  @Test
  void algNoneIsRefused() {
    String none = new PlainJWT(claims("alice", 60).build()).serialize();
    assertThat(none).endsWith(".");
    assertBad(none);
    // a hand-made "alg":"none" header with a made-up signature
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    String forged =
        b64.encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8))
            + "."
            + none.split("\\.")[1]
            + "."
            + b64.encodeToString(new byte[32]);
    assertBad(forged);
  }

  @Test
  void algorithmConfusionHs256WithThePublicKeyIsRefused() throws Exception {
    JwtVerifier rsaOnly = new JwtVerifier(null, (RSAPublicKey) RSA.getPublic(), null, null, "sub");
    // the classic attack: sign HS256 with the (public) RSA key bytes as the HMAC secret
    String confused =
        token(
            JWSAlgorithm.HS256,
            new MACSigner(RSA.getPublic().getEncoded()),
            claims("alice", 60).build());
    assertThatThrownBy(() -> rsaOnly.verify(confused))
        .isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("HS256 is not accepted");
    String pem =
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(RSA.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n";
    assertThat(JwtVerifier.rsaPublicKey(pem)).isEqualTo(RSA.getPublic());
    JwtVerifier hsOnly = new JwtVerifier(SECRET, null, null, null, "sub");
    assertThatThrownBy(
            () ->
                hsOnly.verify(
                    token(
                        JWSAlgorithm.RS256,
                        new RSASSASigner(RSA.getPrivate()),
                        claims("alice", 60).build())))
        .hasMessageContaining("RS256 is not accepted");
  }

  @Test
  void shortSecretIsRefusedAtConfiguration() {
    assertThatThrownBy(
            () ->
                new JwtVerifier("short".getBytes(StandardCharsets.UTF_8), null, null, null, "sub"))
        .hasMessageContaining("at least 32 bytes");
  }

  private void assertBad(String token) {
    assertThatThrownBy(() -> both.verify(token))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> assertThat(e.reason()).isIn("bad_token", "expired_token"));
  }
}
