package io.tablecast.server.auth;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * PBKDF2-HMAC-SHA256 password hashes in the self-describing form {@code
 * pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>} (16-byte random salt per password,
 * 32-byte hash). JDK only: no dependency for something the JDK does well, and the iteration count
 * travels in the string so that it can be raised later.
 */
public final class PasswordHasher {

  /** Prefix of every hash this class writes. */
  public static final String SCHEME = "pbkdf2-sha256";

  /** Iterations of new hashes and the least accepted (OWASP 2023 for PBKDF2-HMAC-SHA256). */
  public static final int MIN_ITERATIONS = 210_000;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int SALT_BYTES = 16;
  private static final int HASH_BYTES = 32;

  private PasswordHasher() {}

  /** A new hash of {@code password} with a fresh salt and {@link #MIN_ITERATIONS}. */
  public static String hash(char[] password) {
    return hash(password, MIN_ITERATIONS);
  }

  /**
   * A new hash of {@code password} with a fresh salt and {@code iterations} (at least the minimum).
   */
  public static String hash(char[] password, int iterations) {
    if (iterations < MIN_ITERATIONS) {
      throw new IllegalArgumentException(
          "iterations must be at least " + MIN_ITERATIONS + ", was " + iterations);
    }
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
    return SCHEME
        + "$"
        + iterations
        + "$"
        + b64.encodeToString(salt)
        + "$"
        + b64.encodeToString(derive(password, salt, iterations, HASH_BYTES));
  }

  /**
   * Checks a password against a hash in constant time (for a given hash).
   *
   * @throws IllegalArgumentException when {@code hash} is not a valid hash string
   */
  public static boolean verify(char[] password, String hash) {
    Parsed p = parse(hash);
    byte[] actual = derive(password, p.salt, p.iterations, p.hash.length);
    return MessageDigest.isEqual(actual, p.hash);
  }

  /** The iteration count of a hash string. */
  public static int iterations(String hash) {
    return parse(hash).iterations;
  }

  /**
   * Validates a hash string.
   *
   * @throws IllegalArgumentException saying what is wrong (never echoing the hash)
   */
  public static void check(String hash) {
    parse(hash);
  }

  @SuppressWarnings("ArrayRecordComponent") // a carrier of parse()'s result, never compared
  private record Parsed(int iterations, byte[] salt, byte[] hash) {}

  private static Parsed parse(String hash) {
    String[] parts = hash == null ? new String[0] : hash.split("\\$", -1);
    if (parts.length != 4 || !parts[0].equals(SCHEME)) {
      throw new IllegalArgumentException(
          "a password hash must look like "
              + SCHEME
              + "$<iterations>$<salt base64>$<hash base64> (see 'tablecast hash-password')");
    }
    int iterations;
    try {
      iterations = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "the iteration count of a password hash must be a number, was '" + parts[1] + "'", e);
    }
    if (iterations < MIN_ITERATIONS) {
      throw new IllegalArgumentException(
          "a password hash must use at least "
              + MIN_ITERATIONS
              + " iterations, was "
              + iterations
              + "; rehash with 'tablecast hash-password'");
    }
    try {
      byte[] salt = Base64.getDecoder().decode(parts[2]);
      byte[] h = Base64.getDecoder().decode(parts[3]);
      if (salt.length < 8 || h.length < 16) {
        throw new IllegalArgumentException(
            "a password hash needs a salt of at least 8 bytes and a hash of at "
                + "least 16 bytes, had "
                + salt.length
                + " and "
                + h.length);
      }
      return new Parsed(iterations, salt, h);
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("a password hash")) {
        throw e;
      }
      throw new IllegalArgumentException("the salt and hash of a password hash must be base64", e);
    }
  }

  private static byte[] derive(char[] password, byte[] salt, int iterations, int bytes) {
    // PBEKeySpec rejects an empty password (the authenticator refuses empty passwords first)
    char[] pw = password.length == 0 ? new char[] {'\0'} : password;
    PBEKeySpec spec = new PBEKeySpec(pw, salt, iterations, bytes * 8);
    try {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available in this JVM", e);
    } finally {
      spec.clearPassword();
    }
  }
}
