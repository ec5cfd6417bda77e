package io.tablecast.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The checkout the tests run in: the nearest directory above the working one holding {@code mvnw}.
 */
final class RepoRoot {
  private RepoRoot() {}

  static Path path() {
    for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.exists(d.resolve("mvnw"))) {
        return d;
      }
    }
    throw new IllegalStateException("no mvnw above " + Paths.get("").toAbsolutePath());
  }
}
