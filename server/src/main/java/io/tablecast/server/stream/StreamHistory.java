package io.tablecast.server.stream;

import io.nats.client.Connection;
import io.tablecast.server.hub.BatchHistory;
import java.io.IOException;
import java.time.Duration;

/**
 * The stream as the hub's {@link BatchHistory}: the groups after a sequence, each read through an
 * ordered consumer of its own ({@link GroupReader}) on the server's connection and decoded with
 * {@link BatchCodec}, exactly as the server applied them. A gap before the first group asked for
 * (the stream was trimmed to a checkpoint, limited by {@code max_msgs} or {@code max_age}, purged)
 * is {@link BatchHistory.Gone}.
 */
final class StreamHistory implements BatchHistory {

  /** How long a read waits for the next message of the stream before it gives up. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

  private final Connection nats;
  private final String stream;

  StreamHistory(Connection nats, String stream) {
    this.nats = nats;
    this.stream = stream;
  }

  @Override
  public Reading read(long after, long through) throws IOException {
    GroupReader reader;
    try {
      reader = new GroupReader(nats, stream, after + 1);
    } catch (IllegalStateException e) {
      throw new IOException(e.getMessage(), e);
    }
    return new Reading() {
      private boolean done = after >= through;

      @Override
      public Positioned next() throws IOException, InterruptedException {
        if (done) {
          return null;
        }
        GroupReader.Group g = reader.next(READ_TIMEOUT);
        if (g == null) {
          throw new IOException(
              "NATS stream "
                  + stream
                  + " delivered nothing within "
                  + READ_TIMEOUT.toSeconds()
                  + " s (reading up to sequence "
                  + through
                  + ")");
        }
        if (GroupReader.GAP.equals(g.kind())) {
          throw new Gone(
              "NATS stream "
                  + stream
                  + " no longer holds the messages before sequence "
                  + g.sequence());
        }
        if (g.sequence() >= through) {
          done = true;
          if (g.sequence() > through) {
            return null;
          }
        }
        try {
          return new Positioned(g.sequence(), BatchCodec.decode(g.payload()));
        } catch (IllegalArgumentException e) {
          throw new IOException(
              "the batch at sequence "
                  + g.sequence()
                  + " of NATS stream "
                  + stream
                  + " cannot be read: "
                  + e.getMessage(),
              e);
        }
      }

      @Override
      public void close() {
        reader.close();
      }
    };
  }

  @Override
  public String toString() {
    return "NATS stream " + stream;
  }
}
