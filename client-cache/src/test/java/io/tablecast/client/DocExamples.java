package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the examples of docs/CLIENT.md the ones the tests compile and run: an example lies in a
 * test's source between {@code // --- NAME example start} and {@code // --- NAME example end}, and
 * the document shows it in the first {@code java} block after its section's heading.
 */
final class DocExamples {
  private DocExamples() {}

  /** docs/CLIENT.md, found above the working directory. */
  static Path clientDoc() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("docs/CLIENT.md"))) {
        return d.resolve("docs/CLIENT.md");
      }
    }
    throw new AssertionError("no docs/CLIENT.md above " + Path.of("").toAbsolutePath());
  }

  /** The first {@code java} block after {@code heading} (e.g. {@code "\n## Metrics\n"}). */
  static String javaBlockAfter(String heading) throws IOException {
    String doc = Files.readString(clientDoc());
    int section = doc.indexOf(heading);
    assertThat(section).as("a section %s in docs/CLIENT.md", heading.strip()).isPositive();
    int start = doc.indexOf("```java\n", section);
    return doc.substring(start, doc.indexOf("\n```\n", start));
  }

  /**
   * Fails naming the lines of the example {@code name} of {@code test}'s source that the block
   * after {@code heading} lacks (indentation aside).
   */
  static void assertDocumentShows(String heading, Class<?> test, String name) throws IOException {
    String block = javaBlockAfter(heading);
    String source =
        Files.readString(
            Path.of("src/test/java/io/tablecast/client/" + test.getSimpleName() + ".java"));
    String start = "// --- " + name + " example start";
    assertThat(source).as("the example %s in %s", name, test.getSimpleName()).contains(start);
    String example =
        source.substring(source.indexOf(start), source.indexOf("// --- " + name + " example end"));
    List<String> missing = new ArrayList<>();
    for (String line : example.lines().skip(1).map(String::strip).toList()) {
      if (!line.isEmpty() && !block.contains(line)) {
        missing.add(line);
      }
    }
    assertThat(missing).as("lines of the example missing from docs/CLIENT.md").isEmpty();
  }
}
