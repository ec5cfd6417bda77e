package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The client's packages form layers without a cycle: the API package ({@code io.tablecast.client})
 * uses the engine ({@code io.tablecast.client.internal}), and the engine never uses the API. A
 * reference from one package to another is an import or a qualified name in the source, so reading
 * the engine's sources finds every one.
 */
class PackageLayersTest {
  private static final Pattern API_REFERENCE =
      Pattern.compile("io\\.tablecast\\.client\\.(?!internal\\b)\\w+");

  @Test
  void theEngineNeverReferencesTheApiPackage() throws IOException {
    List<String> references = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java/io/tablecast/client/internal"))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String source = Files.readString(file);
        Matcher m = API_REFERENCE.matcher(source);
        while (m.find()) {
          references.add(file.getFileName() + ": " + m.group());
        }
      }
    }
    assertThat(references).isEmpty();
  }

  @Test
  void theClientHasTwoPackagesTheApiAndTheEngine() throws IOException {
    try (Stream<Path> dirs = Files.walk(Path.of("src/main/java/io/tablecast/client"))) {
      assertThat(dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()).toList())
          .containsExactlyInAnyOrder("client", "internal");
    }
  }
}
