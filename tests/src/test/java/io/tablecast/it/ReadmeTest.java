package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's configuration example is a valid configuration, and its commands exist. */
class ReadmeTest {

  static Path repoRoot() {
    for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("README.md")) && Files.exists(p.resolve("mvnw"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "cannot find the repository root above " + Paths.get("").toAbsolutePath());
  }

  @Test
  void tourConfigurationLoadsAsDocumented(@TempDir Path dir) throws Exception {
    String readme = Files.readString(repoRoot().resolve("README.md"));
    Matcher m = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL).matcher(readme);
    assertThat(m.find()).as("README has a yaml example").isTrue();
    Path cfg = dir.resolve("tablecast.yaml");
    Files.writeString(cfg, m.group(1));
    ServerConfig config = ServerConfig.load(cfg, Map.of());
    assertThat(config.listen().port()).isEqualTo(7070);
    assertThat(config.source().tableNames()).containsExactly("public.countries", "public.products");
    assertThat(config.source().installTriggers()).isTrue();
    assertThat(config.source().outboxRetention()).hasHours(1);
  }

  @Test
  void readmeCommandsAreTheOnesCiAndTheLauncherUse() throws Exception {
    Path root = repoRoot();
    String readme = Files.readString(root.resolve("README.md"));
    String ci = Files.readString(root.resolve(".ci/run"));
    assertThat(readme)
        .contains("./mvnw -q -DskipTests package && bin/tablecast demo")
        .contains("./mvnw -B verify");
    assertThat(ci).contains("\n./mvnw -B verify\n");
    assertThat(Files.isExecutable(root.resolve("bin/tablecast"))).isTrue();
    for (String command :
        new String[] {"serve", "print-sql", "install", "uninstall", "watch", "dump", "demo"}) {
      Cli help = Cli.run(command, "--help");
      assertThat(help.exitCode()).as(command + " --help").isZero();
    }
  }
}
