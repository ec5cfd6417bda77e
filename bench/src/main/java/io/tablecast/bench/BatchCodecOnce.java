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
 * What a batch frame costs to write and to read, no server: a batch of {@code CHANGES} updates of
 * the benchmark table, as the hub has it, written as a binary frame of protocol version 3 and as
 * JSON text (the hub writes each batch once per encoding, on its thread), and the binary frame read
 * again ({@code MessageCodec.decodeFrameBody}, which a Java client's event loop runs for every
 * frame). Prints the median nanoseconds per change of each over the rounds after the first three.
 * To compare builds, put the other build's protocol jar first on the class path: {@code java -cp
 * OLD/tablecast-protocol.jar:tablecast-bench.jar io.tablecast.bench.BatchCodecOnce [CHANGES (100)]
 * [ROUNDS (30)]}.
 */
public final class BatchCodecOnce {
  private BatchCodecOnce() {}

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
    Message.ChangeBatch batch = new Message.ChangeBatch(1, 1, changes);
    ByteBuf frame = MessageCodec.encodeFrame(batch, 3, ByteBufAllocator.DEFAULT);
    int frames = Math.max(1, 2_000_000 / size);
    long[][] took = new long[3][rounds];
    long sink = 0;
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      for (int f = 0; f < frames; f++) {
        ByteBuf written = MessageCodec.encodeFrame(batch, 3, ByteBufAllocator.DEFAULT);
        sink += written.readableBytes();
        written.release();
      }
      took[0][r] = System.nanoTime() - start;
      start = System.nanoTime();
      for (int f = 0; f < frames; f++) {
        ByteBuf written = ByteBufAllocator.DEFAULT.buffer();
        MessageCodec.encodeJson(batch, written);
        sink += written.readableBytes();
        written.release();
      }
      took[1][r] = System.nanoTime() - start;
      start = System.nanoTime();
      for (int f = 0; f < frames; f++) {
        ByteBuf body = frame.duplicate().skipBytes(MessageCodec.LENGTH_FIELD_BYTES);
        sink += ((Message.ChangeBatch) MessageCodec.decodeFrameBody(body)).changes().size();
      }
      took[2][r] = System.nanoTime() - start;
    }
    double perChange = (double) frames * size;
    System.out.printf(
        Locale.ROOT,
        "frames of %d changes (%d bytes), %d rounds, ns per change (medians): binary written %.0f,"
            + " JSON written %.0f, binary read %.0f (%d)%n",
        size,
        frame.readableBytes(),
        rounds,
        median(took[0]) / perChange,
        median(took[1]) / perChange,
        median(took[2]) / perChange,
        sink & 1);
    frame.release();
  }

  private static long median(long[] times) {
    long[] kept = Arrays.copyOfRange(times, Math.min(3, times.length - 1), times.length);
    Arrays.sort(kept);
    return kept[kept.length / 2];
  }
}
