package io.tablecast.server.stream;

import io.tablecast.server.config.NatsTls;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The {@link SSLContext} of {@code nats.tls}: its CAs trusted, its client certificate offered, both
 * read again when their files change.
 */
final class NatsTlsContext {

  private NatsTlsContext() {}

  /**
   * The context, whose managers read the files again when they change ({@link
   * ReloadingTlsManagers}).
   *
   * @throws IllegalArgumentException naming the key whose file cannot be read as PEM
   */
  static SSLContext of(NatsTls tls) {
    ReloadingTlsManagers managers = new ReloadingTlsManagers(tls, NatsTlsContext::managers);
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          new KeyManager[] {managers.keyManager()},
          new TrustManager[] {managers.trustManager()},
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("nats.tls: " + e.getMessage(), e);
    }
  }

  /** The managers of one reading of the files. */
  static ReloadingTlsManagers.Managers managers(NatsTls tls) {
    try {
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      if (tls.caFile() == null) {
        trust.init((KeyStore) null); // the JVM's trust store
      } else {
        KeyStore cas = emptyStore();
        int i = 0;
        for (Certificate ca : certificates("nats.tls.ca_file", tls.caFile())) {
          cas.setCertificateEntry("ca-" + i++, ca);
        }
        trust.init(cas);
      }
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      KeyStore own = emptyStore();
      if (tls.certChain() != null) {
        Collection<? extends Certificate> chain =
            certificates("nats.tls.cert_chain", tls.certChain());
        own.setKeyEntry(
            "client", privateKey(tls.privateKey()), new char[0], chain.toArray(new Certificate[0]));
      }
      keys.init(own, new char[0]);
      return new ReloadingTlsManagers.Managers(
          (X509ExtendedKeyManager) keys.getKeyManagers()[0],
          (X509ExtendedTrustManager) trust.getTrustManagers()[0]);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException("nats.tls: " + e.getMessage(), e);
    }
  }

  private static KeyStore emptyStore() throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    return store;
  }

  private static Collection<? extends Certificate> certificates(String key, Path file)
      throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new IllegalArgumentException(key + ": no PEM certificate in " + file);
      }
      return certs;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(key + ": not PEM certificates: " + file, e);
    }
  }

  private static PrivateKey privateKey(Path file) throws IOException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < 0) {
      throw new IllegalArgumentException(
          "nats.tls.private_key: "
              + file
              + " is not a PKCS#8 key (-----BEGIN PRIVATE KEY-----); convert it with "
              + "openssl pkcs8 -topk8 -nocrypt");
    }
    byte[] der =
        Base64.getMimeDecoder()
            .decode(pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
        // the next algorithm
      }
    }
    throw new IllegalArgumentException(
        "nats.tls.private_key: " + file + " holds no RSA, EC or Ed25519 key");
  }
}
