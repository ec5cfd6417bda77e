package io.tablecast.client;

import io.tablecast.client.internal.SessionEvents;
import io.tablecast.protocol.ErrorCode;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A client's {@link ConnectionListener}s and {@link ErrorListener}s: tells them what the session
 * and the mirrors report, on the listener thread ({@link ListenerDispatcher}), each call wrapped so
 * that a listener that throws is logged and the others still hear.
 */
final class ClientListeners implements SessionEvents {
  private final ListenerDispatcher dispatcher;
  private final List<ConnectionListener> connection = new CopyOnWriteArrayList<>();
  private final List<ErrorListener> error = new CopyOnWriteArrayList<>();
  private final ClientActivity activity;

  ClientListeners(
      ListenerDispatcher dispatcher,
      List<ConnectionListener> connection,
      List<ErrorListener> error) {
    this.dispatcher = dispatcher;
    this.activity = new ClientActivity(dispatcher.clientName());
    this.connection.addAll(connection);
    this.error.addAll(error);
  }

  Subscription add(ConnectionListener listener) {
    Objects.requireNonNull(listener, "listener");
    connection.add(listener);
    return () -> connection.remove(listener);
  }

  Subscription add(ErrorListener listener) {
    Objects.requireNonNull(listener, "listener");
    error.add(listener);
    return () -> error.remove(listener);
  }

  /** What the client did, counted for {@link TablecastClientMetrics}. */
  ClientActivity activity() {
    return activity;
  }

  private <L> void tell(List<L> listeners, String what, Consumer<L> call) {
    for (L l : listeners) {
      dispatcher.run(what + " of " + l, () -> call.accept(l));
    }
  }

  @Override
  public void connected(String server) {
    activity.connected();
    tell(connection, "connected", l -> l.connected(server));
  }

  @Override
  public void connectFailed(String server, String reason) {
    tell(connection, "connectFailed", l -> l.connectFailed(server, reason));
  }

  @Override
  public void disconnected(String server, String reason) {
    activity.disconnected();
    tell(connection, "disconnected", l -> l.disconnected(server, reason));
  }

  @Override
  public void resumed(List<String> tables, long position) {
    List<String> resumed = List.copyOf(tables);
    activity.resumed(resumed);
    tell(connection, "resumed", l -> l.resumed(resumed, position));
  }

  @Override
  public void resnapshotted(String table, int inserted, int updated, int deleted) {
    activity.table(table).resnapshotted();
    tell(connection, "resnapshotted", l -> l.resnapshotted(table, inserted, updated, deleted));
  }

  @Override
  public void snapshotCutShort(String table) {
    activity.table(table).snapshotCutShort();
  }

  @Override
  public void serverError(ErrorCode code, String message, String table) {
    ServerError e = WireTypes.serverError(code);
    if (e != null) {
      activity.serverError(e);
    }
    tell(error, "serverError", l -> l.serverError(e, message, table));
  }

  /** The snapshot of {@code table} does not fit in the heap. */
  void tableTooLarge(String table, String message) {
    tell(error, "tableTooLarge", l -> l.tableTooLarge(table, message));
  }

  /** Several rows of {@code table} have one key of the unique index {@code index}. */
  void uniqueIndexClash(String table, String index, Object key, List<Object> primaryKeys) {
    tell(error, "uniqueIndexClash", l -> l.uniqueIndexClash(table, index, key, primaryKeys));
  }

  /** A row of {@code table} could not be mapped to {@code rowType}. */
  void rowNotMapped(String table, Object key, Class<?> rowType, RuntimeException cause) {
    activity.table(table).rowNotMapped();
    tell(error, "rowNotMapped", l -> l.rowNotMapped(table, key, rowType, cause));
  }

  /** A mirror file of {@code table} could not be read or written. */
  void mirrorFileFailed(String table, Path file, String problem) {
    tell(error, "mirrorFileFailed", l -> l.mirrorFileFailed(table, file, problem));
  }
}
