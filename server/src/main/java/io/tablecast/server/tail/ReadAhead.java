package io.tablecast.server.tail;

import io.tablecast.protocol.row.TextSlices;
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
 * fetches them: {@link RowTextsFetch}) on a thread of its own, turns each into what the caller
 * keeps (a row in its row form) there, and hands them over up to {@link #AHEAD} chunks of {@link
 * #CHUNK} rows (or {@link #CHUNK_CHARS} of text) ahead of the caller, who stores the rows of a
 * chunk meanwhile. Read on one thread, the database waited while the server encoded a fetched chunk
 * and the server while the database produced the next: a table's snapshot took the sum of both;
 * encoded by the caller, the caller's work was the snapshot's pace while the reader waited
 * (docs/BENCHMARKS.md, "Server start: rows written from COPY's bytes"). The reader uses the
 * caller's connection (in the caller's transaction) and is finished, its statement closed, before
 * {@link #forEach} returns or throws, so the connection is the caller's alone again.
 */
final class ReadAhead {
  static final int CHUNK = 1000;
  static final int AHEAD = 4;

  /** A chunk ends early at this much text, so that rows of megabytes are not read far ahead. */
  static final long CHUNK_CHARS = 4L << 20;

  /**
   * Turns a row's texts into what the caller keeps, on the reader's thread; may throw what the
   * snapshot's encoding throws, which ends the read and is thrown to the caller.
   */
  @FunctionalInterface
  interface RowEncoder<T> {
    T encode(String[] texts);

    /**
     * A row a fetch read as UTF-8 slices ({@link RowTextsFetch.Rows#accept(TextSlices)}); by
     * default as strings.
     */
    default T encode(TextSlices row) {
      return encode(row.texts());
    }
  }

  /** What the caller does with each row, on its own thread. */
  @FunctionalInterface
  interface Rows<T> {
    void accept(T row) throws SQLException;
  }

  /**
   * The reader's end: the rows it read, or why it failed (an {@link SQLException}, or anything else
   * it threw, an {@link OutOfMemoryError} included: never a reader that dies unheard).
   */
  private record End(long rows, Throwable failure) {}

  private ReadAhead() {}

  /**
   * Runs {@code sql} on {@code c}, turns each row's first {@code columns} columns, fetched as texts
   * by {@code fetch}, into a {@code T} with {@code encoder} on the reader's thread, and hands each
   * to {@code each}, in order, on the calling thread; returns the number of rows.
   */
  static <T> long forEach(
      Connection c,
      RowTextsFetch fetch,
      String sql,
      int columns,
      RowEncoder<T> encoder,
      Rows<T> each)
      throws SQLException, InterruptedException {
    BlockingQueue<Object> chunks = new ArrayBlockingQueue<>(AHEAD);
    RowTextsFetch.Fetch s = fetch.open(c, sql, columns);
    Thread reader =
        new Thread(
            () -> read(s, new Chunker<>(chunks, encoder), chunks),
            "tablecast-read-ahead-" + Thread.currentThread().getName());
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
        List<T> rows = (List<T>) next;
        for (T row : rows) {
          each.accept(row);
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

  private static void read(
      RowTextsFetch.Fetch fetch, Chunker<?> chunker, BlockingQueue<Object> chunks) {
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

  /**
   * Encodes the fetched rows and groups them into chunks of {@link #CHUNK} rows or {@link
   * #CHUNK_CHARS} of text.
   */
  private static final class Chunker<T> implements RowTextsFetch.Rows {
    private final BlockingQueue<Object> chunks;
    private final RowEncoder<T> encoder;
    private List<T> chunk = new ArrayList<>(CHUNK);
    private long chars;
    long rows;

    Chunker(BlockingQueue<Object> chunks, RowEncoder<T> encoder) {
      this.chunks = chunks;
      this.encoder = encoder;
    }

    @Override
    public void accept(String[] texts) throws InterruptedException {
      for (String text : texts) {
        chars += text == null ? 0 : text.length();
      }
      add(encoder.encode(texts));
    }

    @Override
    public void accept(TextSlices row) throws InterruptedException {
      chars += row.length();
      add(encoder.encode(row));
    }

    private void add(T row) throws InterruptedException {
      chunk.add(row);
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
