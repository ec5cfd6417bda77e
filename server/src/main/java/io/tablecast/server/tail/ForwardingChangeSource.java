package io.tablecast.server.tail;

import io.tablecast.server.capture.TableSchema;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A {@link ChangeSource} that passes every call on to another, for a wrapper that changes a few of
 * them (after Guava's {@code Forwarding*} types). It overrides every method of the interface, its
 * defaults too: a wrapper written out by hand that missed one fell back to the interface's default
 * without a word (the database's {@code answer_timeout}, its cursor or its read barrier lost), and
 * a method added to the interface later reaches the wrapped source here or nowhere ({@code
 * ForwardingChangeSourceTest} fails on a method this class does not pass on).
 */
public abstract class ForwardingChangeSource implements ChangeSource {
  private final ChangeSource source;

  protected ForwardingChangeSource(ChangeSource source) {
    this.source = Objects.requireNonNull(source, "source");
  }

  /** The source every call goes on to. */
  protected final ChangeSource source() {
    return source;
  }

  @Override
  public List<TableSchema> tables() {
    return source.tables();
  }

  @Override
  public void snapshot(SnapshotSink sink) throws SQLException {
    source.snapshot(sink);
  }

  @Override
  public CommittedBatch poll(Duration maxWait) throws SQLException, InterruptedException {
    return source.poll(maxWait);
  }

  @Override
  public void resync(String table) {
    source.resync(table);
  }

  @Override
  public String cursor() {
    return source.cursor();
  }

  @Override
  public void resumeAfter(String cursor) throws SQLException {
    source.resumeAfter(cursor);
  }

  @Override
  public void acknowledged(String cursor) {
    source.acknowledged(cursor);
  }

  @Override
  public OptionalLong neededFrom() {
    return source.neededFrom();
  }

  @Override
  public Duration longestRetryPause() {
    return source.longestRetryPause();
  }

  @Override
  public Optional<ReadBarrier> readBarrier() {
    return source.readBarrier();
  }

  @Override
  public String lockWaits(List<TableSchema> tables) {
    return source.lockWaits(tables);
  }

  @Override
  public Duration answerTimeout() {
    return source.answerTimeout();
  }

  @Override
  public String wholeReadNow() {
    return source.wholeReadNow();
  }

  @Override
  public String abandonReadIfAnswerLost(long idleSeconds) throws SQLException {
    return source.abandonReadIfAnswerLost(idleSeconds);
  }

  @Override
  public void close() {
    source.close();
  }
}
