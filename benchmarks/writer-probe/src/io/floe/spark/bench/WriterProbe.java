package io.floe.spark.bench;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Measures what the same Spark rows cost to encode through Floe's row writer ({@code
 * io.floe.spark.write.exec.RowParquetWriter}) or the official runtime's {@code
 * SparkParquetWriters}, both under Iceberg's {@code Parquet.write} with the table defaults (ZSTD,
 * 1 MB pages, 20,000-row page limit, 2 MB dictionaries), in the shape a copy-on-write rewrite of the
 * benchmark table has: many files of a few tens of thousands of rows, each a new row group whose
 * dictionaries start empty. The source compiles against either engine's classpath (it names no
 * Parquet type; each engine's writer is found by reflection), so each engine runs in its own JVM.
 *
 * <p>Arguments: {@code engine} ({@code floe} or {@code official}), {@code files}, {@code
 * rowsPerFile}, {@code rounds} (the first is a warm-up), {@code open} (1: one file at a time; K:
 * rows dealt round robin over K open files, as a fanout writer meets interleaved partitions),
 * {@code dir}. Prints the thread CPU per row of each round and a {@code PROBE} line with the
 * median after the warm-up. Rows are copied {@code UnsafeRow}s of the benchmark's eight columns,
 * generated before timing.
 */
public final class WriterProbe {
  private WriterProbe() {}

  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "k", Types.LongType.get()),
          Types.NestedField.optional(3, "v1", Types.DoubleType.get()),
          Types.NestedField.optional(4, "v2", Types.DoubleType.get()),
          Types.NestedField.optional(5, "s1", Types.StringType.get()),
          Types.NestedField.optional(6, "s2", Types.StringType.get()),
          Types.NestedField.optional(7, "d", Types.DateType.get()),
          Types.NestedField.optional(8, "ts", Types.TimestampType.withZone()));
  static final StructType SPARK =
      new StructType(
          new StructField[] {
            DataTypes.createStructField("id", DataTypes.LongType, true),
            DataTypes.createStructField("k", DataTypes.LongType, true),
            DataTypes.createStructField("v1", DataTypes.DoubleType, true),
            DataTypes.createStructField("v2", DataTypes.DoubleType, true),
            DataTypes.createStructField("s1", DataTypes.StringType, true),
            DataTypes.createStructField("s2", DataTypes.StringType, true),
            DataTypes.createStructField("d", DataTypes.DateType, true),
            DataTypes.createStructField("ts", DataTypes.TimestampType, true)
          });

  static final org.apache.hadoop.conf.Configuration HADOOP = new org.apache.hadoop.conf.Configuration();

  public static void main(String[] args) throws Exception {
    HADOOP.size();
    String engine = args[0];
    int files = Integer.parseInt(args[1]);
    int perFile = Integer.parseInt(args[2]);
    int rounds = Integer.parseInt(args[3]);
    int open = Integer.parseInt(args[4]);
    File dir = new File(args[5]);
    dir.mkdirs();
    InternalRow[] rows = rows(files * perFile);
    Method factory;
    if (engine.equals("floe")) {
      Class<?> c = Class.forName("io.floe.spark.write.exec.RowParquetWriter");
      factory = Arrays.stream(c.getDeclaredMethods()).filter(m -> m.getName().equals("create")).findFirst().get();
    } else {
      Class<?> c = Class.forName("org.apache.iceberg.spark.data.SparkParquetWriters");
      factory =
          Arrays.stream(c.getDeclaredMethods())
              .filter(m -> m.getName().equals("buildWriter") && m.getParameterCount() == 2)
              .findFirst()
              .get();
    }
    factory.setAccessible(true);
    Method f = factory;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[] cpu = new long[rounds];
    for (int r = 0; r < rounds; r++) {
      long start = threads.getCurrentThreadCpuTime();
      for (int group = 0; group < files; group += open) {
        int n = Math.min(open, files - group);
        @SuppressWarnings("unchecked")
        FileAppender<InternalRow>[] appenders = new FileAppender[n];
        for (int i = 0; i < n; i++) {
          Function<Object, Object> fn =
              type -> {
                try {
                  return engine.equals("floe") ? f.invoke(null, SCHEMA, type) : f.invoke(null, SPARK, type);
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              };
          appenders[i] = build(new File(dir, engine + "-" + (group + i) + ".parquet"), fn);
        }
        // file g+i gets rows [(g+i)*perFile, (g+i+1)*perFile); round robin over the n open files
        for (int j = 0; j < perFile; j++) {
          for (int i = 0; i < n; i++) {
            appenders[i].add(rows[(group + i) * perFile + j]);
          }
        }
        for (FileAppender<InternalRow> a : appenders) a.close();
      }
      cpu[r] = threads.getCurrentThreadCpuTime() - start;
      System.out.printf("round %d %s cpu %.3f s (%.0f ns/row)%n", r, engine, cpu[r] / 1e9, (double) cpu[r] / rows.length);
    }
    long[] timed = Arrays.copyOfRange(cpu, 1, rounds);
    Arrays.sort(timed);
    System.out.printf("PROBE %s files=%d rows/file=%d open=%d median ns/row %.0f (rounds after warm-up %s)%n",
        engine, files, perFile, open, (double) timed[timed.length / 2] / rows.length,
        Arrays.toString(Arrays.stream(timed).map(t -> t / rows.length).toArray()));
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static FileAppender<InternalRow> build(File file, Function fn) throws Exception {
    file.delete();
    return Parquet.write(org.apache.iceberg.hadoop.HadoopOutputFile.fromPath(new org.apache.hadoop.fs.Path(file.toURI()), HADOOP))
        .schema(SCHEMA)
        .set("write.parquet.compression-codec", "zstd")
        .createWriterFunc(fn)
        .overwrite()
        .build();
  }

  static InternalRow[] rows(int count) {
    UnsafeProjection toUnsafe = UnsafeProjection.create(SPARK);
    Random random = new Random(7);
    InternalRow[] rows = new InternalRow[count];
    for (int i = 0; i < count; i++) {
      long id = i;
      Object[] v = new Object[8];
      v[0] = id;
      v[1] = id % 1000;
      v[2] = id * 1.5;
      v[3] = random.nextDouble();
      v[4] = UTF8String.fromString("name-" + (id * 7919 % 1_000_003));
      v[5] = UTF8String.fromString("cat-" + (id % 17));
      v[6] = 19723 + (int) (id % 365);
      v[7] = 1704067200L * 1_000_000L + (id * 2654435761L % (30L * 86400)) * 1_000_000L;
      rows[i] = toUnsafe.apply(new GenericInternalRow(v)).copy();
    }
    return rows;
  }
}
