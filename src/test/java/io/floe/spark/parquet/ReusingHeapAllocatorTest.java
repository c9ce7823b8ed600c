package io.floe.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Parquet's row-group buffers come from arrays reused after Parquet releases them, each buffer
 * exactly the size asked for, and a buffer the allocator did not make is never taken in.
 */
class ReusingHeapAllocatorTest {
  private final ReusingHeapAllocator allocator = new ReusingHeapAllocator();

  @Test
  void aReleasedBufferHoldsTheNextChunkItFits() {
    ByteBuffer first = allocator.allocate(8000);
    assertThat(first.position()).isZero();
    assertThat(first.limit()).isEqualTo(8000);
    assertThat(first.capacity()).isEqualTo(8000);
    assertThat(allocator.isDirect()).isFalse();

    allocator.release(first);
    ByteBuffer second = allocator.allocate(5000);

    assertThat(second.array()).isSameAs(first.array());
    assertThat(second.arrayOffset()).isZero();
    assertThat(second.position()).isZero();
    // Parquet reads a chunk to its buffer's limit: the smaller chunk must not see the larger room
    assertThat(second.limit()).isEqualTo(5000);
    assertThat(second.capacity()).isEqualTo(5000);
    assertThat(allocator.allocate(5000).array()).isNotSameAs(first.array());
  }

  @Test
  void buffersItDidNotMakeAreIgnored() {
    allocator.release(ByteBuffer.allocate(100));
    allocator.release(ByteBuffer.allocateDirect(100));

    assertThat(allocator.free()).isZero();
  }
}
