package io.floe.spark.parquet;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapred.FileSplit;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;

/**
 * Spark's own vectorized Parquet reader, for the files {@link FlatParquetReader} does not decode,
 * with Floe's dictionary work over its vectors: string columns seen through {@link
 * StringDictionaries} and numeric dictionaries decoded once by {@link NumericDictionaries}.
 */
public final class SparkBatchDecoder implements BatchDecoder {
  private final VectorizedParquetRecordReader reader;
  private final ColumnarBatch spark;
  private final StringDictionaries strings;
  private final NumericDictionaries numerics;
  private final ColumnarBatch batch;

  private SparkBatchDecoder(VectorizedParquetRecordReader reader) {
    this.reader = reader;
    this.spark = reader.resultBatch();
    this.strings = StringDictionaries.forBatch(spark);
    this.numerics = NumericDictionaries.forBatch(spark);
    if (strings == null) {
      this.batch = spark;
    } else {
      ColumnVector[] columns = new ColumnVector[spark.numCols()];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = strings.column(i);
      }
      this.batch = new ColumnarBatch(columns);
    }
  }

  /**
   * Opens Spark's reader over {@code stream} and {@code footer}, which Floe has already read; the
   * requested schema and reader settings are in {@code conf}.
   */
  public static SparkBatchDecoder open(
      Path path,
      long length,
      Configuration conf,
      SeekableInputStream stream,
      ParquetMetadata footer,
      int batchSize)
      throws IOException, InterruptedException {
    VectorizedParquetRecordReader reader =
        new VectorizedParquetRecordReader(
            null, "CORRECTED", "UTC", "CORRECTED", "UTC", false, batchSize);
    try {
      reader.initialize(
          new FileSplit(path, 0, length, new String[0]),
          new TaskAttemptContextImpl(conf, new TaskAttemptID()),
          Option.apply(hadoopFile(path, length, conf)),
          Option.apply(stream),
          Option.apply(footer));
      reader.enableReturningBatches();
      return new SparkBatchDecoder(reader);
    } catch (IOException | RuntimeException | InterruptedException e) {
      reader.close();
      throw e;
    }
  }

  /** Spark's reader wants a Hadoop file for its bookkeeping; it reads through the given stream. */
  private static HadoopInputFile hadoopFile(Path path, long length, Configuration conf)
      throws IOException {
    Path usable = path;
    try {
      path.getFileSystem(conf);
    } catch (IOException e) {
      // a location Hadoop cannot open (the FileIO can): a local stand-in that is never opened
      usable = new Path("file", null, path.toUri().getPath());
    }
    return HadoopInputFile.fromStatus(new FileStatus(length, false, 1, 0L, 0L, usable), conf);
  }

  @Override
  public ColumnarBatch resultBatch() {
    return batch;
  }

  @Override
  public boolean nextBatch() throws IOException {
    if (!reader.nextBatch()) {
      return false;
    }
    if (strings != null) {
      strings.refresh();
      batch.setNumRows(spark.numRows());
    }
    if (numerics != null) {
      numerics.apply(spark);
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
