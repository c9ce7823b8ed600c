package io.floe.spark.parquet;

import java.util.Arrays;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The string columns of Spark's reader's result batch, seen through {@link DictionaryStringVector}s
 * so that a dictionary-encoded value is built once per column chunk instead of once per row read.
 *
 * <p>It serves the files Spark's reader decodes; {@link FlatParquetReader}'s own string vectors do
 * the same for the files it decodes.
 *
 * <p>It reaches non-public fields of Spark's reader through {@link DictionaryFields}; should a Spark
 * version not have them, it is not used and reads stay as fast as Spark's own. Binary columns are
 * left alone: {@code getBinary} hands out a fresh array that callers may keep and change.
 */
final class StringDictionaries {
  private final ColumnVector[] columns;
  private final DictionaryStringVector[] views;

  private StringDictionaries(ColumnVector[] columns, DictionaryStringVector[] views) {
    this.columns = columns;
    this.views = views;
  }

  /**
   * The views of the string columns of {@code batch}, the reader's result batch whose vectors are
   * reused for every batch; null when there is nothing to view.
   */
  static StringDictionaries forBatch(ColumnarBatch batch) {
    if (!DictionaryFields.available()) {
      return null;
    }
    ColumnVector[] columns = new ColumnVector[batch.numCols()];
    DictionaryStringVector[] views = new DictionaryStringVector[batch.numCols()];
    int count = 0;
    for (int i = 0; i < batch.numCols(); i++) {
      ColumnVector vector = batch.column(i);
      if (vector instanceof WritableColumnVector writable
          && vector.dataType() instanceof StringType) {
        DictionaryStringVector view = new DictionaryStringVector(writable);
        views[count++] = view;
        columns[i] = view;
      } else {
        columns[i] = vector;
      }
    }
    return count == 0 ? null : new StringDictionaries(columns, Arrays.copyOf(views, count));
  }

  /** Column {@code index} of the batch, through its view when it is a string column. */
  ColumnVector column(int index) {
    return columns[index];
  }

  /** Takes note of the dictionaries the reader left on the batch it just decoded. */
  void refresh() {
    for (DictionaryStringVector view : views) {
      view.refresh();
    }
  }
}
