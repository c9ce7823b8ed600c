package io.floe.spark.parquet;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.parquet.bytes.ByteBufferAllocator;

/**
 * Parquet's buffers for the files of one input partition read by Floe's decoder (footers and each
 * row group's column chunks), on the heap, from arrays reused once Parquet releases them.
 *
 * <p>Parquet reads a row group's chunks into buffers of up to 8 MB and releases them when the row
 * group is closed; with a fresh array each time, every row group allocated several arrays that the
 * G1 collector treats as humongous. A buffer's contents are whatever the previous chunk left, which
 * is harmless because Parquet fills every buffer it allocates before reading it.
 *
 * <p>Only arrays it made are taken back when released, and those are held weakly, so a buffer
 * Parquet never releases is collected as before. Its arrays are apart from the {@link PageBuffers}
 * of the pages: the page of an uncompressed column is a slice of a chunk buffer that other columns
 * are still reading. Synchronized, as its pool is.
 */
final class ReusingHeapAllocator implements ByteBufferAllocator {
  private final PageBuffers arrays = new PageBuffers();
  // byte arrays compare by identity, so this is a weak identity set
  private final Set<byte[]> made = Collections.newSetFromMap(new WeakHashMap<>());

  @Override
  public synchronized ByteBuffer allocate(int size) {
    byte[] array = arrays.take(size);
    made.add(array);
    return ByteBuffer.wrap(array, 0, size).slice();
  }

  @Override
  public synchronized void release(ByteBuffer buffer) {
    if (buffer.hasArray() && made.remove(buffer.array())) {
      arrays.keep(buffer.array());
    }
  }

  @Override
  public boolean isDirect() {
    return false;
  }

  int free() {
    return arrays.freeCount();
  }
}
