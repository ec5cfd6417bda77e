package io.tablecast.client.internal;

/**
 * What the JVM's heap holds and can still give, as a mirror sizes a snapshot against it ({@link
 * SnapshotSizing}). {@link #runtime()} reads {@link Runtime}; tests give a heap of their own.
 * Internal.
 */
public interface HeapRoom {

  /** The most the heap may grow to ({@code -Xmx}), in bytes. */
  long max();

  /** Bytes in use now, garbage not collected yet included. Cheap. */
  long used();

  /** Bytes in use after a full collection. Slow: only when {@link #used()} says it is short. */
  long usedAfterCollection();

  /** The JVM's own heap. */
  static HeapRoom runtime() {
    return new HeapRoom() {
      @Override
      public long max() {
        return Runtime.getRuntime().maxMemory();
      }

      @Override
      public long used() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
      }

      @Override
      public long usedAfterCollection() {
        // only before refusing a snapshot: the cheap reading counts garbage as used
        System.gc();
        return used();
      }
    };
  }
}
