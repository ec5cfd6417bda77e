package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.Credentials;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.WeakHashMap;

/**
 * Tells a read the database answered but whose answer never arrived from one that is only slow, and
 * abandons the first. A connection whose packets are dropped (a NAT or firewall that forgot it, a
 * cable pulled between two routers) leaves the tail's read waiting until the operating system gives
 * the connection up, a quarter of an hour by Linux's defaults, or for ever when something still
 * acknowledges its packets: {@link UnansweredPollWatch} says every table stale meanwhile, and this
 * cures it. On a connection of its own, it asks the database about the session the read is in
 * ({@link SessionProbe}): a session that has been waiting for its client's next request for as long
 * as the read has gone unanswered is not working on the read, so the read's connection is aborted;
 * the read fails, and the tail makes it again on a new connection, from the same position (nothing
 * is lost, {@link PollingChangeSource#readOnce}). So is the read's connection when the new one
 * reaches another database instance ({@link InstanceWatch#elsewhere}): a failover moved the address
 * while the old host went silent; the read made again finds the new instance, and every table is
 * read whole there. A session at work (a long read, a lock wait), one the database does not show,
 * one it says the read's connection is not (a pooler between: {@link SessionProbe#askSessionOf},
 * asked once per connection), or a database that cannot be asked leave the read alone.
 *
 * <p>The session of a read given up is then ended on the database's side ({@link
 * SessionProbe#end}): closing the connection ends nothing there, and the session would keep its
 * locks for hours. Only a session the database itself said the connection is ({@link
 * SessionProbe#askSessionOf}, asked once per connection) is ended, and only on the instance the
 * tail reads from: behind a pooler the id the driver knows may name another client's session, and
 * after a restart the database gives ids again.
 *
 * <p>Thread-safe: the tail thread says which connection it reads on, the watch's thread asks.
 */
final class LostAnswers {
  private final HikariDataSource pool;
  private final SessionProbe probe;
  private final InstanceWatch instance;
  private final Object lock = new Object();

  /** The connection of the read in progress, or null (guarded by lock). */
  private Connection reading;

  /** Its server session, or -1 (guarded by lock). */
  private long session = -1;

  /** What each physical connection's driver and database said its session is (guarded by lock). */
  private final Map<Connection, Said> said = new WeakHashMap<>();

  /** A connection's session id as its driver knows it, and as the database said it then. */
  private record Said(long driver, long database) {
    boolean vouched() {
      return driver >= 0 && driver == database;
    }
  }

  LostAnswers(HikariDataSource pool, SessionProbe probe, InstanceWatch instance) {
    this.pool = pool;
    this.probe = probe;
    this.instance = instance;
  }

  /** The read in progress uses {@code c} from now on. Tail thread. */
  void reading(Connection c) throws SQLException {
    long id = probe.sessionOf(c);
    synchronized (lock) {
      reading = c;
      session = id;
    }
    ask(c, id); // after: a lost answer to the question is given up as the read's is
  }

  /** Asks the database which session {@code c} is, unless it said it for this id before. */
  private void ask(Connection c, long id) throws SQLException {
    if (id < 0 || saidOf(c, id) != null) {
      return;
    }
    long database = probe.askSessionOf(c);
    synchronized (lock) {
      said.put(c.unwrap(Connection.class), new Said(id, database));
    }
  }

  /**
   * What the database said of {@code c} while its driver knew it as {@code id}; null: not asked.
   */
  private Said saidOf(Connection c, long id) throws SQLException {
    Connection physical = c.unwrap(Connection.class);
    synchronized (lock) {
      Said known = said.get(physical);
      return known != null && known.driver == id ? known : null;
    }
  }

  /** Whether the database said {@code c} is the session {@code id}. */
  private boolean vouched(Connection c, long id) throws SQLException {
    Said known = saidOf(c, id);
    return known != null && known.vouched();
  }

  /**
   * Whether the database said {@code c} is another session than {@code id}: a pooler or proxy
   * between, whose id may name another client's session, idle for long (a proxy's own pooled
   * connections are), which would have every long read given up, made again, and given up again.
   * Not yet asked is not denied: the question itself may be the read whose answer was lost.
   */
  private boolean denied(Connection c, long id) throws SQLException {
    Said known = saidOf(c, id);
    return known != null && !known.vouched();
  }

  /** The read in progress returned or failed. Tail thread. */
  void readEnded() {
    synchronized (lock) {
      reading = null;
      session = -1;
    }
  }

  /**
   * When the database says the session of the read in progress has waited for its client for at
   * least {@code idleSeconds}, aborts the read's connection and returns what it found, for the log;
   * null when it left the read alone. Throws when the database could not be asked.
   */
  String abandonIfLost(long idleSeconds) throws SQLException {
    Connection c;
    long id;
    synchronized (lock) {
      c = reading;
      id = session;
    }
    if (c == null) {
      return null;
    }
    try (Connection other = bounded()) {
      String moved = instance.elsewhere(other);
      long idle = moved != null || id < 0 || denied(c, id) ? -1 : probe.idleSeconds(other, id);
      String found;
      if (moved != null) {
        found = moved + " (a failover moved the address)";
      } else if (idle >= idleSeconds) {
        found =
            "the database says the session of the tail's read ("
                + id
                + ") has waited "
                + idle
                + " s for its client: the read's answer, or its request, was lost on the way";
      } else {
        return null;
      }
      boolean ours = moved == null && vouched(c, id);
      synchronized (lock) { // still the same read: the tail thread waits for the abort to be done
        if (reading != c) {
          return null;
        }
        c.unwrap(Connection.class).abort(Runnable::run);
      }
      found += ". The read's connection was aborted, and the read is made again on a new one";
      return ours && ended(other, id, idleSeconds)
          ? found + "; the database ended the session, and the locks and snapshot it held"
          : found;
    }
  }

  /**
   * What ends {@code c}'s session on the database's side once the server gave it up, when the
   * session has waited {@code idleSeconds} for its client by then ({@link AbandonedSessions}):
   * nothing, unless the database says, asked on {@code c} now, that {@code c} is the session its
   * driver knows.
   */
  Runnable abandoning(Connection c, long idleSeconds) throws SQLException {
    long id = probe.sessionOf(c);
    ask(c, id);
    if (!vouched(c, id)) {
      return () -> {};
    }
    return () -> {
      try (Connection other = bounded()) {
        if (instance.elsewhere(other) == null) {
          ended(other, id, idleSeconds);
        }
      } catch (SQLException e) { // the database cannot be reached: nothing to end there now
        return;
      }
    };
  }

  /** Ends the lost read's session on the database's side, where it can say it is the server's. */
  private boolean ended(Connection other, long session, long idleSeconds) {
    try {
      return probe.end(other, session, idleSeconds);
    } catch (SQLException e) { // not allowed, or the database went away meanwhile
      return false;
    }
  }

  /** A connection of its own to the pool's database, outside the pool, bounded in time. */
  private Connection bounded() throws SQLException {
    Properties props = new Properties();
    props.putAll(pool.getDataSourceProperties());
    Credentials credentials = // a source.password_file's password as it is now
        pool.getCredentialsProvider() == null
            ? pool.getCredentials()
            : pool.getCredentialsProvider().getCredentials();
    if (credentials.getUsername() != null) {
      props.setProperty("user", credentials.getUsername());
    }
    if (credentials.getPassword() != null) {
      props.setProperty("password", credentials.getPassword());
    }
    props.putAll(probe.boundedConnection());
    return DriverManager.getConnection(pool.getJdbcUrl(), props);
  }
}
