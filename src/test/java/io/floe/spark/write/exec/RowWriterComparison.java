package io.floe.spark.write.exec;

import io.floe.spark.bench.SyntheticSchema;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Files;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Measurement harness of issue 31: writes the same rows of the INSERT benchmark's schema (the
 * {@code bench.db.src} table of {@code BenchMain}: two longs, two doubles, a high- and a
 * low-cardinality string, a date and a timestamp) into one Parquet data file through Floe's row
 * writer ({@link RowParquetWriter} under Iceberg's Parquet writer, the path {@link
 * RowFileWriterFactory} takes) and through Spark's own {@link ParquetWriteSupport} under
 * parquet-mr's {@link ParquetWriter}, with Iceberg's field ids in the Parquet schema, the same
 * codec (ZSTD level 3), page, dictionary and row-group sizes, both through Hadoop's local file
 * system with one loaded configuration (as a table's HadoopFileIO writes). Rows are {@code UnsafeRow}s, as the
 * writer gets them from a shuffle, generated before any timing.
 *
 * <p>Reports per engine the thread CPU per row of writing (rows plus close, footer included), the
 * file size and the cost of the Iceberg metrics: Floe's writer keeps NaN counts and float bounds
 * while writing and builds the metrics from the footer at close; Spark's write support keeps
 * nothing, so its metrics must be derived afterwards, from the footer in memory ({@link
 * ParquetUtil#footerMetrics}) or by reading the file's footer ({@link ParquetUtil#fileMetrics}).
 * Runs alternate between the engines after a warm-up; the report gives medians. Last, the fixed
 * cost of a file (open, close, footer): the CPU of many small files less their rows' cost.
 *
 * <p>Run: {@code java <Spark's module flags> -cp <test classpath> io.floe.spark.write.exec.RowWriterComparison
 * [rows=2000000] [rounds=5] [nullPercent=0] [dir=a temporary directory]}. Not a JUnit test;
 * {@code RowWriterComparisonTest} runs it small and checks that both files agree.
 */
public final class RowWriterComparison {
  static final Schema SCHEMA = SyntheticSchema.COLUMNS;

  /** The same columns as Spark sees them, each carrying its Iceberg field id for Parquet. */
  static final StructType SPARK_SCHEMA =
      new StructType(
          new StructField[] {
            field("id", DataTypes.LongType, 1),
            field("k", DataTypes.LongType, 2),
            field("v1", DataTypes.DoubleType, 3),
            field("v2", DataTypes.DoubleType, 4),
            field("s1", DataTypes.StringType, 5),
            field("s2", DataTypes.StringType, 6),
            field("d", DataTypes.DateType, 7),
            field("ts", DataTypes.TimestampType, 8)
          });

  private static final int ZSTD_LEVEL = 3;
  private static final int PAGE_SIZE = 1024 * 1024;
  private static final int PAGE_ROW_LIMIT = 20_000;
  private static final int DICTIONARY_PAGE_SIZE = 2 * 1024 * 1024;
  private static final long ROW_GROUP_SIZE = 128L * 1024 * 1024;
  private static final long EPOCH_2024_MICROS = 1704067200L * 1_000_000L;
  private static final int EPOCH_2024_DAYS = 19723;

  private static final int SMALL_FILES = 200;
  private static final int SMALL_FILE_ROWS = 1_000;

  /**
   * One Hadoop configuration, loaded once, that both engines' files are written through, as a
   * table's HadoopFileIO holds one: Iceberg's Parquet writer copies the configuration of a Hadoop
   * output file, but parses Hadoop's default resources again for any other output file.
   */
  private static final Configuration HADOOP = loaded(new Configuration());

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private RowWriterComparison() {}

  private static Configuration loaded(Configuration conf) {
    conf.size();
    return conf;
  }

  private static StructField field(String name, DataType type, int id) {
    Metadata metadata = new MetadataBuilder().putLong("parquet.field.id", id).build();
    return new StructField(name, type, true, metadata);
  }

  /**
   * What one write cost and produced.
   *
   * @param writeNanos thread CPU of writing every row and closing the file (footer included)
   * @param metricsNanos thread CPU of deriving the Iceberg metrics after close: zero for Floe's
   *     writer (they come with the close), the footer-in-memory conversion for Spark's
   * @param fileMetricsNanos thread CPU of {@link ParquetUtil#fileMetrics} (re-reading the footer)
   * @param bytes the file's size
   * @param metrics the Iceberg metrics of the file
   */
  record Result(
      long writeNanos, long metricsNanos, long fileMetricsNanos, long bytes, Metrics metrics) {}

  /**
   * {@code count} rows of the INSERT benchmark's values (as {@code BenchMain.generate} makes them)
   * as copied {@code UnsafeRow}s; with {@code nullPercent > 0} each value is NULL with that chance.
   */
  static InternalRow[] rows(int count, int nullPercent) {
    UnsafeProjection toUnsafe = UnsafeProjection.create(SPARK_SCHEMA);
    Random random = new Random(7);
    Random nulls = new Random(11);
    InternalRow[] rows = new InternalRow[count];
    Object[] values = new Object[8];
    for (int i = 0; i < count; i += 1) {
      long id = i;
      values[0] = id;
      values[1] = id % 1000;
      values[2] = id * 1.5;
      values[3] = random.nextDouble();
      values[4] = UTF8String.fromString("name-" + (id * 7919 % 1_000_003));
      values[5] = UTF8String.fromString("cat-" + (id % 17));
      values[6] = EPOCH_2024_DAYS + (int) (id % 365);
      values[7] = EPOCH_2024_MICROS + (id * 2654435761L % (30L * 86400)) * 1_000_000L;
      if (nullPercent > 0) {
        for (int c = 0; c < values.length; c += 1) {
          if (nulls.nextInt(100) < nullPercent) {
            values[c] = null;
          }
        }
      }
      rows[i] = toUnsafe.apply(new GenericInternalRow(values.clone())).copy();
    }
    return rows;
  }

  /** Writes the rows through Floe's row writer, as {@link RowFileWriterFactory} opens files. */
  static Result writeFloe(InternalRow[] rows, File file) throws IOException {
    long start = THREADS.getCurrentThreadCpuTime();
    DataWriter<InternalRow> writer =
        Parquet.writeData(
                org.apache.iceberg.hadoop.HadoopOutputFile.fromPath(
                    new Path(file.toURI()), HADOOP))
            .schema(SCHEMA)
            .set("write.parquet.compression-codec", "zstd")
            .set("write.parquet.compression-level", String.valueOf(ZSTD_LEVEL))
            .metricsConfig(MetricsConfig.getDefault())
            .withSpec(PartitionSpec.unpartitioned())
            .createWriterFunc(type -> RowParquetWriter.create(SCHEMA, type))
            .overwrite()
            .build();
    for (InternalRow row : rows) {
      writer.write(row);
    }
    writer.close();
    long written = THREADS.getCurrentThreadCpuTime();
    DataFile data = writer.toDataFile();
    Metrics metrics =
        new Metrics(
            data.recordCount(),
            data.columnSizes(),
            data.valueCounts(),
            data.nullValueCounts(),
            data.nanValueCounts(),
            data.lowerBounds(),
            data.upperBounds());
    return new Result(written - start, 0, fileMetrics(file), file.length(), metrics);
  }

  /** Writes the rows through Spark's Parquet write support straight into parquet-mr's writer. */
  static Result writeSpark(InternalRow[] rows, File file) throws IOException {
    Configuration conf = new Configuration(HADOOP);
    conf.set(ParquetWriteSupport.SPARK_ROW_SCHEMA(), SPARK_SCHEMA.json());
    conf.set(SQLConf.PARQUET_WRITE_LEGACY_FORMAT().key(), "false");
    conf.set(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE().key(), "TIMESTAMP_MICROS");
    conf.set(SQLConf.PARQUET_FIELD_ID_WRITE_ENABLED().key(), "true");
    conf.set(SQLConf.PARQUET_ANNOTATE_VARIANT_LOGICAL_TYPE().key(), "false");
    conf.set("parquet.compression.codec.zstd.level", String.valueOf(ZSTD_LEVEL));
    long start = THREADS.getCurrentThreadCpuTime();
    ParquetWriter<InternalRow> writer =
        new SparkRowsBuilder(HadoopOutputFile.fromPath(new Path(file.toURI()), conf))
            .withConf(conf)
            .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
            .withCompressionCodec(CompressionCodecName.ZSTD)
            .withPageSize(PAGE_SIZE)
            .withPageRowCountLimit(PAGE_ROW_LIMIT)
            .withDictionaryPageSize(DICTIONARY_PAGE_SIZE)
            .withRowGroupSize(ROW_GROUP_SIZE)
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
            .withDictionaryEncoding(true)
            .build();
    for (InternalRow row : rows) {
      writer.write(row);
    }
    writer.close();
    long written = THREADS.getCurrentThreadCpuTime();
    ParquetMetadata footer = writer.getFooter();
    Metrics metrics = ParquetUtil.footerMetrics(footer, Stream.empty(), MetricsConfig.getDefault());
    long measured = THREADS.getCurrentThreadCpuTime();
    return new Result(
        written - start, measured - written, fileMetrics(file), file.length(), metrics);
  }

  private static long fileMetrics(File file) {
    long start = THREADS.getCurrentThreadCpuTime();
    ParquetUtil.fileMetrics(Files.localInput(file), MetricsConfig.getDefault());
    return THREADS.getCurrentThreadCpuTime() - start;
  }

  /** parquet-mr's writer over Spark's write support, as Spark's Parquet source builds it. */
  private static final class SparkRowsBuilder
      extends ParquetWriter.Builder<InternalRow, SparkRowsBuilder> {
    SparkRowsBuilder(OutputFile file) {
      super(file);
    }

    @Override
    protected SparkRowsBuilder self() {
      return this;
    }

    @Override
    protected WriteSupport<InternalRow> getWriteSupport(Configuration conf) {
      return new ParquetWriteSupport();
    }
  }

  public static void main(String[] args) throws IOException {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int nullPercent = args.length > 2 ? Integer.parseInt(args[2]) : 0;
    File dir =
        args.length > 3
            ? new File(args[3])
            : java.nio.file.Files.createTempDirectory("row-writers").toFile();
    InternalRow[] rows = rows(count, nullPercent);
    InternalRow[] warm = Arrays.copyOf(rows, Math.min(count, 200_000));
    for (int i = 0; i < 3; i += 1) {
      writeFloe(warm, new File(dir, "warm-floe.parquet"));
      writeSpark(warm, new File(dir, "warm-spark.parquet"));
    }
    List<Result> floe = new ArrayList<>();
    List<Result> spark = new ArrayList<>();
    for (int round = 0; round < rounds; round += 1) {
      // alternate which engine goes first, so neither always runs after the other's garbage
      if (round % 2 == 0) {
        floe.add(writeFloe(rows, new File(dir, "floe.parquet")));
        spark.add(writeSpark(rows, new File(dir, "spark.parquet")));
      } else {
        spark.add(writeSpark(rows, new File(dir, "spark.parquet")));
        floe.add(writeFloe(rows, new File(dir, "floe.parquet")));
      }
      System.out.printf(
          Locale.ROOT,
          "round %d: floe %.1f ns/row, spark %.1f ns/row, load %.2f%n",
          round,
          (double) floe.get(round).writeNanos() / count,
          (double) spark.get(round).writeNanos() / count,
          ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
    report("floe", floe, count);
    report("spark", spark, count);
    // the fixed cost of a file: many small files, less what their rows cost at the measured rate
    InternalRow[] small = Arrays.copyOf(rows, Math.min(count, SMALL_FILE_ROWS));
    long floeFiles = 0;
    long sparkFiles = 0;
    for (int i = 0; i < SMALL_FILES; i += 1) {
      floeFiles += writeFloe(small, new File(dir, "small-floe.parquet")).writeNanos();
      sparkFiles += writeSpark(small, new File(dir, "small-spark.parquet")).writeNanos();
    }
    System.out.printf(
        Locale.ROOT,
        "per file (open, close, footer; %d files of %d rows): floe %.2f ms, spark %.2f ms%n",
        SMALL_FILES,
        small.length,
        (floeFiles / (double) SMALL_FILES - median(floe, Result::writeNanos) / count * small.length)
            / 1e6,
        (sparkFiles / (double) SMALL_FILES
                - median(spark, Result::writeNanos) / count * small.length)
            / 1e6);
    System.out.printf(
        Locale.ROOT,
        "spark/floe write CPU (medians): %.3f; metrics equal: %s%n",
        median(spark, Result::writeNanos) / median(floe, Result::writeNanos),
        sameMetrics(floe.get(0).metrics(), spark.get(0).metrics()));
  }

  private static void report(String engine, List<Result> results, int count) {
    System.out.printf(
        Locale.ROOT,
        "%s: write %.1f ns/row (median of %d), metrics after close %.2f ms, fileMetrics %.2f ms,"
            + " file %,d bytes%n",
        engine,
        median(results, Result::writeNanos) / count,
        results.size(),
        median(results, Result::metricsNanos) / 1e6,
        median(results, Result::fileMetricsNanos) / 1e6,
        results.get(0).bytes());
  }

  private static double median(List<Result> results, java.util.function.ToLongFunction<Result> f) {
    long[] values = results.stream().mapToLong(f).sorted().toArray();
    int mid = values.length / 2;
    return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
  }

  /** Whether two files' Iceberg metrics agree on everything planning uses (sizes aside). */
  static boolean sameMetrics(Metrics a, Metrics b) {
    return a.recordCount().equals(b.recordCount())
        && a.valueCounts().equals(b.valueCounts())
        && a.nullValueCounts().equals(b.nullValueCounts())
        && a.lowerBounds().equals(b.lowerBounds())
        && a.upperBounds().equals(b.upperBounds());
  }
}
