package io.tablecast.server.hub;

import java.util.List;

/**
 * What the operations console shows of the hub at one moment: its cached tables and its sessions,
 * copied on the hub thread by {@link ChangeHub#view()} into immutable values any thread may read.
 *
 * @param epoch this server run
 * @param position the position of the last applied batch
 * @param takenMillis when the view was taken (epoch ms)
 * @param tables the cached tables, in snapshot order
 * @param sessions the sessions, oldest first
 */
public record HubView(
    String epoch,
    long position,
    long takenMillis,
    List<TableView> tables,
    List<SessionView> sessions) {

  public HubView {
    tables = List.copyOf(tables);
    sessions = List.copyOf(sessions);
  }

  /**
   * One cached table.
   *
   * @param name qualified name
   * @param version its column list's version in this run (1 at start, one more per ALTER TABLE)
   * @param columns how many columns the image holds
   * @param primaryKey the key columns
   * @param rows rows in the image
   * @param rowBytes approximate heap bytes of the rows' arrays ({@code TableImage.rowBytes}, walked
   *     at most every {@link HubViews#ROW_BYTES_MAX_AGE_MILLIS} ms, so up to that old)
   * @param indexBytes heap bytes of the image's key index
   * @param lastChangePosition position of the last batch that changed it; 0 = none since the start
   * @param lastCaptureMillis outbox write time (database clock) of the newest change of that batch;
   *     0 when unknown (a re-read or a reconciliation repair)
   * @param lastAppliedMillis when the hub applied that batch (epoch ms); 0 = none
   * @param stale whether its mirrors may differ from it (see {@code table_status})
   * @param staleReason why, when stale
   * @param invalid whether its image could not take an event and waits for a re-read
   */
  public record TableView(
      String name,
      int version,
      int columns,
      List<String> primaryKey,
      long rows,
      long rowBytes,
      long indexBytes,
      long lastChangePosition,
      long lastCaptureMillis,
      long lastAppliedMillis,
      boolean stale,
      String staleReason,
      boolean invalid) {

    public TableView {
      primaryKey = List.copyOf(primaryKey);
    }

    /** Capture to fan-out of its last change, in ms; -1 when unknown. */
    public long captureLagMillis() {
      return lastCaptureMillis > 0 && lastAppliedMillis > 0
          ? Math.max(0, lastAppliedMillis - lastCaptureMillis)
          : -1;
    }
  }

  /**
   * One session.
   *
   * @param clientName the name its hello gave
   * @param principal the authenticated principal ({@code anonymous} on an open server)
   * @param remoteAddress the client's address and port
   * @param transport {@code tcp} (binary frames) or {@code websocket} (JSON)
   * @param tls whether the connection is encrypted
   * @param tables the tables it subscribed to, sorted
   * @param queuedBytes bytes written to its connection and not yet sent, plus batches held back
   *     while its snapshot, replay or a large batch is written
   * @param coalescedKeys keys of its changes folded while it did not read (slow-consumer
   *     coalescing)
   * @param coalescedBytes approximate bytes of those changes
   * @param writable whether its connection takes more bytes (below the write-buffer high mark)
   * @param catchingUp whether a snapshot, replay or large batch is being written to it
   * @param state {@code ok}, {@code catching up}, {@code coalescing} (it did not read: its changes
   *     are folded), or {@code not reading} (its connection is above the high water mark)
   * @param connectedMillis when it completed its hello (epoch ms)
   * @param lastWriteAgoMillis ms since the hub last wrote it a batch or heartbeat: below the
   *     heartbeat for a session that reads; it grows while its changes wait (coalesced or held)
   * @param deliveryLagMillis how long the oldest batch written to it has waited to reach its socket
   *     (0 when every one has): grows while the client does not read, after the socket's own buffer
   *     filled; measured one write at a time, to within 10 ms. While the session is coalescing
   *     (nothing is written to it), the age of the oldest change held back, if that is longer
   */
  public record SessionView(
      String clientName,
      String principal,
      String remoteAddress,
      String transport,
      boolean tls,
      List<String> tables,
      long queuedBytes,
      int coalescedKeys,
      long coalescedBytes,
      boolean writable,
      boolean catchingUp,
      String state,
      long connectedMillis,
      long lastWriteAgoMillis,
      long deliveryLagMillis) {

    public SessionView {
      tables = List.copyOf(tables);
    }
  }
}
