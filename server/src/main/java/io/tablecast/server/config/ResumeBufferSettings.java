package io.tablecast.server.config;

/**
 * The most recent batches kept so that a reconnecting client can resume ({@code resume_buffer:}).
 *
 * @param batches most batches kept
 * @param bytes approximate byte bound; the oldest batches are evicted first
 */
public record ResumeBufferSettings(int batches, @ByteSize long bytes) {
  /** 100000 batches, 256 MiB. */
  public static final ResumeBufferSettings DEFAULTS = new ResumeBufferSettings(100_000, 256L << 20);
}
