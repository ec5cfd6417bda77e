package io.tablecast.client;

import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.protocol.Message;
import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The client is a module ({@code module-info.java}) that exports its API package only: a modular
 * application can use it and cannot reach its engine.
 */
class ModuleBoundaryTest {

  @Test
  void theModuleExportsTheApiPackageOnlyAndOpensNothing() {
    ModuleDescriptor d =
        ModuleFinder.of(Path.of("target/classes"))
            .find("io.tablecast.client")
            .orElseThrow()
            .descriptor();
    assertThat(d.exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactly("io.tablecast.client");
    assertThat(d.exports()).noneMatch(ModuleDescriptor.Exports::isQualified);
    assertThat(d.opens()).isEmpty();
    assertThat(d.packages()).contains("io.tablecast.client.internal");
  }

  @Test
  void aModularApplicationMirrorsATableAndCannotReachTheEngine() throws Exception {
    List<String> modulePath = new ArrayList<>();
    List<String> classPath = new ArrayList<>();
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    for (String entry : cp.split(File.pathSeparator)) {
      String name = Path.of(entry).getFileName().toString();
      if (entry.endsWith("test-classes")) {
        classPath.add(entry);
      } else if (entry.endsWith("classes")
          || name.startsWith("tablecast-protocol")
          || name.startsWith("netty-")
          || name.startsWith("jackson-")
          || name.startsWith("slf4j-")
          || name.startsWith("caffeine-")) {
        modulePath.add(entry);
      }
    }
    Path output = Files.createTempFile(Path.of("target"), "modular-user", ".log");
    try (FakeServer server = new FakeServer()) {
      Process child =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "--module-path",
                  String.join(File.pathSeparator, modulePath),
                  "--add-modules",
                  "io.tablecast.client",
                  "-cp",
                  String.join(File.pathSeparator, classPath),
                  "io.tablecast.modulecheck.ModularUser",
                  server.address())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      try {
        FakeServer.Conn conn = server.accept(30);
        conn.expect(Message.Hello.class);
        conn.send(new Message.Welcome(1, "fake", FakeServer.EPOCH, 1, 10_000));
        conn.expect(Message.Subscribe.class);
        conn.snapshot(
            "shop.items",
            List.of("id"),
            1,
            row("id", 1, "name", "one"),
            row("id", 2, "name", "two"));
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the modular application ends").isTrue();
      } finally {
        child.destroyForcibly();
      }
      assertThat(Files.readString(output)).as("module path %s", modulePath).contains("MODULE OK");
      assertThat(child.exitValue()).isZero();
    }
  }
}
