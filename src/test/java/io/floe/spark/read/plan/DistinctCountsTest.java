package io.floe.spark.read.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a snapshot's distinct counts are scaled to a scan that reads some of its rows. */
class DistinctCountsTest {
  private static final int KEY = 1;
  private static final int FEW = 2;
  private static final int HALF = 3;
  private final DistinctCounts counts =
      new DistinctCounts(Map.of(KEY, 10_000L, FEW, 7L, HALF, 5_000L), 10_000);

  @Test
  void aScanOfTheWholeSnapshotKeepsTheCountsOfTheFile() {
    assertThat(counts.forScan(KEY, 10_000)).hasValue(10_000);
    assertThat(counts.forScan(FEW, 10_000)).hasValue(7);
    assertThat(counts.forScan(HALF, 12_000)).hasValue(5_000);
  }

  @Test
  void aPrunedScanScalesAKeyToItsRowsAndKeepsTheValuesOfAColumnOfFewValues() {
    assertThat(counts.forScan(KEY, 1_000)).hasValue(1_000);
    assertThat(counts.forScan(FEW, 1_000)).hasValue(7);
    // two rows per value, a tenth of the rows read: 5000 * (1 - 0.9^2) = 950
    assertThat(counts.forScan(HALF, 1_000)).hasValue(950);
  }

  @Test
  void aCountIsNeverAboveTheRowsReadAndZeroRowsHaveNoValues() {
    assertThat(counts.forScan(FEW, 3)).hasValue(3);
    assertThat(counts.forScan(KEY, 0)).hasValue(0);
    DistinctCounts unknownRows = new DistinctCounts(Map.of(KEY, 10_000L), -1);
    assertThat(unknownRows.forScan(KEY, 400)).hasValue(400);
    assertThat(unknownRows.forScan(KEY, 20_000)).hasValue(10_000);
  }

  @Test
  void aColumnWithoutACountHasNone() {
    assertThat(counts.forScan(99, 1_000)).isEmpty();
    assertThat(DistinctCounts.none().forScan(KEY, 1_000)).isEmpty();
  }
}
