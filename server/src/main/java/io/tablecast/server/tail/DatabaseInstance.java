package io.tablecast.server.tail;

import java.time.Duration;
import java.time.Instant;

/**
 * One running database server, as the tail tells it from another: a failover to a standby, a
 * restore from a backup, a restart after a crash all put a different instance behind the same
 * address, whose outbox positions need not follow the ones read before.
 *
 * @param name what names the server across its restarts (PostgreSQL: the cluster's system
 *     identifier; MySQL/MariaDB: {@code server_id} with host and port)
 * @param started when it started: a restart of the same server is another instance too
 * @param slack how far two readings of {@code started} of one instance may differ (MySQL/MariaDB
 *     derive it from a whole-second uptime); zero when exact
 */
public record DatabaseInstance(String name, Instant started, Duration slack) {

  /** True when {@code other} is this instance: same name, and started at the same moment. */
  public boolean sameAs(DatabaseInstance other) {
    return name.equals(other.name)
        && Duration.between(started, other.started).abs().compareTo(slack.plus(other.slack)) <= 0;
  }

  @Override
  public String toString() {
    return name + " started " + started;
  }
}
