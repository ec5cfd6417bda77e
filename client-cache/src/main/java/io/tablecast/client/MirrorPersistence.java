package io.tablecast.client;

import io.tablecast.client.internal.HeapRoom;
import io.tablecast.client.internal.KeyBytes;
import io.tablecast.client.internal.MirrorFile;
import io.tablecast.client.internal.RowIndex;
import io.tablecast.client.internal.RowKeys;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.RowForm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A mirror's side of the warm restart: reads the mirror's file when it is created, into rows of its
 * type that wait to be installed, and hands the rows it holds to be saved. A file that cannot be
 * used is reported (log and {@link ErrorListener#mirrorFileFailed}) and never loaded, not even in
 * part: its checksum, table, row type and every row are checked, and every row is mapped, before
 * anything is installed.
 *
 * @param <V> the row type
 */
final class MirrorPersistence<V> {
  private static final Logger log = LoggerFactory.getLogger(MirrorPersistence.class);

  private final Mirror<V> mirror;
  private final Class<?> rowType;
  private final RowMapping<V> mapping;
  private final RowFit fit;
  private final ClientListeners clientListeners;
  private final Path file;
  private final HeapRoom heap;
  private final int reservePercent;

  /**
   * Where a mirror is saved, and the heap its file is read into.
   *
   * @param file the mirror's file
   * @param heap the client's heap
   * @param reservePercent the share of the heap kept for the application
   */
  record Place(Path file, HeapRoom heap, int reservePercent) {}

  /** Where the rows read from the file stand, until taken by the table's stream. */
  private MirrorFile.Header restored;

  /** The rows read from the file, until installed. */
  private RowIndex<V> restoredRows;

  MirrorPersistence(
      Mirror<V> mirror,
      Class<?> rowType,
      RowMapping<V> mapping,
      RowFit fit,
      ClientListeners clientListeners,
      Place place) {
    this.mirror = mirror;
    this.rowType = rowType;
    this.mapping = mapping;
    this.fit = fit;
    this.clientListeners = clientListeners;
    this.file = place.file();
    this.heap = place.heap();
    this.reservePercent = place.reservePercent();
  }

  Path file() {
    return file;
  }

  /**
   * Reads the file, when there is one, into rows that {@link #install()} puts into the mirror;
   * returns where they stand, or null when there are none.
   */
  MirrorFile.Header read() {
    if (!Files.exists(file)) {
      log.info("no saved mirror of {} at {}: it starts from the server", mirror.table(), file);
      return null;
    }
    long start = System.nanoTime();
    try {
      String tooLarge = MirrorFile.tooLargeFor(file, heap, reservePercent);
      if (tooLarge != null) {
        ignored(tooLarge);
        return null;
      }
      MirrorFile.Contents contents = MirrorFile.read(file, mirror.table(), rowType.getName());
      MirrorFile.Header header = contents.header();
      RowIndex<V> rows =
          contents.encoding() == MirrorFile.Encoding.KEY_AND_JSON
              ? typedRows(contents)
              : formRows(contents);
      restored = header;
      restoredRows = rows;
      log.info(
          "mirror of {} read from {}: {} rows at position {} of epoch {}, saved {}, in {} ms",
          mirror.table(),
          file,
          rows.size(),
          header.position(),
          header.epoch(),
          Instant.ofEpochMilli(header.savedAtMillis()),
          (System.nanoTime() - start) / 1_000_000);
      return header;
    } catch (MirrorFile.Unusable e) {
      ignored(e.getMessage());
    } catch (IOException e) {
      ignored("it cannot be read: " + e);
    } catch (RuntimeException | RowNotRead e) {
      ignored("a row of it cannot be mapped to " + rowType.getName() + ": " + e.getMessage());
    }
    return null;
  }

  /** A row of a file that cannot be read back. */
  private static final class RowNotRead extends Exception {
    private static final long serialVersionUID = 1L;

    RowNotRead(String message, Throwable cause) {
      super(message, cause, false, false);
    }
  }

  private RowIndex<V> formRows(MirrorFile.Contents contents) {
    MirrorFile.Header header = contents.header();
    RowForm form = header.form();
    RowIndex<V> rows = new RowIndex<>(contents.rows().size());
    for (byte[] bytes : contents.rows()) {
      PackedRow packed = PackedRow.of(form, bytes);
      Object key = RowKeys.fromRowOrNull(packed, header.primaryKey());
      if (key == null) {
        throw new IllegalArgumentException("a row lacks a primary-key column");
      }
      rows.put(key, mapping.map(packed));
    }
    return rows;
  }

  private RowIndex<V> typedRows(MirrorFile.Contents contents) throws RowNotRead {
    if (!(mapping instanceof TypedRowMapping<V> typed)) {
      throw new IllegalArgumentException("typed rows in the file of a generic mirror");
    }
    RowIndex<V> rows = new RowIndex<>(contents.rows().size());
    for (byte[] record : contents.rows()) {
      ByteBuffer in = ByteBuffer.wrap(record);
      Object key;
      try {
        key = KeyBytes.read(in);
      } catch (BufferUnderflowException e) {
        throw new IllegalArgumentException("a row's key is cut short", e);
      }
      try {
        rows.put(key, typed.fromJson(record, in.position(), in.remaining()));
      } catch (IOException e) {
        throw new RowNotRead(e.getMessage(), e);
      }
    }
    return rows;
  }

  private void ignored(String why) {
    String problem = "the saved mirror is ignored, " + why + "; the mirror starts from the server";
    log.warn("{} ({}): {}", mirror.table(), file, problem);
    clientListeners.mirrorFileFailed(mirror.table(), file, problem);
  }

  /**
   * Puts the rows read into the mirror, before it is attached (so it is ready when created): ready,
   * and stale until a server brings it up to date.
   */
  void install() {
    MirrorFile.Header header = restored;
    fit.replacingAll();
    mirror.rows.replace(restoredRows, header.position());
    restoredRows = null;
    mirror.readiness.markReady();
    mirror.staleness.restored(
        "restored from "
            + file
            + " (position "
            + header.position()
            + ", saved "
            + Instant.ofEpochMilli(header.savedAtMillis())
            + "); not yet brought up to date by a server");
  }

  /** Where the rows installed from the file stand, handed over once to the table's stream. */
  MirrorFile.Header takeRestored() {
    MirrorFile.Header r = restored;
    restored = null;
    return r;
  }

  /**
   * The rows held now, for another thread to write in the columns {@code wireColumns}; null while
   * rows could not be mapped (the mirror is stale for them: a file of the rows held would load them
   * as if they were right).
   */
  MirrorFile.Rows rowsToSave(List<ColumnInfo> wireColumns) {
    if (fit.reason() != null) {
      log.warn("mirror of {} not saved: {}", mirror.table(), fit.reason());
      return null;
    }
    int size = mirror.rows.current().size();
    List<Object> keys = new ArrayList<>(size);
    List<V> held = new ArrayList<>(size);
    mirror
        .rows
        .current()
        .forEach(
            (k, row) -> {
              keys.add(k);
              held.add(row);
            });
    if (mapping instanceof TypedRowMapping<V> typed) {
      return typedRows(typed, keys, held);
    }
    return new MirrorFile.Rows() {
      @Override
      public int count() {
        return held.size();
      }

      @Override
      public byte[] row(int i, RowForm form) {
        V row = held.get(i);
        if (row instanceof RowView view
            && view.form().columns().equals(form.columns())
            && view.form().primaryKey().equals(form.primaryKey())) {
          return view.bytes(); // already in the file's layout
        }
        return form.encode(mapping.image(row, wireColumns));
      }
    };
  }

  /** Typed rows as their key and their type's JSON, written by the mapper without a tree. */
  private static <V> MirrorFile.Rows typedRows(
      TypedRowMapping<V> typed, List<Object> keys, List<V> held) {
    return new MirrorFile.Rows() {
      private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);

      @Override
      public int count() {
        return held.size();
      }

      @Override
      public MirrorFile.Encoding encoding() {
        return MirrorFile.Encoding.KEY_AND_JSON;
      }

      @Override
      public byte[] row(int i, RowForm form) {
        out.reset();
        KeyBytes.write(keys.get(i), out);
        try {
          out.write(typed.toJson(held.get(i)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        return out.toByteArray();
      }
    };
  }
}
