package io.tablecast.server.stream;

import io.nats.client.AuthHandler;
import io.nats.client.NKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * NKey authentication by the seed in {@code nats.nkey_seed_file}, read at each connection jnats
 * makes (its first and every reconnect): a seed rotated in the file (a Kubernetes secret, a Vault
 * agent's file) is used from the next connection on, without a restart, as {@code
 * nats.credentials_file} is by jnats itself. Before, the seed of the start was signed with for
 * ever, and every reconnect after NATS stopped taking it failed. The seed is never logged.
 */
final class SeedFileAuthHandler implements AuthHandler {
  private final Path file;

  /**
   * @throws IllegalArgumentException naming the key and the file when it holds no NKey seed now
   */
  SeedFileAuthHandler(Path file) {
    this.file = file;
    try {
      read().clear(); // refuses what is not a seed here, not in the handshake
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "nats.nkey_seed_file: " + file + " holds no NKey seed (SU...): " + e.getMessage(), e);
    }
  }

  @Override
  public byte[] sign(byte[] nonce) {
    NKey key = read();
    try {
      return key.sign(nonce);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot sign with the NKey of " + file + ": " + e, e);
    } finally {
      key.clear();
    }
  }

  @Override
  public char[] getID() {
    NKey key = read();
    try {
      return key.getPublicKey();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot read the NKey of " + file + ": " + e, e);
    } finally {
      key.clear();
    }
  }

  @Override
  public char[] getJWT() {
    return null; // an NKey alone: no user JWT
  }

  private NKey read() {
    try {
      return NKey.fromSeed(Files.readString(file, StandardCharsets.US_ASCII).strip().toCharArray());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
