package io.tablecast.server.hub;

import io.tablecast.server.tail.CommittedBatch;
import java.io.IOException;

/**
 * The batches of the hub's epoch read again from where they are kept (a NATS stream, whose
 * sequences are the hub's positions), for a client whose resume position is older than the {@link
 * ResumeBuffer}. A single server keeps no history: it has none.
 */
public interface BatchHistory {

  /**
   * Reads the batches after position {@code after} through position {@code through}, in order.
   *
   * @throws Gone when the history no longer holds the batch after {@code after}
   * @throws IOException when the history cannot be read now
   */
  Reading read(long after, long through) throws IOException;

  /** Batches read in order; not thread-safe. */
  interface Reading extends AutoCloseable {

    /**
     * The next batch, or null after the one at {@code through}.
     *
     * @throws Gone when batches were removed from the history before they were read
     * @throws IOException when the history does not answer
     */
    Positioned next() throws IOException, InterruptedException;

    @Override
    void close();
  }

  /** A batch as it was published at {@code position}. */
  record Positioned(long position, CommittedBatch batch) {}

  /** The history no longer holds what was asked for (trimmed, purged, aged out). */
  final class Gone extends IOException {
    private static final long serialVersionUID = 1L;

    public Gone(String message) {
      super(message);
    }
  }
}
