package io.tablecast.server.tail;

import io.tablecast.server.capture.TriggerInstaller;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * The database session of the capture's install at start, ended on the database's side when the
 * install was given up because an answer did not come ({@link TriggerInstaller#answerWithin}):
 * closing the connection ends nothing there. On PostgreSQL the install's transaction would keep the
 * locks of the tables it had reached (a trigger's creation holds their writers off) until {@code
 * idle_in_transaction_session_timeout} ended it (30 s), and a start made again would wait for them
 * too; on MySQL/MariaDB, where DDL commits at once, the session holds no lock, only a connection.
 * As for a tail's read given up ({@link LostAnswers}), only a session the database vouches for is
 * ended: behind a pooler or proxy the id the driver knows may name another client's session.
 */
final class InstallerSession {
  private static final Logger LOG = RecentEvents.logger(InstallerSession.class);

  private final TriggerInstaller installer;
  private final SessionProbe probe;

  /** The installer's session, as its driver and the database both say it; -1 when they do not. */
  private final long session;

  private InstallerSession(TriggerInstaller installer, SessionProbe probe, long session) {
    this.installer = installer;
    this.probe = probe;
    this.session = session;
  }

  /** The session of {@code installer}, asked of the database through {@code probe} (null: none). */
  static InstallerSession of(TriggerInstaller installer, SessionProbe probe) throws SQLException {
    if (probe == null) {
      return new InstallerSession(installer, null, -1);
    }
    long driver = probe.sessionOf(installer.connection());
    long database = driver < 0 ? -2 : probe.askSessionOf(installer.connection());
    return new InstallerSession(installer, probe, driver == database ? driver : -1);
  }

  /**
   * Ends the session, asked on a connection of its own, if it has waited for its client for {@code
   * idle} (the install's last answer was lost on the way); what it did is logged.
   */
  void endGivenUp(Duration idle) {
    if (session < 0) {
      return;
    }
    try (Connection other = installer.connectAgain(probe.boundedConnection())) {
      if (probe.end(other, session, Math.max(1, idle.toSeconds()))) {
        LOG.info(
            "ended the database session {} of the install given up (its locks went with it)",
            session);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.warn(
          "could not end the database session {} of the install given up (the database ends it"
              + " later): {}",
          session,
          e.toString());
    }
  }
}
