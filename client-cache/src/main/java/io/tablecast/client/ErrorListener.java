package io.tablecast.client;

import java.nio.file.Path;
import java.util.List;

/**
 * Told of failures a {@link TablecastClient} survives but its user should know about: registered
 * with {@link TablecastClient.Builder#errorListener} (before the first connection) or {@link
 * TablecastClient#addErrorListener}. Every method has an empty default (more may be added the same
 * way); the client logs each failure in any case.
 *
 * <p>Called on the client's listener thread, in order with its mirrors' change events. A listener
 * that throws is logged and does not affect the client or other listeners.
 */
public interface ErrorListener {

  /**
   * A changed row could not be mapped to a typed mirror's row type (a value its property cannot
   * take, for example after the column's type changed). The mirror keeps the row's previous value,
   * or lacks the row when it is new, and says so in {@link TableMirror#staleReason()} until a later
   * change of the row maps.
   *
   * @param table the qualified table name
   * @param key the row's normalized key
   * @param rowType the mirror's row type
   * @param cause Jackson's explanation
   */
  default void rowNotMapped(String table, Object key, Class<?> rowType, RuntimeException cause) {}

  /**
   * The server reported an error. With a table, it refused that table's subscription (the mirror's
   * {@link TableMirror#awaitReady} throws it); without, it refused or ended the connection, and the
   * client reconnects.
   *
   * @param code the server's error code
   * @param message the server's explanation
   * @param table the table refused, or null for the connection
   */
  default void serverError(ServerError code, String message, String table) {}

  /**
   * The snapshot of {@code table} does not fit in this client's heap: the row count of {@code
   * snapshot_begin} times the bytes a row of its first rows takes, held twice at the snapshot's end
   * (the rows arriving and the mirror's), is more than the heap can give beside {@link
   * TablecastClient.Builder#heapReservePercent}. The snapshot is dropped instead of running out of
   * memory: a mirror that was not ready fails ({@link TableMirror#awaitReady} throws a {@link
   * TablecastException} with the same message), a ready one keeps its rows and is stale ({@link
   * TableMirror#staleReason}) until the client reconnects.
   *
   * @param table the qualified table name
   * @param message names the table, the rows, the memory they need, the heap and {@code -Xmx}
   */
  default void tableTooLarge(String table, String message) {}

  /**
   * A unique secondary index found several rows with one (non-null) key: the table holds duplicates
   * the index was declared not to expect. No row is dropped: the index holds them all, {@link
   * MirrorIndex#get} returns them and {@link MirrorIndex#getOne} of that key throws. Told when a
   * row joins the key (so again for a third row), and for each such key of a snapshot.
   *
   * @param table the qualified table name
   * @param index the index's name
   * @param key the index key (normalized) several rows have
   * @param primaryKeys the primary keys (normalized) of those rows
   */
  default void uniqueIndexClash(String table, String index, Object key, List<Object> primaryKeys) {}

  /**
   * A mirror file of the warm restart ({@link TablecastClient.Builder#warmRestart}) could not be
   * used: when read (corrupt, truncated, of another table or row type, rows that do not map) it was
   * ignored and the mirror starts from the server as without it; when written (the disk is full, no
   * right to write) the previous file, if any, is kept.
   *
   * @param table the qualified table name
   * @param file the mirror file
   * @param problem what is wrong, and what was done instead
   */
  default void mirrorFileFailed(String table, Path file, String problem) {}
}
