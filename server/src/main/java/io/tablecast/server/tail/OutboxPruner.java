package io.tablecast.server.tail;

import com.zaxxer.hikari.HikariDataSource;
import io.tablecast.server.capture.BoundedAnswers;
import io.tablecast.server.log.RecentEvents;
import io.tablecast.server.metrics.ServerMetrics;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Keeps the outbox bounded: deletes delivered rows older than the retention in chunks of {@link
 * #CHUNK} rows, each its own short transaction, on a thread of its own so pruning never delays the
 * stream. While chunks come back full (a backlog to clear) it goes on at once; otherwise it rests
 * (a server {@link #REST}, tests less). Every round it also samples the outbox backlog: committed
 * rows the tail has not read yet ({@code tablecast.outbox.backlog}). A round whose answer has not
 * come within three times {@code source.answer_timeout} is given up and made again on another
 * connection ({@link BoundedAnswers}): a connection gone silent under it would otherwise end the
 * pruning, and the outbox would grow without a word.
 */
final class OutboxPruner implements AutoCloseable {
  private static final Logger LOG = RecentEvents.logger(OutboxPruner.class);
  static final int CHUNK = 1000;
  static final Duration REST = Duration.ofSeconds(5);

  /** Deletes one chunk of at most {@link #CHUNK} prunable rows; returns how many it deleted. */
  @FunctionalInterface
  interface Chunk {
    int delete(Connection c, int limit) throws SQLException;
  }

  /** Counts committed outbox rows the tail has not read yet (-1 when not known yet). */
  @FunctionalInterface
  interface Backlog {
    long count(Connection c) throws SQLException;
  }

  private final HikariDataSource pool;
  private final Chunk chunk;
  private final Backlog backlog;
  private final ServerMetrics metrics;
  private final Duration rest;
  private final Duration answerWithin;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread thread;

  /**
   * @param answerWithin how long one statement of a round may wait for its answer: far longer than
   *     a chunk's delete or the capped backlog count take, even waiting for a writer's lock
   */
  OutboxPruner(
      HikariDataSource pool,
      Chunk chunk,
      Backlog backlog,
      ServerMetrics metrics,
      Duration rest,
      Duration answerWithin) {
    this.pool = pool;
    this.answerWithin = answerWithin;
    this.chunk = chunk;
    this.backlog = backlog;
    this.metrics = metrics;
    this.rest = rest;
    this.thread = new Thread(this::run, "tablecast-outbox-pruner");
    this.thread.setDaemon(true);
  }

  /** Starts pruning once the source knows what was delivered; later calls do nothing. */
  synchronized void start() {
    if (thread.getState() == Thread.State.NEW) {
      thread.start();
    }
  }

  private void run() {
    boolean warned = false;
    while (!stopped()) {
      boolean full = false;
      try (Connection c = BoundedAnswers.borrow(pool, answerWithin)) {
        long b = backlog.count(c);
        if (b >= 0) {
          metrics.outboxBacklog(b);
        }
        int deleted = chunk.delete(c, CHUNK);
        if (deleted > 0) {
          metrics.outboxPruned(deleted);
          LOG.debug("Pruned {} outbox rows", deleted);
        }
        full = deleted >= CHUNK;
        warned = false;
      } catch (SQLException | RuntimeException e) {
        if (!warned) { // once per run of failures: the database may be down for a while
          LOG.warn("Pruning the outbox failed, will retry: {}", e.toString());
          warned = true;
        }
      }
      if (!full && pause(rest)) {
        return;
      }
    }
  }

  private boolean stopped() {
    return stop.getCount() == 0;
  }

  private boolean pause(Duration d) {
    try {
      return stop.await(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  @Override
  public void close() {
    stop.countDown();
    thread.interrupt(); // a wait for a connection of a database gone away ends at once
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
