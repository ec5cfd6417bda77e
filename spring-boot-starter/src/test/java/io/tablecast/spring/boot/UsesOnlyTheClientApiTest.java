package io.tablecast.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The starter uses the client's API package only: no compiled class of it names the client's engine
 * ({@code io.tablecast.client.internal}, not exported by the client's module) or the wire protocol.
 * On the class path, where Spring Boot applications run, nothing else would stop it.
 */
class UsesOnlyTheClientApiTest {

  @Test
  void noClassOfTheStarterReferencesTheClientsInternals() throws Exception {
    Path classes =
        Path.of(
            TablecastClientAutoConfiguration.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    List<Path> offending;
    int count;
    try (Stream<Path> files = Files.walk(classes)) {
      List<Path> all = files.filter(p -> p.toString().endsWith(".class")).toList();
      count = all.size();
      offending = all.stream().filter(UsesOnlyTheClientApiTest::namesInternals).toList();
    }
    assertThat(count).as("classes of the starter").isGreaterThan(10);
    assertThat(offending).isEmpty();
  }

  private static boolean namesInternals(Path classFile) {
    try {
      // class names in the constant pool are plain (modified UTF-8 of ASCII) text
      String text = new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
      return text.contains("io/tablecast/client/internal")
          || text.contains("io/tablecast/protocol");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
