package io.tablecast.server.postgresql;

import io.tablecast.server.capture.BoundedAnswers;
import io.tablecast.server.capture.CapturePlan;
import io.tablecast.server.capture.DdlLocks;
import io.tablecast.server.capture.PatientDdl;
import io.tablecast.server.capture.TableId;
import io.tablecast.server.postgresql.CaptureCheck.Problem;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A capture repair that could not take its locks at once, because an application's transaction
 * holds a relation it changes: run beside the tail, on a thread of its own, with {@link
 * PatientDdl}'s short lock waits (the relation's writers are not held up), which says every 10 s
 * which transactions it waits for. The tail, which found the problems, serves every table meanwhile
 * and takes the outcome at a later check ({@link #takeOutcome}). One repair at a time.
 */
final class BackgroundRepair implements AutoCloseable {

  /** How a repair ended: {@code failure} null when it is done. */
  record Outcome(List<Problem> problems, String failure) {}

  private final CapturePlan plan;

  /**
   * How long a statement of the repair may go without an answer before the repair is given up (and
   * tried again at the next check): each waits at most {@link DdlLocks#LOCK_WAIT} for its lock, and
   * its DDL is short. A connection gone silent (a host gone without a word, a NAT that forgot it)
   * otherwise kept the repair under way for ever, its tables stale, said to wait for an open
   * transaction, and no other repair made.
   */
  private final Duration answerWithin;

  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "tablecast-capture-repair");
            t.setDaemon(true);
            return t;
          });
  private final AtomicReference<Outcome> outcome = new AtomicReference<>();

  /** The cached tables of the repair under way; empty when none is. */
  private volatile Set<TableId> repairing = Set.of();

  /**
   * Repairs of {@code plan}'s capture, a statement given up once it has gone {@code answerTimeout}
   * without an answer beyond its lock wait.
   */
  BackgroundRepair(CapturePlan plan, Duration answerTimeout) {
    this.plan = plan;
    this.answerWithin = DdlLocks.LOCK_WAIT.plus(answerTimeout);
  }

  /** Whether a repair is under way, or ended and its outcome not taken yet. */
  boolean busy() {
    return !repairing.isEmpty() || outcome.get() != null;
  }

  /** Whether a repair has ended and its outcome is not taken yet. */
  boolean ended() {
    return outcome.get() != null;
  }

  /** Whether the repair under way is about {@code table}. */
  boolean repairing(TableId table) {
    return repairing.contains(table);
  }

  /** Starts repairing {@code problems}; the caller saw {@link #busy} false. */
  void start(List<Problem> problems) {
    Set<TableId> tables = new LinkedHashSet<>();
    problems.forEach(p -> tables.add(p.table()));
    repairing = Set.copyOf(tables);
    thread.execute(
        () -> {
          outcome.set(repair(problems, List.copyOf(tables)));
          repairing = Set.of(); // after the outcome is set: busy until it is taken
        });
  }

  private Outcome repair(List<Problem> problems, List<TableId> tables) {
    try (Connection c = BoundedAnswers.bound(plan.connect(), answerWithin)) {
      List<String> statements =
          PgDialect.INSTANCE.repairStatements(c, plan.installation(), plan.tables(), problems);
      new PatientDdl(c, PgDialect.INSTANCE, tables, PatientDdl.GIVE_UP_AFTER)
          .run("repair of the capture of " + tables, statements);
      return new Outcome(problems, null);
    } catch (SQLException | RuntimeException e) {
      return new Outcome(problems, e.toString());
    }
  }

  /** The outcome of the repair that ended since the last call, or null. */
  Outcome takeOutcome() {
    return outcome.getAndSet(null);
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
