package io.tablecast.server.tail;

import java.time.Duration;
import java.time.Instant;

/**
 * One running database server, as the tail tells it from another: a failover to a standby, a
 * restore from a backup, a restart or a recovery after a crash all put a different instance behind
 * the same address, whose outbox positions need not follow the ones read before.
 *
 * @param name what names the server across its restarts (PostgreSQL: the cluster's system
 *     identifier; MySQL/MariaDB: {@code server_id} with host and port)
 * @param started when it started: a restart of the same server is another instance too
 * @param slack how far two readings of {@code started} of one instance may differ (MySQL/MariaDB
 *     derive it from a whole-second uptime); zero when exact
 * @param recovered when it last recovered from a crash without a restart, or null when not known
 *     (PostgreSQL: a backend that crashes has the postmaster end every session and recover, keeping
 *     its start time; recovery resets the shared statistics, so their reset time is read). Compared
 *     only when both instances know it: a cursor of a version before it still matches
 */
public record DatabaseInstance(String name, Instant started, Duration slack, Instant recovered) {

  /** An instance whose crash recoveries are not known. */
  public DatabaseInstance(String name, Instant started, Duration slack) {
    this(name, started, slack, null);
  }

  /**
   * True when {@code other} is this instance: same name, started at the same moment, and not
   * recovered from a crash since (where both know it).
   */
  public boolean sameAs(DatabaseInstance other) {
    return name.equals(other.name)
        && Duration.between(started, other.started).abs().compareTo(slack.plus(other.slack)) <= 0
        && (recovered == null || other.recovered == null || recovered.equals(other.recovered));
  }

  @Override
  public String toString() {
    return name + " started " + started + (recovered == null ? "" : ", recovered " + recovered);
  }
}
