package io.tablecast.server.config;

/**
 * Netty's write-buffer water marks of every client channel ({@code write_buffer:}).
 *
 * @param lowWaterMark a channel becomes writable again below this many pending bytes
 * @param highWaterMark a channel becomes unwritable above this many pending bytes
 */
public record WriteBufferSettings(@ByteSize int lowWaterMark, @ByteSize int highWaterMark) {
  /** 256 KiB and 1 MiB. */
  public static final WriteBufferSettings DEFAULTS = new WriteBufferSettings(256 << 10, 1 << 20);
}
