package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar ({@code cli/target/tablecast.jar}, one jar of every dependency) registers every
 * service provider its classes include: where several jars list providers of one service ({@code
 * META-INF/services}), the shaded file lists all of them. A provider dropped there is a silent
 * change in behaviour with nothing failing in the tests, which run on the modules' class path: a
 * MariaDB Connector/J codec gone (the driver's own, or Tablecast's {@code RowPacketCodec}, which
 * reads whole tables as the driver received them), a Jackson module, a database family.
 */
class ShadedJarServicesTest {
  private static final String SERVICES = "META-INF/services/";

  @TempDir Path dir;

  @Test
  void everyProviderOfTheModulesJarsThatTheShadedJarHoldsIsRegisteredThere() throws IOException {
    Path jar = RepoRoot.path().resolve("cli/target/tablecast.jar");
    assertThat(jar).as("the CLI jar (built by the cli module before the tests)").exists();
    List<String> checked = new ArrayList<>();
    assertThat(unregisteredProviders(jar, checked)).as("providers not registered").isEmpty();
    assertThat(checked)
        .as("services checked")
        .contains(
            "org.mariadb.jdbc.plugin.Codec",
            "java.sql.Driver",
            "io.tablecast.server.capture.DatabaseFamily");
  }

  @Test
  void aServiceFileOfOneJarOverwritingTheOthersIsFound() throws IOException {
    Path jar = RepoRoot.path().resolve("cli/target/tablecast.jar");
    Path broken = dir.resolve("broken.jar");
    String codecs = SERVICES + "org.mariadb.jdbc.plugin.Codec";
    try (ZipFile in = new ZipFile(jar.toFile());
        OutputStream file = Files.newOutputStream(broken);
        ZipOutputStream out = new ZipOutputStream(file)) {
      for (ZipEntry e : Collections.list(in.entries())) {
        out.putNextEntry(new ZipEntry(e.getName()));
        if (e.getName().equals(codecs)) { // as a shade without the services transformer leaves it
          out.write("io.tablecast.server.mysql.RowPacketCodec\n".getBytes(StandardCharsets.UTF_8));
        } else {
          try (InputStream data = in.getInputStream(e)) {
            data.transferTo(out);
          }
        }
        out.closeEntry();
      }
    }
    assertThat(unregisteredProviders(broken, new ArrayList<>()))
        .contains(codecs + ": org.mariadb.jdbc.plugin.codec.StringCodec");
  }

  /**
   * Per service file of {@code jar}, each provider that a copy of that file on this class path
   * lists, whose class {@code jar} holds, and that {@code jar}'s own file does not list; {@code
   * checked} receives the services looked at.
   */
  private static Set<String> unregisteredProviders(Path jar, List<String> checked)
      throws IOException {
    Set<String> missing = new TreeSet<>();
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (ZipEntry e : Collections.list(zip.entries())) {
        String name = e.getName();
        if (!name.startsWith(SERVICES) || name.length() == SERVICES.length() || e.isDirectory()) {
          continue;
        }
        checked.add(name.substring(SERVICES.length()));
        Set<String> registered;
        try (InputStream data = zip.getInputStream(e)) {
          registered = providers(data);
        }
        for (URL copy : Collections.list(ClassLoader.getSystemClassLoader().getResources(name))) {
          try (InputStream data = copy.openStream()) {
            for (String provider : providers(data)) {
              boolean shipped = zip.getEntry(provider.replace('.', '/') + ".class") != null;
              if (shipped && !registered.contains(provider)) {
                missing.add(name + ": " + provider);
              }
            }
          }
        }
      }
    }
    return missing;
  }

  /** The provider names a service file lists (comments and blank lines left out). */
  private static Set<String> providers(InputStream file) throws IOException {
    Set<String> names = new LinkedHashSet<>();
    BufferedReader lines = new BufferedReader(new InputStreamReader(file, StandardCharsets.UTF_8));
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      int comment = line.indexOf('#');
      String name = (comment < 0 ? line : line.substring(0, comment)).trim();
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return names;
  }
}
