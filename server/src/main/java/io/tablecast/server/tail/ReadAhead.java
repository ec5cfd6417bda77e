package io.tablecast.server.tail;

import io.tablecast.server.capture.RowTextsFetch;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Reads a query's rows as texts (each row's first {@code columns} columns, fetched as the dialect
 * fetches them: {@link RowTextsFetch}) on a thread of its own, up to {@link #AHEAD} chunks of
 * {@link #CHUNK} rows (or {@link #CHUNK_CHARS} of text) ahead of the caller, who turns each into
 * its row form meanwhile. Read on one thread, the database waited while the server encoded a
 * fetched chunk and the server while the database produced the next: a table's snapshot took the
 * sum of both. The reader uses the caller's connection (in the caller's transaction) and is
 * finished, its statement closed, before {@link #forEach} returns or throws, so the connection is
 * the caller's alone again.
 */
final class ReadAhead {
  static final int CHUNK = 1000;
  static final int AHEAD = 4;

  /** A chunk ends early at this much text, so that rows of megabytes are not read far ahead. */
  static final long CHUNK_CHARS = 4L << 20;

  /** What the caller does with each row's texts; may throw what the snapshot's encoding throws. */
  @FunctionalInterface
  interface RowTexts {
    void accept(String[] texts) throws SQLException;
  }

  /**
   * The reader's end: the rows it read, or why it failed (an {@link SQLException}, or anything else
   * it threw, an {@link OutOfMemoryError} included: never a reader that dies unheard).
   */
  private record End(long rows, Throwable failure) {}

  private ReadAhead() {}

  /**
   * Runs {@code sql} on {@code c} and hands each row's first {@code columns} columns as texts, as
   * {@code fetch} fetches them, to {@code each}, in order, on the calling thread; returns the
   * number of rows.
   */
  static long forEach(Connection c, RowTextsFetch fetch, String sql, int columns, RowTexts each)
      throws SQLException, InterruptedException {
    BlockingQueue<Object> chunks = new ArrayBlockingQueue<>(AHEAD);
    RowTextsFetch.Fetch s = fetch.open(c, sql, columns);
    Thread reader =
        new Thread(
            () -> read(s, chunks), "tablecast-read-ahead-" + Thread.currentThread().getName());
    reader.setDaemon(true);
    reader.start();
    boolean done = false;
    try {
      while (true) {
        Object next = chunks.take();
        if (next instanceof End end) {
          done = true;
          Throwable failure = end.failure();
          if (failure instanceof SQLException e) {
            throw e;
          } else if (failure instanceof RuntimeException e) {
            throw e;
          } else if (failure instanceof Error e) {
            throw e;
          } else if (failure != null) {
            throw new IllegalStateException(failure);
          }
          return end.rows();
        }
        @SuppressWarnings("unchecked")
        List<String[]> rows = (List<String[]>) next;
        for (String[] texts : rows) {
          each.accept(texts);
        }
      }
    } finally {
      if (!done) { // the caller failed or was interrupted: stop the reader, wait for it
        reader.interrupt();
        s.cancel();
        chunks.clear();
      }
      reader.join();
      s.close();
    }
  }

  private static void read(RowTextsFetch.Fetch fetch, BlockingQueue<Object> chunks) {
    Chunker chunker = new Chunker(chunks);
    End end;
    try {
      fetch.run(chunker);
      chunker.flush();
      end = new End(chunker.rows, null);
    } catch (InterruptedException e) {
      return; // the caller gave up: nobody reads the end
    } catch (SQLException | RuntimeException | Error e) {
      chunks.clear(); // room for the end, and the rows read ahead are garbage now
      end = new End(chunker.rows, e);
    }
    try {
      while (!chunks.offer(end, 100, TimeUnit.MILLISECONDS)) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
      }
    } catch (InterruptedException e) {
      // the caller gave up
    }
  }

  /** Groups the fetched rows into chunks of {@link #CHUNK} rows or {@link #CHUNK_CHARS}. */
  private static final class Chunker implements RowTextsFetch.Rows {
    private final BlockingQueue<Object> chunks;
    private List<String[]> chunk = new ArrayList<>(CHUNK);
    private long chars;
    long rows;

    Chunker(BlockingQueue<Object> chunks) {
      this.chunks = chunks;
    }

    @Override
    public void accept(String[] texts) throws InterruptedException {
      for (String text : texts) {
        chars += text == null ? 0 : text.length();
      }
      chunk.add(texts);
      rows++;
      if (chunk.size() == CHUNK || chars >= CHUNK_CHARS) {
        chunks.put(chunk);
        chunk = new ArrayList<>(CHUNK);
        chars = 0;
      }
    }

    void flush() throws InterruptedException {
      if (!chunk.isEmpty()) {
        chunks.put(chunk);
      }
    }
  }
}
