package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's demo command as a user runs it: {@code bin/tablecast demo}, a separate process
 * running the built jar ({@code java -jar cli/target/tablecast.jar}) with its embedded PostgreSQL.
 */
class LauncherTest {

  @TempDir Path dir;

  @Test
  void demoThroughTheLauncherUsesJavaHomeShowsLiveChangesAndExitsZero() throws Exception {
    Path root = RepoRoot.path();
    Path launcher = root.resolve("bin/tablecast");
    assertThat(root.resolve("cli/target/tablecast.jar"))
        .as("the CLI jar (built by the cli module before the tests)")
        .exists();
    // a `java` first on the PATH that is not the one JAVA_HOME names: the launcher must not run it
    Path fakeBin = Files.createDirectories(dir.resolve("bin"));
    Path fakeJava = fakeBin.resolve("java");
    Files.writeString(
        fakeJava,
        "#!/bin/sh\necho 'the java on the PATH ran, not $JAVA_HOME/bin/java' >&2\nexit 97\n");
    Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path log = dir.resolve("demo.log");

    ProcessBuilder pb =
        new ProcessBuilder(launcher.toString(), "demo", "--port", "0")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("PATH", fakeBin + ":/usr/local/bin:/usr/bin:/bin");
    pb.environment().put("TABLECAST_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1");
    Process demo = pb.start();
    try {
      boolean exited = demo.waitFor(3, TimeUnit.MINUTES); // embedded PostgreSQL start included
      String out = Files.readString(log);
      assertThat(exited).as("the demo ended within 3 minutes; output so far:%n%s", out).isTrue();
      assertThat(demo.exitValue()).as(out).isZero();
      assertThat(out)
          .contains("starting an embedded PostgreSQL")
          .contains("mirror< INSERT key=4")
          .contains("mirror< UPDATE key=2 price: 4.20 -> 3.99")
          .contains("mirror< DELETE key=4")
          .contains("{\"id\":2,\"name\":\"Green tea\",\"price\":\"3.99\",\"in_stock\":true}")
          // without --verbose the story is not buried in the server's and client's INFO lines
          .doesNotContain(" INFO ");
    } finally { // on timeout: no embedded PostgreSQL left behind
      demo.descendants().forEach(ProcessHandle::destroyForcibly);
      demo.destroyForcibly().waitFor();
    }
  }
}
