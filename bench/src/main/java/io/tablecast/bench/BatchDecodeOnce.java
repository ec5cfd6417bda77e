package io.tablecast.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.tablecast.protocol.Message;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import io.tablecast.server.capture.TableSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What a Java client spends decoding the changes it receives, no server: a binary batch frame of
 * protocol version 3 with {@code CHANGES} updates of the benchmark table (as the hub writes it)
 * decoded again and again ({@code MessageCodec.decodeFrameBody}, which the client's event loop runs
 * for every frame). Prints the median nanoseconds per change over the rounds after the first three.
 * To compare builds, put the other build's protocol jar first on the class path: {@code java -cp
 * OLD/tablecast-protocol.jar:tablecast-bench.jar io.tablecast.bench.BatchDecodeOnce [CHANGES (100)]
 * [ROUNDS (30)]}.
 */
public final class BatchDecodeOnce {
  private BatchDecodeOnce() {}

  public static void main(String[] args) {
    int size = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    TableSchema schema = BenchImageRows.schema();
    RowForm form = new RowForm(schema.columns(), schema.primaryKey());
    List<Message.Change> changes = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      byte[] row = BenchImageRows.row(form, i, 2);
      changes.add(
          new Message.Change(
              schema.id().qualified(),
              Op.UPDATE,
              PackedKey.of(form, form.keyOf(row)),
              null,
              PackedRow.of(form, row)));
    }
    ByteBuf frame =
        MessageCodec.encodeFrame(
            new Message.ChangeBatch(1, 1, changes), 3, ByteBufAllocator.DEFAULT);
    int frames = Math.max(1, 2_000_000 / size);
    long[] took = new long[rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      for (int f = 0; f < frames; f++) {
        ByteBuf body = frame.duplicate().skipBytes(MessageCodec.LENGTH_FIELD_BYTES);
        sink += ((Message.ChangeBatch) MessageCodec.decodeFrameBody(body)).changes().size();
      }
      took[r] = System.nanoTime() - start;
    }
    long[] kept = Arrays.copyOfRange(took, Math.min(3, rounds - 1), rounds);
    Arrays.sort(kept);
    System.out.printf(
        Locale.ROOT,
        "frames of %d changes (%d bytes), %d rounds: %.0f ns per change decoded (median; %d)%n",
        size,
        frame.readableBytes(),
        rounds,
        (double) kept[kept.length / 2] / ((long) frames * size),
        sink & 1);
    frame.release();
  }
}
