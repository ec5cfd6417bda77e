package io.tablecast.server.testing;

import io.tablecast.server.tail.HeapRoom;

/**
 * A heap of a test's own, so that a refusal does not depend on the machine or the collector: its
 * maximum, what is in use beside the images (live and garbage) and what the images took, as the
 * test says.
 */
public final class TestHeap implements HeapRoom {
  private final long max;
  public long baseline;
  public long garbage;
  public long images;
  public int collections;

  public TestHeap(long max, long baseline) {
    this.max = max;
    this.baseline = baseline;
  }

  @Override
  public long max() {
    return max;
  }

  @Override
  public long used() {
    return baseline + garbage + images;
  }

  @Override
  public long usedAfterCollection() {
    collections++;
    garbage = 0;
    return used();
  }
}
