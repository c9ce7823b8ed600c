package io.floe.spark.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.parquet.bytes.BytesInput;
import org.junit.jupiter.api.Test;

/**
 * The arrays of decompressed pages are lent with their pages and taken back: a page given back
 * frees its array for a later page it fits, pages the pool did not lend are never taken in, and few
 * arrays are kept.
 */
class PageBuffersTest {
  private final PageBuffers buffers = new PageBuffers();

  @Test
  void theArrayOfAPageGivenBackHoldsALaterPageItFits() {
    byte[] first = buffers.take(1000);
    assertThat(first).hasSize(1000);
    BytesInput page = lend(first);
    assertThat(buffers.take(1000)).isNotSameAs(first);

    buffers.giveBack(page);

    assertThat(buffers.take(1001)).isNotSameAs(first).hasSize(1001);
    assertThat(buffers.take(600)).isSameAs(first);
  }

  @Test
  void theSmallestFreeArrayThatFitsIsTaken() {
    BytesInput large = lend(buffers.take(4000));
    byte[] medium = buffers.take(2000);
    BytesInput mediumPage = lend(medium);
    buffers.giveBack(large);
    buffers.giveBack(mediumPage);

    assertThat(buffers.take(1500)).isSameAs(medium);
    assertThat(buffers.take(1500)).hasSize(4000);
  }

  @Test
  void aPageThePoolDidNotLendIsIgnored() {
    byte[] lent = buffers.take(100);
    lend(lent);

    // an uncompressed page: a slice of a row-group buffer that other columns still read
    buffers.giveBack(BytesInput.from(lent, 0, 100));
    buffers.giveBack(BytesInput.from(new byte[100]));
    buffers.giveBack(null);

    assertThat(buffers.freeCount()).isZero();
    assertThat(buffers.lentCount()).isEqualTo(1);
    assertThat(buffers.take(100)).isNotSameAs(lent);
  }

  @Test
  void aPageGivenBackTwiceFreesItsArrayOnce() {
    byte[] array = buffers.take(10);
    BytesInput page = lend(array);
    buffers.giveBack(page);
    buffers.giveBack(page);

    assertThat(buffers.freeCount()).isEqualTo(1);
    assertThat(buffers.take(10)).isSameAs(array);
    assertThat(buffers.take(10)).isNotSameAs(array);
  }

  @Test
  void atMostMaxFreeArraysAreKept() {
    BytesInput[] pages = new BytesInput[PageBuffers.MAX_FREE + 3];
    for (int i = 0; i < pages.length; i++) {
      pages[i] = lend(buffers.take(8));
    }
    for (BytesInput page : pages) {
      buffers.giveBack(page);
    }

    assertThat(buffers.freeCount()).isEqualTo(PageBuffers.MAX_FREE);
    assertThat(buffers.lentCount()).isZero();
  }

  private BytesInput lend(byte[] array) {
    BytesInput page = BytesInput.from(array, 0, array.length);
    buffers.lend(page, array);
    return page;
  }
}
