package io.tablecast.server.net;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * An in-process certificate authority for the TLS tests (BouncyCastle, EC P-256): a CA, a server
 * certificate for {@code localhost} / {@code 127.0.0.1} and a client certificate signed by it, and
 * an unrelated self-signed "rogue" CA with its own server certificate. Everything is written as PEM
 * files (keys as unencrypted PKCS#8) into the given directory.
 */
public final class TlsTestCerts {

  /** Subject of {@link #clientCert}. */
  public static final String CLIENT_SUBJECT = "CN=billing-client";

  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  public final Path caCert;
  public final Path serverCert;
  public final Path serverKey;
  public final Path clientCert;
  public final Path clientKey;

  /** A CA nobody trusts, and a server certificate (localhost/127.0.0.1) it signed. */
  public final Path rogueCaCert;

  public final Path rogueServerCert;
  public final Path rogueServerKey;

  /** A CA-signed server certificate naming only {@code elsewhere.example}. */
  public final Path wrongHostCert;

  public final Path wrongHostKey;

  private TlsTestCerts(Path dir) throws Exception {
    Files.createDirectories(dir);
    KeyPair ca = keyPair();
    X509Certificate caX =
        sign(
            new X500Name("CN=Tablecast Test CA"),
            ca,
            new X500Name("CN=Tablecast Test CA"),
            ca.getPublic(),
            Kind.CA,
            null);
    caCert = write(dir.resolve("ca.pem"), caX);
    KeyPair server = keyPair();
    serverCert =
        write(
            dir.resolve("server.pem"),
            sign(
                new X500Name("CN=Tablecast Test CA"),
                ca,
                new X500Name("CN=localhost"),
                server.getPublic(),
                Kind.SERVER,
                "localhost"),
            caX);
    serverKey = write(dir.resolve("server.key"), server.getPrivate());
    KeyPair client = keyPair();
    clientCert =
        write(
            dir.resolve("client.pem"),
            sign(
                new X500Name("CN=Tablecast Test CA"),
                ca,
                new X500Name(CLIENT_SUBJECT),
                client.getPublic(),
                Kind.CLIENT,
                null),
            caX);
    clientKey = write(dir.resolve("client.key"), client.getPrivate());
    KeyPair rogue = keyPair();
    X509Certificate rogueX =
        sign(
            new X500Name("CN=Rogue CA"),
            rogue,
            new X500Name("CN=Rogue CA"),
            rogue.getPublic(),
            Kind.CA,
            null);
    rogueCaCert = write(dir.resolve("rogue-ca.pem"), rogueX);
    KeyPair rogueServer = keyPair();
    rogueServerCert =
        write(
            dir.resolve("rogue-server.pem"),
            sign(
                new X500Name("CN=Rogue CA"),
                rogue,
                new X500Name("CN=localhost"),
                rogueServer.getPublic(),
                Kind.SERVER,
                "localhost"),
            rogueX);
    rogueServerKey = write(dir.resolve("rogue-server.key"), rogueServer.getPrivate());
    KeyPair wrong = keyPair();
    wrongHostCert =
        write(
            dir.resolve("wrong-host.pem"),
            sign(
                new X500Name("CN=Tablecast Test CA"),
                ca,
                new X500Name("CN=elsewhere.example"),
                wrong.getPublic(),
                Kind.SERVER,
                "elsewhere.example"),
            caX);
    wrongHostKey = write(dir.resolve("wrong-host.key"), wrong.getPrivate());
  }

  /** Generates all certificates into {@code dir}. */
  public static TlsTestCerts create(Path dir) {
    try {
      return new TlsTestCerts(dir);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create test certificates: " + e, e);
    }
  }

  private enum Kind {
    CA,
    SERVER,
    CLIENT
  }

  private static KeyPair keyPair() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  private static X509Certificate sign(
      X500Name issuer,
      KeyPair issuerKeys,
      X500Name subject,
      java.security.PublicKey subjectKey,
      Kind kind,
      String dnsName)
      throws Exception {
    Instant now = Instant.now();
    X509v3CertificateBuilder b =
        new JcaX509v3CertificateBuilder(
            issuer,
            BigInteger.valueOf(SERIAL.incrementAndGet()),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(2))),
            subject,
            subjectKey);
    JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
    b.addExtension(
        Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(subjectKey));
    b.addExtension(
        Extension.authorityKeyIdentifier,
        false,
        ext.createAuthorityKeyIdentifier(issuerKeys.getPublic()));
    switch (kind) {
      case CA -> {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        b.addExtension(
            Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      }
      case SERVER -> {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        b.addExtension(
            Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        GeneralName[] names =
            "localhost".equals(dnsName)
                ? new GeneralName[] {
                  new GeneralName(GeneralName.dNSName, dnsName),
                  new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                }
                : new GeneralName[] {new GeneralName(GeneralName.dNSName, dnsName)};
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
      }
      case CLIENT -> {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        b.addExtension(
            Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
      }
    }
    return new JcaX509CertificateConverter()
        .getCertificate(
            b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
  }

  private static Path write(Path file, X509Certificate... chain) throws Exception {
    StringBuilder s = new StringBuilder();
    for (X509Certificate c : chain) {
      s.append(pem("CERTIFICATE", c.getEncoded()));
    }
    Files.writeString(file, s, StandardCharsets.US_ASCII);
    return file;
  }

  private static Path write(Path file, PrivateKey key) throws IOException {
    Files.writeString(
        file, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII); // PKCS#8
    return file;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
