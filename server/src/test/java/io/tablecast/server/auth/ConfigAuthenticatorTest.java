package io.tablecast.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablecast.protocol.Message;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConfigAuthenticatorTest {

  static final String ALICE_HASH = PasswordHasher.hash("alice-pw".toCharArray());

  private final List<String> verifiedAgainst = Collections.synchronizedList(new ArrayList<>());
  private final ConfigAuthenticator auth =
      new ConfigAuthenticator(
          List.of(
              new ConfigAuthenticator.PrincipalEntry(
                  "alice", ALICE_HASH, new AccessPolicy(Set.of("public.products"), null, null)),
              new ConfigAuthenticator.PrincipalEntry("tokens-only", null, AccessPolicy.ALLOW_ALL)),
          null,
          null,
          (pw, hash) -> {
            verifiedAgainst.add(hash);
            return PasswordHasher.verify(pw, hash);
          });

  private static Message.Hello hello(String user, String password) {
    return new Message.Hello(Message.PROTOCOL_VERSION, "t", user, password, null);
  }

  @Test
  void rightPasswordGivesThePrincipalAndItsPolicy() {
    Principal p = auth.authenticate(hello("alice", "alice-pw"));
    assertThat(p.name()).isEqualTo("alice");
    assertThat(auth.authorize(p).allowsTable("public.products")).isTrue();
    assertThat(auth.authorize(p).allowsTable("public.countries")).isFalse();
  }

  @Test
  void wrongPasswordAndUnknownUserGetTheSameAnswer() {
    assertThatThrownBy(() -> auth.authenticate(hello("alice", "nope")))
        .isInstanceOf(AuthenticationException.class)
        .hasMessage(ConfigAuthenticator.BAD_CREDENTIALS);
    assertThatThrownBy(() -> auth.authenticate(hello("mallory", "nope")))
        .isInstanceOf(AuthenticationException.class)
        .hasMessage(ConfigAuthenticator.BAD_CREDENTIALS);
    assertThatThrownBy(() -> auth.authenticate(hello("tokens-only", "nope")))
        .isInstanceOf(AuthenticationException.class)
        .hasMessage(ConfigAuthenticator.BAD_CREDENTIALS);
  }

  @Test
  void unknownUserIsVerifiedAgainstADummyHashOfTheSameCost() {
    assertThatThrownBy(() -> auth.authenticate(hello("mallory", "guess")));
    assertThat(verifiedAgainst)
        .as("one full PBKDF2 verification, against the dummy hash")
        .containsExactly(auth.dummyHash());
    assertThat(PasswordHasher.iterations(auth.dummyHash()))
        .isEqualTo(PasswordHasher.iterations(ALICE_HASH));
    verifiedAgainst.clear();
    assertThatThrownBy(() -> auth.authenticate(hello("alice", "guess")));
    assertThat(verifiedAgainst).containsExactly(ALICE_HASH);
  }

  @Test
  void missingCredentialsAndTokensWithoutJwtConfigAreRefused() {
    assertThatThrownBy(() -> auth.authenticate(hello(null, null)))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> assertThat(e.reason()).isEqualTo("missing_credentials"));
    assertThatThrownBy(() -> auth.authenticate(hello("alice", "")))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> assertThat(e.reason()).isEqualTo("missing_credentials"));
    assertThatThrownBy(
            () ->
                auth.authenticate(
                    new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, "a.b.c")))
        .isInstanceOfSatisfying(
            AuthenticationException.class, e -> assertThat(e.reason()).isEqualTo("bad_token"));
  }

  @Test
  void tokenOfAPrincipalWithoutEntryIsRefusedUnlessADefaultPolicyIsConfigured() throws Exception {
    byte[] secret =
        "0123456789abcdef0123456789abcdef-test".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    JwtVerifier jwt = new JwtVerifier(secret, null, null, null, "sub");
    String token =
        JwtVerifierTest.token(
            com.nimbusds.jose.JWSAlgorithm.HS256,
            new com.nimbusds.jose.crypto.MACSigner(secret),
            new com.nimbusds.jwt.JWTClaimsSet.Builder()
                .subject("dave")
                .expirationTime(new java.util.Date(System.currentTimeMillis() + 60_000))
                .build());
    Message.Hello hello = new Message.Hello(Message.PROTOCOL_VERSION, "t", null, null, token);

    ConfigAuthenticator noDefault = new ConfigAuthenticator(List.of(), jwt, null);
    Principal dave = noDefault.authenticate(hello);
    assertThatThrownBy(() -> noDefault.authorize(dave))
        .isInstanceOfSatisfying(
            AuthenticationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo("no_policy");
              assertThat(e.getMessage()).contains("dave").contains("default_policy");
            });

    ConfigAuthenticator withDefault =
        new ConfigAuthenticator(
            List.of(), jwt, new AccessPolicy(Set.of("public.products"), null, null));
    assertThat(
            withDefault.authorize(withDefault.authenticate(hello)).allowsTable("public.products"))
        .isTrue();
    assertThat(withDefault.authorize(dave).allowsTable("public.countries")).isFalse();
  }

  @Test
  void duplicateNamesAreRefused() {
    ConfigAuthenticator.PrincipalEntry a =
        new ConfigAuthenticator.PrincipalEntry("a", null, AccessPolicy.ALLOW_ALL);
    assertThatThrownBy(() -> new ConfigAuthenticator(List.of(a, a), null, null))
        .hasMessageContaining("'a' appears twice");
  }
}
