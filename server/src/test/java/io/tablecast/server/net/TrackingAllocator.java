package io.tablecast.server.net;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * An unpooled allocator that remembers every buffer it hands out, so a test can check that all of
 * them were released ({@code refCnt() == 0}) once a connection is closed: a deterministic leak
 * check, independent of garbage collection. Under {@code ResourceLeakDetector} PARANOID the buffers
 * are also leak-tracked as usual (the base class wraps them).
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
  private final List<ByteBuf> allocated = new ArrayList<>();

  TrackingAllocator() {
    super(false);
  }

  @Override
  protected synchronized ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return remember(new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity));
  }

  @Override
  protected synchronized ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return remember(new UnpooledDirectByteBuf(this, initialCapacity, maxCapacity));
  }

  @Override
  public synchronized CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
    return toLeakAwareBuffer(remember(new CompositeByteBuf(this, false, maxNumComponents)));
  }

  @Override
  public synchronized CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
    return toLeakAwareBuffer(remember(new CompositeByteBuf(this, true, maxNumComponents)));
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  private <B extends ByteBuf> B remember(B buf) {
    allocated.add(buf);
    return buf;
  }

  /** How many buffers were handed out so far. */
  synchronized int allocations() {
    return allocated.size();
  }

  /** Descriptions of the buffers handed out and not yet released. */
  synchronized List<String> unreleased() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < allocated.size(); i++) {
      ByteBuf b = allocated.get(i);
      if (b.refCnt() > 0) {
        out.add(
            "allocation #"
                + i
                + ": "
                + b.getClass().getSimpleName()
                + " refCnt="
                + b.refCnt()
                + " capacity="
                + b.capacity());
      }
    }
    return out;
  }
}
