package io.tablecast.server.tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InstanceWatchTest {
  private static final Instant T = Instant.parse("2026-12-02T08:00:00Z");
  private static final DatabaseInstance A = new DatabaseInstance("cluster 1", T, Duration.ZERO);
  private static final DatabaseInstance A_RESTARTED =
      new DatabaseInstance("cluster 1", T.plusSeconds(30), Duration.ZERO);

  private final Map<Connection, DatabaseInstance> reaches = new HashMap<>();
  private final Map<Connection, Integer> identified = new HashMap<>();
  private final Set<Connection> closed = new HashSet<>();
  private final InstanceWatch watch =
      new InstanceWatch(
          c -> {
            identified.merge(c, 1, Integer::sum);
            return reaches.get(c);
          });

  @Test
  void aConnectionToTheInstanceReadFromIsIdentifiedOnceAndPasses() throws Exception {
    Connection first = connectionTo(A);
    watch.positioned(watch.identify(first));
    Connection second = connectionTo(A);
    assertThat(watch.check(second)).isSameAs(second);
    assertThat(watch.check(second)).isSameAs(second);
    assertThat(identified.get(second)).isEqualTo(1);
    assertThat(watch.changed()).isFalse();
    assertThat(closed).isEmpty();
  }

  @Test
  void aConnectionToAnotherInstanceIsClosedAndRefusedUntilATableReadPositionsTheTailThere()
      throws Exception {
    watch.positioned(watch.identify(connectionTo(A)));
    Connection known = connectionTo(A);
    watch.check(known);
    Connection restarted = connectionTo(A_RESTARTED);

    assertThatThrownBy(() -> watch.check(restarted))
        .isInstanceOf(InstanceChangedException.class)
        .hasMessageContaining(
            "cluster 1 started 2026-12-02T08:00:00Z, now cluster 1 started "
                + "2026-12-02T08:00:30Z");
    assertThat(closed).containsExactly(restarted);
    assertThat(watch.changed()).isTrue();
    // until the tables are read again, no read goes on, not even on a connection known before
    assertThatThrownBy(() -> watch.check(known)).isInstanceOf(InstanceChangedException.class);

    Connection reading = connectionTo(A_RESTARTED);
    watch.positioned(watch.identify(reading));
    assertThat(watch.changed()).isFalse();
    assertThat(watch.readFrom()).isEqualTo(A_RESTARTED);
    Connection next = connectionTo(A_RESTARTED);
    assertThat(watch.check(next)).isSameAs(next);
    // a connection to the former instance, known or not, is identified again and refused
    assertThatThrownBy(() -> watch.check(connectionTo(A)))
        .isInstanceOf(InstanceChangedException.class);
  }

  /**
   * A new connection of the lost-answer watch reaching another instance than the one read from
   * means a failover moved the address; once that instance was met, every table is read whole
   * there, and a new connection reaching it says nothing against that read, however long it takes
   * (only one reaching yet another instance does).
   */
  @Test
  void aNewConnectionIsElsewhereOnlyWhenItReachesNeitherTheInstanceReadFromNorTheOneBeingReadWhole()
      throws Exception {
    watch.positioned(watch.identify(connectionTo(A)));
    assertThat(watch.elsewhere(connectionTo(A))).isNull();
    assertThat(watch.elsewhere(connectionTo(A_RESTARTED))).contains("a new connection reaches");

    assertThatThrownBy(() -> watch.check(connectionTo(A_RESTARTED)))
        .isInstanceOf(InstanceChangedException.class);
    assertThat(watch.elsewhere(connectionTo(A_RESTARTED))).as("read whole there").isNull();
    DatabaseInstance third = new DatabaseInstance("cluster 2", T, Duration.ZERO);
    assertThat(watch.elsewhere(connectionTo(third))).contains("cluster 2");
  }

  /**
   * Behind a pooler one known connection may reach another server: a read that returns another
   * start time has it identified again and refused; the same start time costs no identification.
   */
  @Test
  void aKnownConnectionWhoseReadSawAnotherStartTimeIsIdentifiedAgainAndRefused() throws Exception {
    watch.positioned(watch.identify(connectionTo(A)));
    Connection pooled = connectionTo(A);
    watch.check(pooled);
    watch.confirm(pooled, T, null);
    assertThat(identified.get(pooled)).isEqualTo(1);

    reaches.put(pooled, A_RESTARTED); // the pooler reconnected it to the restarted server
    assertThatThrownBy(() -> watch.confirm(pooled, A_RESTARTED.started(), null))
        .isInstanceOf(InstanceChangedException.class);
    assertThat(identified.get(pooled)).isEqualTo(2);
    assertThat(closed).containsExactly(pooled);
    assertThat(watch.changed()).isTrue();
  }

  /** PostgreSQL behind PgBouncer: the same start time, but a recovery from a backend's crash. */
  @Test
  void aKnownConnectionWhoseReadSawAnotherRecoveryIsIdentifiedAgainAndRefused() throws Exception {
    DatabaseInstance a = new DatabaseInstance("cluster 1", T, Duration.ZERO, T.plusSeconds(1));
    DatabaseInstance aRecovered =
        new DatabaseInstance("cluster 1", T, Duration.ZERO, T.plusSeconds(90));
    watch.positioned(watch.identify(connectionTo(a)));
    Connection pooled = connectionTo(a);
    watch.check(pooled);
    watch.confirm(pooled, T, a.recovered());
    watch.confirm(pooled, T, null); // not asked: the start time alone
    assertThat(identified.get(pooled)).isEqualTo(1);
    assertThat(watch.checkDue()).isFalse();

    reaches.put(pooled, aRecovered); // PgBouncer reconnected it to the recovered server
    assertThatThrownBy(() -> watch.confirm(pooled, T, aRecovered.recovered()))
        .isInstanceOf(InstanceChangedException.class)
        .hasMessageContaining("recovered");
    assertThat(identified.get(pooled)).isEqualTo(2);
    assertThat(watch.changed()).isTrue();
  }

  /**
   * MySQL/MariaDB reads name the server session they ran in: the same session again costs nothing;
   * another one (a pooler's or the driver's reconnect) has the connection identified again, which
   * passes on the same server and refuses another.
   */
  @Test
  void aKnownConnectionWhoseReadRanInAnotherSessionIsIdentifiedAgain() throws Exception {
    DatabaseInstance b = new DatabaseInstance("cluster 2", T, Duration.ZERO);
    watch.positioned(watch.identify(connectionTo(A)));
    Connection pooled = connectionTo(A);
    watch.check(pooled);
    watch.confirmSession(pooled, "1/17"); // not confirmed on it before: identified again
    watch.confirmSession(pooled, "1/17");
    assertThat(identified.get(pooled)).isEqualTo(2);
    assertThat(watch.checkDue()).isFalse();

    watch.confirmSession(pooled, "1/18"); // another session of the same server: passes
    assertThat(identified.get(pooled)).isEqualTo(3);
    assertThat(watch.changed()).isFalse();

    reaches.put(pooled, b); // the driver reconnected it to the standby
    assertThatThrownBy(() -> watch.confirmSession(pooled, "2/5"))
        .isInstanceOf(InstanceChangedException.class);
    assertThat(closed)
        .as("left open: the read ends the snapshot it may have begun on it, then gives it back")
        .isEmpty();
    assertThat(watch.changed()).isTrue();
  }

  @Test
  void beforeItsFirstPositionAndWithoutIdentificationEveryConnectionPasses() throws Exception {
    Connection any = connectionTo(A);
    assertThat(watch.check(any)).isSameAs(any);
    assertThat(identified).isEmpty();
    InstanceWatch none = new InstanceWatch(null);
    none.positioned(none.identify(any));
    assertThat(none.check(connectionTo(A_RESTARTED))).isNotNull();
    assertThat(none.changed()).isFalse();
    none.confirmSession(any, "1/1");
    assertThat(none.checkDue()).isFalse();
  }

  @Test
  void startTimesDerivedFromAWholeSecondUptimeMatchWithinTheirSlack() {
    Duration second = Duration.ofSeconds(1);
    DatabaseInstance m = new DatabaseInstance("server_id 1 on db:3306", T, second);
    assertThat(m.sameAs(new DatabaseInstance("server_id 1 on db:3306", T.plusSeconds(2), second)))
        .isTrue();
    assertThat(m.sameAs(new DatabaseInstance("server_id 1 on db:3306", T.plusSeconds(3), second)))
        .isFalse();
    assertThat(m.sameAs(new DatabaseInstance("server_id 2 on db:3306", T, second))).isFalse();
    assertThat(A.sameAs(new DatabaseInstance("cluster 1", T.plusNanos(1000), Duration.ZERO)))
        .isFalse();
    // a recovery from a crash without a restart is another instance where both know it
    DatabaseInstance recovered =
        new DatabaseInstance("cluster 1", T, Duration.ZERO, T.plusSeconds(9));
    assertThat(
            recovered.sameAs(new DatabaseInstance("cluster 1", T, Duration.ZERO, T.plusSeconds(9))))
        .isTrue();
    assertThat(
            recovered.sameAs(
                new DatabaseInstance("cluster 1", T, Duration.ZERO, T.plusSeconds(60))))
        .isFalse();
    assertThat(recovered.sameAs(A)).isTrue();
    assertThat(A.sameAs(recovered)).isTrue();
  }

  /** A connection that reaches {@code instance}; it is its own physical connection. */
  private Connection connectionTo(DatabaseInstance instance) {
    Connection[] self = new Connection[1];
    self[0] =
        (Connection)
            Proxy.newProxyInstance(
                Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "isWrapperFor" -> true;
                      case "unwrap" -> proxy;
                      case "close" -> {
                        closed.add(self[0]);
                        yield null;
                      }
                      case "hashCode" -> System.identityHashCode(proxy);
                      case "equals" -> proxy == args[0];
                      case "toString" -> "connection to " + instance;
                      default -> throw new UnsupportedOperationException(method.getName());
                    });
    reaches.put(self[0], instance);
    return self[0];
  }
}
