package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.server.testing.TestDatabases.Isolated;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class-data sharing for the server roles (docs/INSTALL.md, "Start time"), run as a
 * user runs it: {@code bin/tablecast serve} as a process of its own. The first started run writes
 * an archive of its classes at exit, the next one adopts it and loads its classes from it; an
 * archive of a run refused at start, or one cut short, is never used; {@code TABLECAST_CDS=off}
 * writes nothing.
 */
class LauncherClassSharingTest {
  /** The JVM option that lists the classes a run loaded and where from, in {@link #classLog}. */
  private static final String CLASS_LOG_OPTION = "-Xlog:class+load=info:file=";

  @TempDir static Path dir;
  private static Path served;
  private static Path refused;

  @BeforeAll
  static void configurations() throws Exception {
    Isolated db = Kind.POSTGRESQL.isolated("launcher_cds");
    db.execute("CREATE TABLE prices (id int PRIMARY KEY, price decimal(8,2))");
    db.execute("INSERT INTO prices VALUES (1, 4.20)");
    served = config("served.yaml", db.jdbcUrl(), db.table("prices"));
    refused = config("refused.yaml", db.jdbcUrl(), db.table("no_such_table"));
  }

  @Test
  void theFirstStartedRunWritesTheArchiveAndTheNextStartsFromIt() throws Exception {
    Path cds = Files.createDirectories(dir.resolve("cds-adopted"));
    assertThat(stopAfterStart(cds, Map.of())).isEqualTo(143);
    assertThat(names(cds))
        .as("the archive the first run wrote at exit, and its mark of a started run")
        .hasSize(2)
        .anyMatch(n -> n.matches("serve-\\d+\\.jsa\\.\\d+\\.new"))
        .anyMatch(n -> n.matches("serve-\\d+\\.jsa\\.\\d+\\.new\\.started"));
    assertThat(classesFromTheArchive()).as("the first run had no archive to start from").isZero();

    // archives of other jars, JVMs or options: one unused for eight days, one of today
    Path stale = Files.writeString(cds.resolve("serve-1.jsa"), "");
    Files.setLastModifiedTime(stale, FileTime.from(Instant.now().minus(Duration.ofDays(8))));
    Files.writeString(cds.resolve("serve-2.jsa"), "");
    assertThat(stopAfterStart(cds, Map.of())).isEqualTo(143);
    assertThat(names(cds))
        .as("adopted, under its own name; the stale other one removed, today's kept")
        .hasSize(2)
        .contains("serve-2.jsa")
        .anyMatch(n -> n.matches("serve-\\d{3,}\\.jsa"));
    assertThat(classesFromTheArchive())
        .as("classes the second run loaded from the archive")
        .isGreaterThan(2_000);

    // other JVM options: not this archive (which they might not map), but one of their own
    String otherOptions = "-Xmx300m -XX:TieredStopAtLevel=1 " + CLASS_LOG_OPTION + classLog();
    assertThat(stopAfterStart(cds, Map.of("TABLECAST_JAVA_OPTS", otherOptions))).isEqualTo(143);
    assertThat(classesFromTheArchive()).isZero();
    assertThat(names(cds)).hasSize(4).anyMatch(n -> n.endsWith(".new.started"));
  }

  @Test
  void aHeapWithoutCompressedReferencesGetsItsArchiveToo() throws Exception {
    // over 32 GB (reserved, not used) the JVM maps archives on another base: the launcher's check
    // of a new archive must map it as the server will
    Path cds = Files.createDirectories(dir.resolve("cds-big-heap"));
    Map<String, String> env =
        Map.of(
            "TABLECAST_JAVA_OPTS",
            "-Xmx40g -XX:TieredStopAtLevel=1 " + CLASS_LOG_OPTION + classLog());
    assertThat(stopAfterStart(cds, env)).isEqualTo(143);
    assertThat(stopAfterStart(cds, env)).isEqualTo(143);
    assertThat(names(cds)).hasSize(1).allMatch(n -> n.matches("serve-\\d+\\.jsa"));
    assertThat(classesFromTheArchive()).isGreaterThan(2_000);
  }

  @Test
  void anArchiveOfARunRefusedAtStartIsNeverUsed() throws Exception {
    Path cds = Files.createDirectories(dir.resolve("cds-refused"));
    assertThat(run(refused, cds, Map.of()).waitFor(60, TimeUnit.SECONDS)).isTrue();
    List<String> first = names(cds);
    assertThat(first)
        .as("an archive, but no mark of a started run")
        .hasSize(1)
        .allMatch(n -> n.endsWith(".new"));

    assertThat(stopAfterStart(cds, Map.of())).isEqualTo(143);
    assertThat(classesFromTheArchive()).as("the refused run's archive was not used").isZero();
    assertThat(names(cds))
        .as("the refused run's archive removed; this run's own written")
        .doesNotContainAnyElementsOf(first)
        .anyMatch(n -> n.endsWith(".new.started"));
  }

  @Test
  void anArchiveCutShortIsRemovedAndTheServerStartsWithoutIt() throws Exception {
    Path whole = Files.createDirectories(dir.resolve("cds-whole"));
    assertThat(stopAfterStart(whole, Map.of())).isEqualTo(143);
    Path written =
        names(whole).stream()
            .filter(n -> n.endsWith(".new"))
            .map(whole::resolve)
            .findFirst()
            .orElseThrow();
    // the same archive, cut to half as by a run killed while writing it, of a run long gone
    Path cds = Files.createDirectories(dir.resolve("cds-cut"));
    String name = written.getFileName().toString().replaceAll("\\.\\d+\\.new$", ".2147483646.new");
    byte[] bytes = Files.readAllBytes(written);
    Files.write(cds.resolve(name), Arrays.copyOf(bytes, bytes.length / 2));
    Files.writeString(cds.resolve(name + ".started"), "");

    assertThat(stopAfterStart(cds, Map.of()))
        .as("started and stopped as without an archive")
        .isEqualTo(143);
    assertThat(classesFromTheArchive()).isZero();
    assertThat(names(cds)).doesNotContain(name, name + ".started");
  }

  @Test
  void offWritesNothing() throws Exception {
    Path cds = Files.createDirectories(dir.resolve("cds-off"));
    assertThat(stopAfterStart(cds, Map.of("TABLECAST_CDS", "off"))).isEqualTo(143);
    assertThat(names(cds)).isEmpty();
  }

  @Test
  void aDirectoryThatCannotBeUsedMeansNoArchiveNotAnError() throws Exception {
    Path spaced = Files.createDirectories(dir.resolve("cds with a space"));
    assertThat(stopAfterStart(spaced, Map.of())).isEqualTo(143);
    assertThat(names(spaced)).isEmpty();
    Path file = Files.writeString(dir.resolve("a-file"), "");
    assertThat(stopAfterStart(file.resolve("cds"), Map.of())).isEqualTo(143);
  }

  /** Starts a server on the served table, waits for its start, stops it: its exit status. */
  private static int stopAfterStart(Path cds, Map<String, String> env) throws Exception {
    Process server = run(served, cds, env);
    Path log = dir.resolve("serve.log");
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                String text = Files.readString(log);
                assertThat(server.isAlive()).as("the server runs; its log:%n%s", text).isTrue();
                return text.contains("started on 127.0.0.1:");
              });
    } finally {
      server.destroy(); // SIGTERM: the JVM writes its archive as it exits
    }
    assertThat(server.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return server.exitValue();
  }

  private static Process run(Path config, Path cds, Map<String, String> env) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
                RepoRoot.path().resolve("bin/tablecast").toString(),
                "serve",
                "--config",
                config.toString())
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("serve.log").toFile());
    Files.deleteIfExists(classLog());
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().put("TABLECAST_CDS_DIR", cds.toString());
    pb.environment()
        .put(
            "TABLECAST_JAVA_OPTS",
            "-Xmx256m -XX:TieredStopAtLevel=1 " + CLASS_LOG_OPTION + classLog());
    pb.environment().putAll(env);
    return pb.start();
  }

  /** How many classes the last run loaded from the launcher's archive (the JVM's top archive). */
  private static long classesFromTheArchive() throws IOException {
    try (Stream<String> lines = Files.lines(classLog())) {
      return lines.filter(l -> l.contains("source: shared objects file (top)")).count();
    }
  }

  private static Path classLog() {
    return dir.resolve("classes.txt");
  }

  private static List<String> names(Path cds) throws IOException {
    try (Stream<Path> files = Files.list(cds)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static Path config(String name, String jdbcUrl, String table) throws IOException {
    return Files.writeString(
        dir.resolve(name),
        String.join(
            "\n",
            "listen: { host: 127.0.0.1, port: 0 }",
            "source:",
            "  jdbc_url: '" + jdbcUrl + "'",
            "  install_triggers: true",
            "cached_tables: [" + table + "]",
            ""));
  }
}
