package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every test the README and {@code docs/} cite as the proof of a promise exists: a citation is
 * {@code `[path/]ClassName.methodName`} (a test class name ends with {@code Test}), and the method
 * must be declared in a test source of that name somewhere in the repository. A promise whose proof
 * was renamed or deleted fails here instead of silently losing its test.
 */
class DocsCiteExistingTestsTest {

  /**
   * {@code `tail/ChangeSourceTest.someMethod`}, {@code `SomeTest.method`}, also inside longer code
   * spans.
   */
  private static final Pattern CITATION =
      Pattern.compile("`(?:[A-Za-z0-9_/]*/)?([A-Z][A-Za-z0-9]*Test)\\.([a-z][A-Za-z0-9_]*)");

  /** A further method of the same class listed right after a citation: {@code , `otherMethod`}. */
  private static final Pattern FOLLOW_UP = Pattern.compile("\\G\\s*,\\s*`([a-z][A-Za-z0-9_]*)`");

  @Test
  void everyCitedTestMethodExists() throws IOException {
    Path root = ReadmeTest.repoRoot();
    Map<String, List<Path>> testSources = testSources(root);
    List<Path> docs = new ArrayList<>();
    docs.add(root.resolve("README.md"));
    try (Stream<Path> s = Files.list(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    Set<String> missing = new TreeSet<>();
    int cited = 0;
    for (Path doc : docs) {
      String text = Files.readString(doc);
      Matcher m = CITATION.matcher(text);
      while (m.find()) {
        String cls = m.group(1);
        List<String> methods = new ArrayList<>(List.of(m.group(2)));
        int close = text.indexOf('`', m.end());
        if (close >= 0) { // `A.b`, `c`, `d`: c and d are methods of A too
          Matcher more = FOLLOW_UP.matcher(text);
          more.region(close + 1, text.length());
          while (more.find()) {
            methods.add(more.group(1));
          }
        }
        for (String method : methods) {
          cited++;
          if (!declares(testSources.getOrDefault(cls, List.of()), method)) {
            missing.add(root.relativize(doc) + ": " + cls + "." + method);
          }
        }
      }
    }
    assertThat(cited).as("citations found in the docs").isGreaterThan(30);
    assertThat(missing).as("tests cited by the docs that do not exist").isEmpty();
  }

  private static Map<String, List<Path>> testSources(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(
              p ->
                  p.toString().contains("/src/test/")
                      && p.toString().endsWith(".java")
                      && !p.toString().contains("/target/")
                      && !p.toString().contains("/node_modules/"))
          .collect(Collectors.groupingBy(p -> p.getFileName().toString().replace(".java", "")));
    }
  }

  private static boolean declares(List<Path> files, String method) throws IOException {
    Pattern declaration = Pattern.compile("\\bvoid\\s+" + Pattern.quote(method) + "\\s*\\(");
    for (Path f : files) {
      if (declaration.matcher(Files.readString(f)).find()) {
        return true;
      }
    }
    return false;
  }
}
