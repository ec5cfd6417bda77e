package io.tablecast.protocol;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Heap buffers that count every array they allocate, the first and each one a buffer grows into:
 * what gathering or encoding a large frame costs in copies.
 */
final class CountingAllocator extends AbstractByteBufAllocator {
  final AtomicLong allocated = new AtomicLong();

  CountingAllocator() {
    super(false);
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return new CountingBuf(this, initialCapacity, maxCapacity, allocated);
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return newHeapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  private static final class CountingBuf extends UnpooledHeapByteBuf {
    private final AtomicLong allocated;

    CountingBuf(
        ByteBufAllocator alloc, int initialCapacity, int maxCapacity, AtomicLong allocated) {
      super(alloc, new byte[0], maxCapacity);
      this.allocated = allocated;
      capacity(initialCapacity);
    }

    @Override
    protected byte[] allocateArray(int initialCapacity) {
      if (allocated != null) { // null while the superclass's constructor runs
        allocated.addAndGet(initialCapacity);
      }
      return super.allocateArray(initialCapacity);
    }
  }
}
