package io.tablecast.server.tail;

import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Which database instance the tail's position belongs to. A standby promoted behind the same
 * address may lack the last transactions the tail read and give their transaction ids or outbox ids
 * to new ones; a restore or a crash may lose rows the tail read; PostgreSQL empties {@code
 * UNLOGGED} tables in a crash. Reading on from the old position would then skip the new changes and
 * keep rows that are gone, silently.
 *
 * <p>Every physical connection the tail reads on is identified once, before its first read ({@link
 * #check}): a restart or a failover breaks every connection, so a new instance is always met on a
 * new connection. On another instance the read is refused ({@link InstanceChangedException}) and
 * {@link #changed()} holds until a snapshot of every cached table read on that instance positions
 * the tail again ({@link #positioned}). Where a read returns the server's start time with its rows
 * ({@link #confirm}), or the server session it ran in ({@link #confirmSession}), a connection that
 * reaches another server behind the same client connection (a pooler, or the driver's own failover)
 * is found too. Only the tail's thread calls it.
 */
public final class InstanceWatch {
  private static final Logger LOG = RecentEvents.logger(InstanceWatch.class);

  /** Identifies the instance a connection reaches, in one or two small queries. */
  @FunctionalInterface
  public interface Identify {
    DatabaseInstance of(Connection c) throws SQLException;
  }

  private final Identify identify;

  /** Physical connections identified as {@link #readFrom}'s; weak, as the pool drops them. */
  private final Set<Connection> known = Collections.newSetFromMap(new WeakHashMap<>());

  /** The server session each physical connection's last confirmed read ran in. */
  private final Map<Connection, String> sessions = new WeakHashMap<>();

  private long confirmedNanos;

  /** Written by the tail thread; read by the watch's too ({@link #elsewhere}). */
  private volatile DatabaseInstance readFrom;

  /**
   * Another instance was met and not read whole yet: the next reads are whole reads there. Written
   * by the tail thread; read by the watch's too ({@link #elsewhere}).
   */
  private volatile DatabaseInstance arrived;

  /**
   * @param identify null: a watch that identifies nothing and takes every connection as it is
   */
  public InstanceWatch(Identify identify) {
    this.identify = identify;
  }

  /**
   * Returns {@code c} when it reaches the instance the position was read from (identifying it if it
   * is new to the watch); otherwise closes it and throws.
   *
   * @throws InstanceChangedException on another instance: {@link #changed()} is true from now on
   */
  public Connection check(Connection c) throws SQLException {
    try {
      return verify(c);
    } catch (InstanceChangedException e) {
      c.close();
      throw e;
    }
  }

  /** {@link #check} but for closing {@code c} on another instance: the caller does. */
  private Connection verify(Connection c) throws SQLException {
    if (identify == null || readFrom == null) {
      return c;
    }
    Connection physical = physical(c);
    if (arrived == null && known.contains(physical)) {
      return c;
    }
    DatabaseInstance now = identify(c);
    if (arrived == null && now.sameAs(readFrom)) {
      known.add(physical);
      return c;
    }
    InstanceChangedException e = new InstanceChangedException(readFrom, now);
    if (arrived == null || !arrived.sameAs(now)) {
      LOG.warn("{}", e.getMessage());
    }
    arrived = now;
    throw e;
  }

  /**
   * The instance {@code c} reaches, on which a snapshot of every cached table is about to be read;
   * null when this watch identifies nothing. Once that read succeeded, {@link #positioned} makes it
   * the instance the position belongs to. Closes {@code c} when it fails.
   */
  public DatabaseInstance identify(Connection c) throws SQLException {
    if (identify == null) {
      return null;
    }
    try {
      return identify.of(c);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * What tells that {@code other}, a connection of its own, reaches another instance than the one
   * the tail reads from (a failover moved the address): the position's, or the one met since, where
   * every table is being read whole; null when it reaches the same one, or this watch cannot tell.
   * Any thread.
   */
  public String elsewhere(Connection other) throws SQLException {
    DatabaseInstance met = arrived;
    DatabaseInstance from = met != null ? met : readFrom;
    if (identify == null || from == null) {
      return null;
    }
    DatabaseInstance now = identify.of(other);
    return now == null || now.sameAs(from)
        ? null
        : "a new connection reaches "
            + now
            + ", not "
            + from
            + ", where the read's connection went";
  }

  /** A snapshot of every cached table was read on {@code at}: the position is that instance's. */
  public void positioned(DatabaseInstance at) {
    if (at == null) {
      return;
    }
    if (readFrom == null || !at.sameAs(readFrom)) {
      known.clear(); // connections to the former instance are identified again, never trusted
      sessions.clear();
    }
    readFrom = at;
    arrived = null;
  }

  /**
   * A read on {@code c} saw its server start at {@code started} (read with the rows, at no extra
   * round trip) and, when it asked ({@link #checkDue}), last recover from a crash at {@code
   * recovered}. A connection through a pooler that keeps its clients' connections while it
   * reconnects to the server behind it (PgBouncer in transaction mode) may reach another instance
   * after a failover, or the same server recovered from a backend's crash, without ever being new
   * to the watch; a start time or a recovery other than the position's has the connection
   * identified again, before the read's rows are used.
   *
   * @param recovered null when the read did not ask
   * @throws InstanceChangedException on another instance, as {@link #check}
   */
  public void confirm(Connection c, Instant started, Instant recovered) throws SQLException {
    if (identify == null || readFrom == null || started == null) {
      return;
    }
    if (recovered != null) {
      confirmedNanos = System.nanoTime();
    }
    if (arrived == null
        && Duration.between(readFrom.started(), started).abs().compareTo(readFrom.slack()) <= 0
        && (recovered == null
            || readFrom.recovered() == null
            || recovered.equals(readFrom.recovered()))) {
      return;
    }
    known.remove(physical(c));
    check(c);
  }

  /**
   * Whether a read should ask what it does not ask every time, for it costs the database a little
   * (MySQL/MariaDB: the server session of a read that finds no rows, {@link #confirmSession};
   * PostgreSQL: the last recovery from a crash, {@link #confirm}): every {@link #CHECK_NANOS}, so
   * that a tail finds a moved connection within about that long.
   */
  public boolean checkDue() {
    return identify != null
        && readFrom != null
        && System.nanoTime() - confirmedNanos >= CHECK_NANOS;
  }

  /** How often a read asks what it does not ask every time ({@link #checkDue}). */
  static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  /**
   * A read on {@code c} ran in the server session {@code session} (MySQL/MariaDB: the server's
   * {@code server_id} and the session's connection id, read in the same round trip as the rows). A
   * client connection can move to another server without ever being new to the watch: a pooler that
   * multiplexes (ProxySQL, MaxScale) or MariaDB Connector/J's failover URLs ({@code
   * jdbc:mariadb:sequential://primary,standby/}) reconnect it behind the same {@link Connection}
   * when its server goes away. A session other than the one last confirmed on this connection has
   * the connection identified again, before the read's rows are used. Unlike {@link #check} it
   * leaves {@code c} open on another instance: the read may have begun a snapshot on it by SQL
   * ({@code START TRANSACTION}), which a pool that sees autocommit on does not roll back, so the
   * caller ends it and then gives the connection back. Closed here, the connection went back with
   * the snapshot open, and every whole read after it failed on it.
   *
   * @param session what names the server session, or null when the read did not ask
   * @throws InstanceChangedException on another instance, as {@link #check} (but for closing)
   */
  public void confirmSession(Connection c, String session) throws SQLException {
    if (identify == null || readFrom == null || session == null) {
      return;
    }
    Connection physical = physical(c);
    if (arrived != null || !session.equals(sessions.get(physical))) {
      known.remove(physical);
      verify(c); // not closed: a snapshot begun by SQL is open on it, which the pool cannot see
      sessions.put(physical, session);
    }
    confirmedNanos = System.nanoTime();
  }

  /** Another instance was met: the tail must read every table again before it reads on. */
  public boolean changed() {
    return arrived != null;
  }

  /** The instance the position belongs to; null before the first snapshot. */
  public DatabaseInstance readFrom() {
    return readFrom;
  }

  private static Connection physical(Connection c) throws SQLException {
    return c.isWrapperFor(Connection.class) ? c.unwrap(Connection.class) : c;
  }
}
