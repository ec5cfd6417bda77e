package io.tablecast.server.tail;

/**
 * What the JVM's heap holds and can still give, as the server sizes the cached tables' images
 * against it ({@link ImageSizeCheck}). {@link #runtime()} reads {@link Runtime}; tests give a heap
 * of their own so that a refusal does not depend on the machine or the collector.
 */
public interface HeapRoom {

  /** The most the heap may grow to ({@code -Xmx}), in bytes. */
  long max();

  /**
   * Bytes in use now: live objects and garbage not collected yet, so an upper bound of what is
   * live. Cheap.
   */
  long used();

  /**
   * Bytes in use after a full collection: what is really live. Slow (a full GC): only when {@link
   * #used()} says the heap is short.
   */
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
        // only before refusing a table: the cheap reading counts garbage as used
        System.gc();
        return used();
      }

      @Override
      public String toString() {
        return "the JVM's heap";
      }
    };
  }
}
