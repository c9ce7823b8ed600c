package io.floe.spark.parquet;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.parquet.bytes.BytesInput;

/**
 * Byte arrays reused from one Parquet page to the next, across the files one input partition reads
 * (see {@link ReadBuffers}): the decompressor takes an array for each page and lends it out with
 * the page's bytes; the decoder gives the page back when its column moves on to the next page, and
 * the array holds a later page.
 *
 * <p>It exists because Parquet pages are about a megabyte once decompressed, which is as large as
 * the JVM's G1 collector treats as "humongous" with the default region size of a few-gigabyte heap:
 * a fresh array per page was allocated outside the young generation and started a concurrent
 * collection cycle every few hundred pages. With the arrays reused, an input partition allocates
 * about one per column it reads.
 *
 * <p>Only pages this pool lent are taken back; any other page given back (one Parquet decompressed
 * itself, or an uncompressed page, whose bytes belong to the row group's buffer) is ignored. Lent
 * pages are held weakly, so a page never given back is collected as before. At most {@link
 * #MAX_FREE} arrays are kept free. Methods are synchronized because a prefetch thread may open
 * one file of the partition while the task's thread decodes another.
 */
final class PageBuffers {
  static final int MAX_FREE = 16;

  private final ArrayDeque<byte[]> free = new ArrayDeque<>();
  // BytesInput does not override equals or hashCode: pages are told apart by identity
  private final Map<BytesInput, byte[]> lent = new WeakHashMap<>();

  /**
   * An array of at least {@code size} bytes; its contents are not cleared, so the caller fills the
   * first {@code size} bytes before reading them, and then either lends it or keeps it free again.
   */
  synchronized byte[] take(int size) {
    byte[] chosen = null;
    for (byte[] candidate : free) {
      if (candidate.length >= size && (chosen == null || candidate.length < chosen.length)) {
        chosen = candidate;
      }
    }
    if (chosen == null) {
      return new byte[size];
    }
    free.remove(chosen);
    return chosen;
  }

  /** Records that {@code page} holds its bytes in {@code array}, taken from this pool. */
  synchronized void lend(BytesInput page, byte[] array) {
    lent.put(page, array);
  }

  /** Takes back a page this pool lent; does nothing for null or for any other page. */
  synchronized void giveBack(BytesInput page) {
    byte[] array = page == null ? null : lent.remove(page);
    if (array != null) {
      keep(array);
    }
  }

  /** Keeps an array nothing refers to any more for a later {@link #take}. */
  synchronized void keep(byte[] array) {
    if (free.size() < MAX_FREE) {
      free.add(array);
    }
  }

  synchronized int lentCount() {
    return lent.size();
  }

  synchronized int freeCount() {
    return free.size();
  }
}
