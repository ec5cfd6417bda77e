package io.tablecast.server.stream;

import io.tablecast.server.config.NatsTls;
import io.tablecast.server.log.RecentEvents;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;

/**
 * The key and trust managers of {@code nats.tls}, read again from their files when these change: a
 * client certificate or CA renewed in place is used from the next connection to NATS on (jnats
 * connects again by itself after a loss), without a restart of capture or server. The files are
 * looked at, at most once a second, when a handshake asks; files that cannot be used leave the
 * managers read before in use, with a WARN, until they change again.
 */
final class ReloadingTlsManagers {
  private static final Logger LOG = RecentEvents.logger(ReloadingTlsManagers.class);
  private static final long LOOK_EVERY_NANOS = 1_000_000_000L;

  /** The managers built from one reading of the files. */
  record Managers(X509ExtendedKeyManager keys, X509ExtendedTrustManager trust) {}

  private final NatsTls tls;
  private final Function<NatsTls, Managers> build;
  private volatile Managers current;
  private byte[] builtFrom;
  private byte[] refused;
  private long lookedAt;

  /**
   * @throws IllegalArgumentException from {@code build} when the files cannot be used at start
   */
  ReloadingTlsManagers(NatsTls tls, Function<NatsTls, Managers> build) {
    this.tls = tls;
    this.build = build;
    this.current = build.apply(tls);
    this.builtFrom = fingerprintQuietly();
    this.lookedAt = System.nanoTime();
  }

  private Managers now() {
    look();
    return current;
  }

  private synchronized void look() {
    long t = System.nanoTime();
    if (t - lookedAt < LOOK_EVERY_NANOS) {
      return;
    }
    lookedAt = t;
    byte[] files = fingerprintQuietly();
    if (files == null
        || MessageDigest.isEqual(files, builtFrom)
        || MessageDigest.isEqual(files, refused)) {
      return;
    }
    try {
      current = build.apply(tls);
      builtFrom = files;
      refused = null;
      LOG.info("nats.tls: the files changed, connections to NATS use them from now on");
    } catch (IllegalArgumentException e) {
      refused = files;
      LOG.warn(
          "nats.tls: the files changed but cannot be used, connections to NATS use the ones read"
              + " before until they change again: {}",
          e.getMessage());
    }
  }

  private byte[] fingerprintQuietly() {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (Path p : new Path[] {tls.caFile(), tls.certChain(), tls.privateKey()}) {
        if (p != null) {
          sha.update(Files.readAllBytes(p));
          sha.update((byte) 0);
        }
      }
      return sha.digest();
    } catch (IOException e) {
      LOG.warn("nats.tls: cannot read the files ({}), using the ones read before", e.toString());
      return null;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  /** A key manager that asks the managers of now at each call. */
  X509ExtendedKeyManager keyManager() {
    return new X509ExtendedKeyManager() {
      @Override
      public String[] getClientAliases(String keyType, Principal[] issuers) {
        return now().keys().getClientAliases(keyType, issuers);
      }

      @Override
      public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return now().keys().chooseClientAlias(keyType, issuers, socket);
      }

      @Override
      public String chooseEngineClientAlias(
          String[] keyType, Principal[] issuers, SSLEngine engine) {
        return now().keys().chooseEngineClientAlias(keyType, issuers, engine);
      }

      @Override
      public String[] getServerAliases(String keyType, Principal[] issuers) {
        return now().keys().getServerAliases(keyType, issuers);
      }

      @Override
      public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return now().keys().chooseServerAlias(keyType, issuers, socket);
      }

      @Override
      public X509Certificate[] getCertificateChain(String alias) {
        return current.keys().getCertificateChain(alias);
      }

      @Override
      public PrivateKey getPrivateKey(String alias) {
        return current.keys().getPrivateKey(alias);
      }
    };
  }

  /** A trust manager that asks the managers of now at each call. */
  X509ExtendedTrustManager trustManager() {
    return new X509ExtendedTrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
          throws CertificateException {
        now().trust().checkClientTrusted(chain, authType, socket);
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
          throws CertificateException {
        now().trust().checkServerTrusted(chain, authType, socket);
      }

      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
          throws CertificateException {
        now().trust().checkClientTrusted(chain, authType, engine);
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
          throws CertificateException {
        now().trust().checkServerTrusted(chain, authType, engine);
      }

      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType)
          throws CertificateException {
        now().trust().checkClientTrusted(chain, authType);
      }

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType)
          throws CertificateException {
        now().trust().checkServerTrusted(chain, authType);
      }

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return current.trust().getAcceptedIssuers();
      }
    };
  }
}
