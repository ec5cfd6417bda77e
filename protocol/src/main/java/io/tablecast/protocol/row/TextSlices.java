package io.tablecast.protocol.row;

import java.nio.charset.StandardCharsets;

/**
 * One row's column texts as slices of one UTF-8 array, the way a bulk export delivers them
 * (PostgreSQL's {@code COPY}): column {@code i} is the bytes from {@link #start} to {@link #end},
 * or NULL. {@link RowForm#encodeTexts(TextSlices)} writes such a row into its row form with no
 * {@code String} per value; {@link #text} makes one where a value needs it. The array is the row's
 * own: nothing writes it once the row is made.
 */
public final class TextSlices {
  private final byte[] bytes;

  /** Per column its start and end in {@link #bytes}; a start of -1 is NULL. */
  private final int[] bounds;

  /**
   * @param bytes the row's UTF-8 bytes, now the row's own
   * @param bounds per column, its text's start and end in {@code bytes}, or -1 and -1 for NULL
   */
  public TextSlices(byte[] bytes, int[] bounds) {
    if ((bounds.length & 1) != 0) {
      throw new IllegalArgumentException("bounds come in pairs, start and end: " + bounds.length);
    }
    this.bytes = bytes;
    this.bounds = bounds;
  }

  public int columns() {
    return bounds.length >> 1;
  }

  public boolean isNull(int column) {
    return bounds[column << 1] < 0;
  }

  /** The column's text, or null for NULL. */
  public String text(int column) {
    int start = bounds[column << 1];
    return start < 0
        ? null
        : new String(bytes, start, bounds[(column << 1) + 1] - start, StandardCharsets.UTF_8);
  }

  /** Every column's text, in order; null for NULL. */
  public String[] texts() {
    String[] texts = new String[columns()];
    for (int i = 0; i < texts.length; i++) {
      texts[i] = text(i);
    }
    return texts;
  }

  /** The bytes of the row's texts together. */
  public int length() {
    int n = 0;
    for (int i = 0; i < bounds.length; i += 2) {
      n += bounds[i] < 0 ? 0 : bounds[i + 1] - bounds[i];
    }
    return n;
  }

  byte[] bytes() {
    return bytes;
  }

  int start(int column) {
    return bounds[column << 1];
  }

  int end(int column) {
    return bounds[(column << 1) + 1];
  }
}
