package io.tablecast.server.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code nats.tls:} section: TLS from capture and servers to NATS, PEM files as the NATS server
 * itself takes them.
 *
 * @param caFile the CA certificates to trust for the NATS servers' certificates; null = the JVM's
 *     trust store
 * @param certChain this client's certificate chain, for NATS servers that verify clients ({@code
 *     verify: true}); null = none
 * @param privateKey its PKCS#8 private key ({@code BEGIN PRIVATE KEY}), with {@code cert_chain}
 */
public record NatsTls(Path caFile, Path certChain, Path privateKey) {

  /** Checks every value, naming its key. */
  public NatsTls {
    readable("nats.tls.ca_file", caFile);
    readable("nats.tls.cert_chain", certChain);
    readable("nats.tls.private_key", privateKey);
    if ((certChain == null) != (privateKey == null)) {
      throw new IllegalArgumentException(
          "nats.tls.cert_chain and nats.tls.private_key must be set together");
    }
  }

  private static void readable(String key, Path file) {
    if (file != null && !Files.isReadable(file)) {
      throw new IllegalArgumentException(key + " must be a readable file, was '" + file + "'");
    }
  }
}
