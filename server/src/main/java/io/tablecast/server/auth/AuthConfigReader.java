package io.tablecast.server.auth;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.tablecast.server.config.ConfigProblems;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/** Reads the {@code auth:} section of the YAML configuration (see docs/CONFIGURATION.md). */
public final class AuthConfigReader {

  /** Overrides {@code auth.jwt.hs256_secret}. */
  public static final String ENV_JWT_HS256_SECRET = "TABLECAST_JWT_HS256_SECRET";

  private static final Set<String> AUTH_KEYS = Set.of("principals", "jwt");
  private static final Set<String> PRINCIPAL_KEYS =
      Set.of("name", "password_hash", "tables", "row_filter", "columns", "admin");
  private static final Set<String> JWT_KEYS =
      Set.of(
          "hs256_secret",
          "rs256_public_key_pem",
          "jwks_url",
          "issuer",
          "audience",
          "principal_claim",
          "default_policy");
  private static final Set<String> POLICY_KEYS = Set.of("tables", "row_filter", "columns");

  private AuthConfigReader() {}

  /**
   * Builds the authenticator of an {@code auth:} node.
   *
   * @throws IllegalArgumentException naming the bad key, value or principal
   */
  public static ConfigAuthenticator read(JsonNode auth, Map<String, String> env) {
    checkKeys(auth, AUTH_KEYS, "auth");
    List<ConfigAuthenticator.PrincipalEntry> entries = new ArrayList<>();
    JsonNode list = auth.get("principals");
    if (list != null && !list.isNull()) {
      if (!list.isArray()) {
        throw new IllegalArgumentException("auth.principals must be a list, was " + list);
      }
      int i = 0;
      for (JsonNode p : list) {
        String where = "auth.principals[" + i++ + "]";
        checkKeys(p, PRINCIPAL_KEYS, where);
        String name = text(p, "name", where);
        if (name == null || name.isBlank()) {
          throw new IllegalArgumentException(where + ".name must be set");
        }
        where = "auth.principals[" + name + "]";
        String hash = text(p, "password_hash", where);
        if (hash != null) {
          try {
            PasswordHasher.check(hash);
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ".password_hash: " + e.getMessage(), e);
          }
        }
        entries.add(
            new ConfigAuthenticator.PrincipalEntry(
                name, hash, policy(p, where), flag(p, "admin", where)));
      }
    }
    JwtVerifier jwt = null;
    AccessPolicy jwtDefault = null;
    String pemFile = null;
    JsonNode j = auth.get("jwt");
    String envSecret = env.get(ENV_JWT_HS256_SECRET);
    if ((j != null && !j.isNull()) || envSecret != null) {
      if (j == null || j.isNull()) {
        j = JsonNodeFactory.instance.objectNode();
      }
      checkKeys(j, JWT_KEYS, "auth.jwt");
      String secret = envSecret != null ? envSecret : text(j, "hs256_secret", "auth.jwt");
      pemFile = text(j, "rs256_public_key_pem", "auth.jwt");
      RSAPublicKey rsa = null;
      if (pemFile != null) {
        try {
          rsa = JwtVerifier.rsaPublicKey(Files.readString(Path.of(pemFile)));
        } catch (IOException e) {
          throw new IllegalArgumentException(
              "auth.jwt.rs256_public_key_pem: cannot read '" + pemFile + "': " + e, e);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "auth.jwt.rs256_public_key_pem ('" + pemFile + "'): " + e.getMessage(), e);
        }
      }
      String claim = text(j, "principal_claim", "auth.jwt");
      String jwksUrl = text(j, "jwks_url", "auth.jwt");
      JwksKeys jwks = jwksUrl == null ? null : JwksKeys.at(jwksUrl);
      jwt =
          new JwtVerifier(
              secret == null || secret.isEmpty() ? null : secret.getBytes(StandardCharsets.UTF_8),
              rsa,
              jwks,
              text(j, "issuer", "auth.jwt"),
              text(j, "audience", "auth.jwt"),
              claim == null ? "sub" : claim);
      JsonNode dp = j.get("default_policy");
      if (dp != null && !dp.isNull()) {
        checkKeys(dp, POLICY_KEYS, "auth.jwt.default_policy");
        jwtDefault = policy(dp, "auth.jwt.default_policy");
      }
    }
    if (entries.isEmpty() && jwt == null) {
      throw new IllegalArgumentException(
          "auth needs principals or jwt (omit the auth section for an open server)");
    }
    return new ConfigAuthenticator(
        entries, jwt, jwtDefault, pemFile == null ? List.of() : List.of(Path.of(pemFile)));
  }

  /**
   * Reads the {@code auth:} section while the configuration is bound (see {@code
   * io.tablecast.server.config.ConfigMapper}): the section as YAML, or an {@link Authenticator} a
   * builder set.
   */
  public static final class Section extends JsonDeserializer<Authenticator> {
    @Override
    public Authenticator deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() == JsonToken.VALUE_EMBEDDED_OBJECT
          && p.getEmbeddedObject() instanceof Authenticator a) {
        return a;
      }
      return read(
          p.readValueAsTree(), Map.of()); // TABLECAST_JWT_HS256_SECRET is in the tree already
    }
  }

  private static AccessPolicy policy(JsonNode p, String where) {
    Set<String> tables = list(p, "tables", where);
    Set<String> columns = list(p, "columns", where);
    String filter = text(p, "row_filter", where);
    RowFilter rowFilter = null;
    if (filter != null) {
      try {
        rowFilter = RowFilter.parse(filter);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ".row_filter: " + e.getMessage(), e);
      }
    }
    return new AccessPolicy(tables, rowFilter, columns);
  }

  private static Set<String> list(JsonNode p, String key, String where) {
    JsonNode v = p.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isArray()) {
      throw new IllegalArgumentException(where + "." + key + " must be a list of names, was " + v);
    }
    Set<String> out = new LinkedHashSet<>();
    for (JsonNode n : v) {
      if (!n.isTextual() || n.textValue().isBlank()) {
        throw new IllegalArgumentException(where + "." + key + " must hold names, found " + n);
      }
      out.add(n.textValue());
    }
    return out;
  }

  /** A boolean key, false when absent; anything but {@code true} or {@code false} is refused. */
  private static boolean flag(JsonNode node, String key, String where) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return false;
    }
    if (!v.isBoolean()) {
      throw new IllegalArgumentException(where + "." + key + " must be true or false, was " + v);
    }
    return v.booleanValue();
  }

  private static String text(JsonNode node, String key, String where) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isValueNode()) {
      throw new IllegalArgumentException(where + "." + key + " must be a single value, was " + v);
    }
    return v.asText();
  }

  private static void checkKeys(JsonNode node, Set<String> allowed, String where) {
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + " must be a mapping of keys, was " + node);
    }
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!allowed.contains(key)) {
        throw new IllegalArgumentException(
            ConfigProblems.unknownKey(where, key, allowed, UnaryOperator.identity()));
      }
    }
  }
}
