package io.floe.spark.read.plan.manifest;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.StructLike;

/**
 * The status of one manifest entry and the metrics a row filter can be evaluated on: the record
 * count and the value, null and NaN counts and lower and upper bounds of the filter's columns only.
 * It is a {@link DataFile} only so that Iceberg's own {@code InclusiveMetricsEvaluator} decides on
 * it; it names no file and cannot be copied. {@link EntryMetricsReader} fills one instance per
 * manifest again for every entry.
 */
final class EntryMetrics implements DataFile {
  // Iceberg's manifest entry status of a file removed by the entry's snapshot
  private static final int DELETED = 2;

  private int status = -1;
  private long recordCount = -1;
  // the maps are kept across entries; a map the entry does not have at all reads as null
  private final Map<Integer, Long> valueCounts = new HashMap<>();
  private final Map<Integer, Long> nullValueCounts = new HashMap<>();
  private final Map<Integer, Long> nanValueCounts = new HashMap<>();
  private final Map<Integer, ByteBuffer> lowerBounds = new HashMap<>();
  private final Map<Integer, ByteBuffer> upperBounds = new HashMap<>();
  private boolean hasValueCounts;
  private boolean hasNullValueCounts;
  private boolean hasNanValueCounts;
  private boolean hasLowerBounds;
  private boolean hasUpperBounds;

  void clear() {
    status = -1;
    recordCount = -1;
    clearIf(hasValueCounts, valueCounts);
    clearIf(hasNullValueCounts, nullValueCounts);
    clearIf(hasNanValueCounts, nanValueCounts);
    clearIf(hasLowerBounds, lowerBounds);
    clearIf(hasUpperBounds, upperBounds);
    hasValueCounts = false;
    hasNullValueCounts = false;
    hasNanValueCounts = false;
    hasLowerBounds = false;
    hasUpperBounds = false;
  }

  private static void clearIf(boolean present, Map<Integer, ?> map) {
    if (present) {
      map.clear();
    }
  }

  void setStatus(int status) {
    this.status = status;
  }

  /** Whether the entry's file is live in the manifest's snapshot (not a deleted entry). */
  boolean live() {
    return status != DELETED;
  }

  void setRecordCount(long count) {
    this.recordCount = count;
  }

  /** The count map of {@code fieldId} (a manifest field id), which the entry now has. */
  Map<Integer, Long> counts(int fieldId) {
    switch (fieldId) {
      case EntryMetricsReader.VALUE_COUNTS -> {
        hasValueCounts = true;
        return valueCounts;
      }
      case EntryMetricsReader.NULL_VALUE_COUNTS -> {
        hasNullValueCounts = true;
        return nullValueCounts;
      }
      case EntryMetricsReader.NAN_VALUE_COUNTS -> {
        hasNanValueCounts = true;
        return nanValueCounts;
      }
      default -> throw new IllegalArgumentException("Not a count map: field " + fieldId);
    }
  }

  /** The bounds map of {@code fieldId} (a manifest field id), which the entry now has. */
  Map<Integer, ByteBuffer> bounds(int fieldId) {
    switch (fieldId) {
      case EntryMetricsReader.LOWER_BOUNDS -> {
        hasLowerBounds = true;
        return lowerBounds;
      }
      case EntryMetricsReader.UPPER_BOUNDS -> {
        hasUpperBounds = true;
        return upperBounds;
      }
      default -> throw new IllegalArgumentException("Not a bounds map: field " + fieldId);
    }
  }

  @Override
  public long recordCount() {
    return recordCount;
  }

  @Override
  public Map<Integer, Long> valueCounts() {
    return hasValueCounts ? valueCounts : null;
  }

  @Override
  public Map<Integer, Long> nullValueCounts() {
    return hasNullValueCounts ? nullValueCounts : null;
  }

  @Override
  public Map<Integer, Long> nanValueCounts() {
    return hasNanValueCounts ? nanValueCounts : null;
  }

  @Override
  public Map<Integer, ByteBuffer> lowerBounds() {
    return hasLowerBounds ? lowerBounds : null;
  }

  @Override
  public Map<Integer, ByteBuffer> upperBounds() {
    return hasUpperBounds ? upperBounds : null;
  }

  @Override
  public Map<Integer, Long> columnSizes() {
    return null;
  }

  @Override
  public Long pos() {
    return null;
  }

  @Override
  public int specId() {
    return 0;
  }

  @Override
  public FileContent content() {
    return FileContent.DATA;
  }

  @Override
  public CharSequence path() {
    return "";
  }

  @Override
  public FileFormat format() {
    return null;
  }

  @Override
  public StructLike partition() {
    return null;
  }

  @Override
  public long fileSizeInBytes() {
    return 0;
  }

  @Override
  public ByteBuffer keyMetadata() {
    return null;
  }

  @Override
  public List<Long> splitOffsets() {
    return null;
  }

  @Override
  public List<Integer> equalityFieldIds() {
    return null;
  }

  @Override
  public DataFile copy() {
    throw new UnsupportedOperationException("Manifest entry metrics are not a file to copy");
  }

  @Override
  public DataFile copyWithoutStats() {
    throw new UnsupportedOperationException("Manifest entry metrics are not a file to copy");
  }
}
