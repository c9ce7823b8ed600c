package io.floe.spark.bench;

import com.github.luben.zstd.ZstdDecompressCtx;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The per-type scan scenario {@code types} of the benchmark (issue 31); not a test. One table per
 * column type, {@code bench.types.t_<name>} with the single column {@code c}, written by the
 * official runtime ({@code generate-types}); each engine scans each table in full with {@code
 * SELECT count(*), <aggregate>}, the type's aggregate of issue 31 ({@code sum(c)}, or {@code
 * count(c), max(length(c))} for strings and binary), which reads every value and which no engine
 * can answer from metadata, and prints one {@code RESULT types-<name> <engine> ...} line per timed
 * run. Engine {@code parquet} runs the query over the table's data files with Spark's own Parquet
 * reader, and then prints two "physical limits": engine {@code raw}, the time to read every byte of
 * those files (from the page cache after the scans, in one thread, into a reused buffer), with the
 * bytes as its answer; and engine {@code unzstd}, the time to read them and decompress every page
 * (two threads, as Spark's {@code local[2]}), with the decompressed bytes as its answer: what any
 * reader pays before it decodes a value.
 *
 * <p>Per type and JVM: one untimed run (class loading, JIT), then {@code -Dbench.types.runs} timed
 * runs (default {@value #DEFAULT_RUNS}). Uses Spark's public API only, like {@link BenchMain}.
 */
final class TypesBenchmark {
  /** The namespace of the tables, in catalog {@code bench}. */
  static final String NAMESPACE = "bench.types";

  static final int DEFAULT_RUNS = 3;

  /**
   * A column type, the expression over {@code id} that fills it with varied values, and the
   * aggregate the scan computes over {@code c}: {@code sum(c)} where that sum is exact and fits its
   * result type, else the nearest exact sum (the order rows are summed in differs between engines,
   * so a sum of doubles would differ in its last bits; a sum of 64-bit hashes overflows), and
   * {@code count(c), max(length(c))} for strings and binary.
   */
  record ColumnType(String name, String sqlType, String values, String aggregate) {
    String query(String source) {
      return "SELECT count(*), " + aggregate + " FROM " + source;
    }
  }

  private static final String SUM = "sum(c)";
  private static final String LENGTHS = "count(c), max(length(c))";

  /** The types scanned, in the order they run and are reported. */
  static final List<ColumnType> TYPES =
      List.of(
          new ColumnType("int", "INT", "CAST(pmod(xxhash64(id), 100000000) AS INT)", SUM),
          new ColumnType("bigint", "BIGINT", "xxhash64(id)", "sum(c >> 16)"),
          new ColumnType(
              "bigint_nulls", "BIGINT", "IF(pmod(xxhash64(id, 7), 4) = 0, NULL, xxhash64(id))",
              "sum(c >> 16)"),
          new ColumnType(
              "float", "FLOAT", "CAST(pmod(xxhash64(id), 1000000) AS FLOAT) / 8", "sum(floor(c))"),
          new ColumnType(
              "double", "DOUBLE", "CAST(pmod(xxhash64(id), 1000000000) AS DOUBLE) / 1000",
              "sum(floor(c))"),
          new ColumnType(
              "decimal_18_2", "DECIMAL(18, 2)",
              "CAST(pmod(xxhash64(id), 10000000000) / 100 AS DECIMAL(18, 2))", SUM),
          new ColumnType(
              "decimal_38_10", "DECIMAL(38, 10)",
              "CAST(CONCAT(CAST(xxhash64(id) AS STRING), '.',"
                  + " LPAD(CAST(pmod(xxhash64(id, 3), 10000000000) AS STRING), 10, '0'))"
                  + " AS DECIMAL(38, 10))",
              SUM),
          new ColumnType(
              "string_short", "STRING", "LOWER(HEX(pmod(xxhash64(id), 4294967296)))", LENGTHS),
          new ColumnType(
              "string_long", "STRING",
              "CONCAT_WS('-', HEX(xxhash64(id, 1)), HEX(xxhash64(id, 2)), HEX(xxhash64(id, 3)),"
                  + " HEX(xxhash64(id, 4)), HEX(xxhash64(id, 5)), HEX(xxhash64(id, 6)))",
              LENGTHS),
          new ColumnType(
              "string_dict", "STRING",
              "CONCAT('category-', CAST(pmod(xxhash64(id), 100) AS STRING))", LENGTHS),
          new ColumnType(
              "date", "DATE", "DATE_ADD(DATE'2000-01-01', CAST(pmod(xxhash64(id), 10000) AS INT))",
              "sum(unix_date(c))"),
          new ColumnType(
              "timestamp", "TIMESTAMP",
              "TIMESTAMP_MICROS(1600000000000000 + pmod(xxhash64(id), 100000000000000))",
              "sum(unix_seconds(c))"),
          new ColumnType("boolean", "BOOLEAN", "pmod(xxhash64(id), 2) = 0", "count_if(c)"),
          new ColumnType("binary", "BINARY", "CAST(HEX(xxhash64(id)) AS BINARY)", LENGTHS));

  private TypesBenchmark() {}

  static String table(ColumnType type) {
    return NAMESPACE + ".t_" + type.name();
  }

  /**
   * Writes every type's table with {@code rows} rows in four files, through the given session; a
   * table that already holds {@code rows} rows is kept, so adding a type writes only its table.
   */
  static void generate(SparkSession spark, long rows) throws Exception {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + NAMESPACE);
    for (ColumnType type : TYPES) {
      if (spark.catalog().tableExists(table(type))
          && spark.sql("SELECT count(*) FROM " + table(type)).first().getLong(0) == rows) {
        System.out.println("GENERATED " + rows + " rows in " + table(type) + " (kept)");
        continue;
      }
      spark.sql("DROP TABLE IF EXISTS " + table(type) + " PURGE");
      spark.sql("CREATE TABLE " + table(type) + " (c " + type.sqlType() + ") USING iceberg");
      spark.range(0, rows, 1, 4).selectExpr(type.values() + " AS c").writeTo(table(type)).append();
      long count = spark.sql("SELECT count(*) FROM " + table(type)).first().getLong(0);
      System.out.println("GENERATED " + count + " rows in " + table(type));
    }
  }

  /** Runs the scenario for one engine, printing its RESULT lines. */
  static void run(SparkSession spark, String engine, String warehouse, BenchMain.HeapWatch heap)
      throws IOException {
    int runs = Integer.getInteger("bench.types.runs", DEFAULT_RUNS);
    for (ColumnType type : TYPES) {
      String source = table(type);
      Path data = Paths.get(warehouse, "types", "t_" + type.name(), "data");
      if (engine.equals("parquet")) {
        spark.read().option("recursiveFileLookup", "true").parquet(data.toString())
            .createOrReplaceTempView("pq_types");
        source = "pq_types";
      }
      String query = type.query(source);
      spark.sql(query).collectAsList();
      for (int i = 0; i < runs; i += 1) {
        heap.start();
        long start = System.nanoTime();
        Row row = spark.sql(query).first();
        double seconds = (System.nanoTime() - start) / 1e9;
        String answer = row.get(0) + "," + row.get(1);
        BenchMain.printResult("types-" + type.name(), engine, seconds, answer, "-", heap.stop());
      }
      if (engine.equals("parquet")) {
        readBytes(data);
        for (int i = 0; i < runs; i += 1) {
          long start = System.nanoTime();
          long bytes = readBytes(data);
          double seconds = (System.nanoTime() - start) / 1e9;
          BenchMain.printResult(
              "types-" + type.name(), "raw", seconds, "bytes=" + bytes, "-", "-");
        }
        decompressPages(data);
        for (int i = 0; i < runs; i += 1) {
          long start = System.nanoTime();
          long bytes = decompressPages(data);
          double seconds = (System.nanoTime() - start) / 1e9;
          BenchMain.printResult(
              "types-" + type.name(), "unzstd", seconds, "bytes=" + bytes, "-", "-");
        }
      }
    }
  }

  /** Reads every file under {@code dir} through one reused buffer; returns the bytes read. */
  private static long readBytes(Path dir) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
    long total = 0;
    for (Path file : parquetFiles(dir)) {
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
        int n;
        while ((n = channel.read(buffer)) >= 0) {
          total += n;
          buffer.clear();
        }
      }
    }
    return total;
  }

  /**
   * Reads every file under {@code dir} and decompresses every page of every column chunk (ZSTD,
   * the tables' codec) with one reused context per thread, two threads as Spark's {@code local[2]}
   * has, one file at a time each: what any reader must do before it decodes a value. Returns the
   * decompressed bytes.
   */
  private static long decompressPages(Path dir) throws IOException {
    List<Path> files = parquetFiles(dir);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Long>> results = new ArrayList<>();
      for (Path file : files) {
        results.add(pool.submit(() -> decompressFile(file)));
      }
      long total = 0;
      for (Future<Long> result : results) {
        total += result.get();
      }
      return total;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted decompressing " + dir, e);
    } catch (ExecutionException e) {
      throw new IOException("Cannot decompress the pages under " + dir, e.getCause());
    } finally {
      pool.shutdown();
    }
  }

  private static final ThreadLocal<ZstdDecompressCtx> ZSTD =
      ThreadLocal.withInitial(ZstdDecompressCtx::new);
  private static final ThreadLocal<byte[][]> PAGE = ThreadLocal.withInitial(() -> new byte[1][0]);

  private static long decompressFile(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    // the footer: its length and the magic are the file's last eight bytes
    int footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    int footerStart = bytes.length - 8 - footerLength;
    FileMetaData footer =
        Util.readFileMetaData(new ByteArrayInputStream(bytes, footerStart, footerLength));
    long total = 0;
    for (RowGroup group : footer.getRow_groups()) {
      for (ColumnChunk chunk : group.getColumns()) {
        ColumnMetaData column = chunk.getMeta_data();
        if (column.getCodec() != org.apache.parquet.format.CompressionCodec.ZSTD) {
          throw new IOException("Cannot decompress " + file + ": codec " + column.getCodec());
        }
        long first = column.isSetDictionary_page_offset() && column.getDictionary_page_offset() > 0
            ? Math.min(column.getDictionary_page_offset(), column.getData_page_offset())
            : column.getData_page_offset();
        int position = (int) first;
        int end = (int) (first + column.getTotal_compressed_size());
        while (position < end) {
          ByteArrayInputStream in = new ByteArrayInputStream(bytes, position, end - position);
          PageHeader header = Util.readPageHeader(in);
          int offset = end - in.available();
          int compressed = header.getCompressed_page_size();
          int uncompressed = header.getUncompressed_page_size();
          if (header.isSetData_page_header_v2()) {
            int levels = header.getData_page_header_v2().getRepetition_levels_byte_length()
                + header.getData_page_header_v2().getDefinition_levels_byte_length();
            offset += levels;
            compressed -= levels;
            uncompressed -= levels;
          }
          byte[][] page = PAGE.get();
          if (page[0].length < uncompressed) {
            page[0] = new byte[uncompressed];
          }
          if (compressed > 0) {
            total += ZSTD.get().decompressByteArray(
                page[0], 0, uncompressed, bytes, offset, compressed);
          }
          position = offset + compressed;
        }
      }
    }
    return total;
  }

  private static List<Path> parquetFiles(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".parquet"))
          .sorted()
          .toList();
    }
  }
}
