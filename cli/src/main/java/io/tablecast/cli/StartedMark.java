package io.tablecast.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the launcher ({@code bin/tablecast}) that this run of a server role started: when the JVM
 * writes a class-data-sharing archive at its exit ({@code -XX:ArchiveClassesAtExit}), the launcher
 * names it in {@value #ARCHIVE_PROPERTY}, and adopts it for later runs only if this mark is beside
 * it. A run refused at start would leave an archive of a fraction of the classes a start loads.
 */
final class StartedMark {
  /** The system property the launcher sets to the archive this run writes at exit. */
  static final String ARCHIVE_PROPERTY = "tablecast.cds.archive";

  private static final Logger LOG = LoggerFactory.getLogger(StartedMark.class);

  private StartedMark() {}

  /** Writes {@code ARCHIVE.started} when the launcher named an archive; else does nothing. */
  static void started() {
    String archive = System.getProperty(ARCHIVE_PROPERTY);
    if (archive == null || archive.isEmpty()) {
      return;
    }
    try {
      Files.writeString(Path.of(archive + ".started"), "");
    } catch (IOException | RuntimeException e) {
      // only the next start's speed depends on it
      LOG.debug("could not mark the class-data-sharing archive {} as of a started run", archive, e);
    }
  }
}
