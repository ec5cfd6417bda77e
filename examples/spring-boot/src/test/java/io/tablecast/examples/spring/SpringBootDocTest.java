package io.tablecast.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.spring.boot.TablecastClientAutoConfiguration;
import io.tablecast.spring.boot.TablecastClientProperties;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The "Spring Boot" section of docs/CLIENT.md and the README's line about the starter say what the
 * example and the starter do: the code blocks are the example's own lines, the property table is
 * the starter's metadata, and the README's settings configure a client and a mirror.
 */
class SpringBootDocTest {
  static final Path ROOT = repoRoot();
  private static final Path EXAMPLE = ROOT.resolve("examples/spring-boot/src/main");

  @Test
  void theSectionsCodeBlocksAreTheExamplesOwnLines() throws IOException {
    List<String> blocks = new ArrayList<>();
    Matcher m = Pattern.compile("```(yaml|java)\n(.*?)```", Pattern.DOTALL).matcher(section());
    while (m.find()) {
      blocks.add(m.group(2));
    }
    assertThat(blocks).hasSize(2);
    assertLinesTakenFrom(blocks.get(0), EXAMPLE.resolve("resources/application.yaml"));
    assertLinesTakenFrom(
        blocks.get(1), EXAMPLE.resolve("java/io/tablecast/examples/spring/ProductController.java"));
  }

  @Test
  void thePropertyTableIsTheStartersMetadata() throws Exception {
    Map<String, String> documented = new TreeMap<>(); // property -> default as the table gives it
    Matcher row =
        Pattern.compile("(?m)^\\|\\s*(`tablecast\\.client\\.[^|]*?)\\s*\\|\\s*([^|]*?)\\s*\\|")
            .matcher(section());
    while (row.find()) {
      List<String> names = new ArrayList<>();
      Matcher name =
          Pattern.compile("`(tablecast\\.client\\.[A-Za-z.-]+|\\.[a-z-]+)`").matcher(row.group(1));
      while (name.find()) { // `a.b.min`, `.max`: the second is a sibling of the first
        String n = name.group(1);
        names.add(
            n.startsWith(".") ? names.get(0).substring(0, names.get(0).lastIndexOf('.')) + n : n);
      }
      String[] defaults = row.group(2).split(", ");
      for (int i = 0; i < names.size(); i++) {
        documented.put(
            names.get(i), defaults.length == names.size() ? defaults[i].replace("`", "") : "");
      }
    }
    Map<String, String> metadata = new TreeMap<>();
    JsonNode json = starterMetadata();
    for (JsonNode p : json.path("properties")) {
      String name = p.path("name").asText();
      metadata.put(
          name.equals("tablecast.client.mirrors") ? name + ".NAME.table" : name,
          p.path("defaultValue").isMissingNode() ? "" : p.path("defaultValue").asText());
    }
    metadata.put("tablecast.client.mirrors.NAME.type", "");
    metadata.put(
        "tablecast.client.name",
        documented.get("tablecast.client.name")); // computed: no literal default
    assertThat(documented).isEqualTo(metadata);
  }

  @Test
  void theReadmeLineConfiguresAClientAndAMirror() throws IOException {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int at = readme.indexOf("`tablecast-spring-boot-starter`");
    assertThat(at).as("README mentions the starter").isPositive();
    String paragraph = readme.substring(at, readme.indexOf("\n\n", at));
    List<String> settings = new ArrayList<>();
    Matcher setting =
        Pattern.compile("`(tablecast\\.client\\.[a-z.-]+): ([^`]+)`").matcher(paragraph);
    while (setting.find()) {
      settings.add(setting.group(1) + "=" + setting.group(2));
    }
    assertThat(settings).hasSize(2);
    assertThat(paragraph).contains("`TableMirror<Product>`");
    assertThat(
            Files.readString(
                EXAMPLE.resolve("java/io/tablecast/examples/spring/ProductController.java")))
        .contains("TableMirror<Product> products");
    Matcher link = Pattern.compile("\\]\\(([^)#]+)(#[^)]*)?\\)").matcher(paragraph);
    while (link.find()) {
      assertThat(ROOT.resolve(link.group(1))).as("README link").exists();
    }
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(TablecastClientAutoConfiguration.class))
        .withPropertyValues(settings.toArray(new String[0]))
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(TablecastClient.class);
              assertThat(context.getBean("products", TableMirror.class).table())
                  .isEqualTo("public.products");
            });
  }

  /**
   * The starter's META-INF/spring-configuration-metadata.json, from its classes folder or its jar.
   */
  private static JsonNode starterMetadata() throws Exception {
    Path location =
        Path.of(
            TablecastClientProperties.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    String file = "META-INF/spring-configuration-metadata.json";
    if (Files.isDirectory(location)) {
      return new ObjectMapper().readTree(location.resolve(file).toFile());
    }
    try (FileSystem jar = FileSystems.newFileSystem(location)) {
      return new ObjectMapper().readTree(Files.readString(jar.getPath(file)));
    }
  }

  private static String section() throws IOException {
    String doc = Files.readString(ROOT.resolve("docs/CLIENT.md"));
    int start = doc.indexOf("\n## Spring Boot\n");
    assertThat(start).as("docs/CLIENT.md has a Spring Boot section").isPositive();
    int next = doc.indexOf("\n## ", start + 1);
    return doc.substring(start, next < 0 ? doc.length() : next);
  }

  /**
   * Every line of {@code block} is a line of {@code file}, in the same order (lines between may be
   * left out).
   */
  private static void assertLinesTakenFrom(String block, Path file) throws IOException {
    List<String> fileLines = Files.readAllLines(file).stream().map(String::stripTrailing).toList();
    int at = 0;
    for (String line :
        block.lines().map(String::stripTrailing).filter(l -> !l.isEmpty()).toList()) {
      while (at < fileLines.size() && !fileLines.get(at).equals(line)) {
        at++;
      }
      assertThat(at)
          .as("'%s' is a line of %s, after the block's previous lines", line, ROOT.relativize(file))
          .isLessThan(fileLines.size());
      at++;
    }
  }

  private static Path repoRoot() {
    for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("README.md")) && Files.exists(p.resolve("mvnw"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "cannot find the repository root above " + Paths.get("").toAbsolutePath());
  }
}
