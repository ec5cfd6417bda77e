package io.tablecast.server.capture;

import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * The bound another live server sets on this one's pruning of a shared outbox ({@link
 * Registrations#lowestNeed}), and a WARN when one holds it back for long: a server whose
 * registration is live but whose position has not moved for {@link #LONG} while this one is ahead
 * (its tail stuck, or far behind), so that a growing outbox names its cause. One per source, on its
 * pruner's thread.
 */
public final class PruningHold {
  private static final Logger LOG = RecentEvents.logger(PruningHold.class);

  /** How long one server may hold pruning back at one position before it is said. */
  static final Duration LONG = ConsumerRegistry.LIVENESS;

  private final LongSupplier nanos;
  private Registrations.Need holding;
  private long since;
  private boolean warned;

  public PruningHold() {
    this(System::nanoTime);
  }

  PruningHold(LongSupplier nanos) {
    this.nanos = nanos;
  }

  /**
   * The outbox position below which other live servers let this one prune ({@link Long#MAX_VALUE}
   * when none says), watching for a server that holds it back; {@code own} is what this server
   * itself would prune below.
   */
  public long othersAllow(Connection c, Dialect dialect, String schema, long own)
      throws SQLException {
    Optional<Registrations.Need> need = Registrations.lowestNeed(c, dialect, schema);
    observe(need.orElse(null), own);
    return need.map(Registrations.Need::from).orElse(Long.MAX_VALUE);
  }

  /** Follows the lowest need; returns the WARN's text when it logs one. */
  String observe(Registrations.Need need, long own) {
    if (need == null || need.from() >= own) {
      if (warned) {
        LOG.info("Pruning of the outbox is no longer held back by {}", holding.server());
      }
      holding = null;
      warned = false;
      return null;
    }
    long now = nanos.getAsLong();
    if (!need.equals(holding)) {
      holding = need;
      since = now;
      warned = false;
      return null;
    }
    if (warned || now - since < LONG.toNanos()) {
      return null;
    }
    warned = true;
    String text =
        "Pruning of the outbox has waited over "
            + LONG.toSeconds()
            + " s for "
            + need.server()
            + ", which is running (its registration is live) but has not read on from outbox "
            + "position "
            + need.from()
            + " meanwhile; the outbox grows until it does or stops (a stopped server's "
            + "registration expires after "
            + ConsumerRegistry.LIVENESS.toSeconds()
            + " s without a heartbeat)";
    LOG.warn(text);
    return text;
  }
}
