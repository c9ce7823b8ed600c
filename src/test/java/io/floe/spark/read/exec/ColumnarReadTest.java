package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.fileRecords;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ReadTestSupport.positionDeletes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeReaderFactory;
import io.floe.spark.read.FloeScan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The columnar read path (Spark's vectorized Parquet decoder behind Floe's reader) returns exactly
 * what the row path returns, and what was written: every primitive type with NULLs, decimals of
 * each physical width, identity-partition constants, metadata columns, every kind of delete, schema
 * evolution; files the columnar decoder does not serve are copied into batches; batches never
 * exceed the batch size; prefetching changes nothing but speed and leaves no file open.
 */
class ColumnarReadTest extends SparkTestBase {
  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.col");
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset(FloeBatch.VECTORIZATION_CONF);
  }

  @Test
  void everyPrimitiveTypeReadsAsWrittenColumnarAndAsRows() {
    sql(
        "CREATE TABLE floe.col.types (id BIGINT, b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE,"
            + " d9 DECIMAL(9,2), d18 DECIMAL(18,4), d38 DECIMAL(38,10), dt DATE, ts TIMESTAMP,"
            + " ntz TIMESTAMP_NTZ, s STRING, bin BINARY, cat STRING) USING iceberg"
            + " PARTITIONED BY (cat)");
    sql(
        "CREATE OR REPLACE TEMPORARY VIEW types_src AS SELECT * FROM VALUES"
            + " (1L, true, 1, 10L, 1.5F, 2.25D, 1234567.89BD, 12345678901234.5678BD,"
            + "  1234567890123456789012345678.0123456789BD, DATE'2024-02-29',"
            + "  TIMESTAMP'2024-02-29 23:59:59.999999', TIMESTAMP_NTZ'1969-12-31 23:59:59.5', 'a',"
            + "  X'010203', 'x'),"
            + " (2L, false, -2147483648, -9223372036854775808L, CAST('NaN' AS FLOAT),"
            + "  CAST('-Infinity' AS DOUBLE), -0.01BD, -99999999999999.9999BD, 0BD, DATE'1900-01-01',"
            + "  TIMESTAMP'1900-01-01 00:00:00', TIMESTAMP_NTZ'9999-12-31 23:59:59.999999', '',"
            + "  X'', 'x'),"
            + " (3L, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
            + "  'y'),"
            + " (4L, true, 2147483647, 9223372036854775807L, -0.0F, 1e-300D, 9999999.99BD, 0.0001BD,"
            + "  -0.0000000001BD, DATE'2024-03-01', TIMESTAMP'2024-03-01 00:00:00',"
            + "  TIMESTAMP_NTZ'2024-03-01 00:00:00', 'héllo wörld', X'FF00', NULL)"
            + " AS v(id, b, i, l, f, d, d9, d18, d38, dt, ts, ntz, s, bin, cat)");
    sql(
        "INSERT INTO floe.col.types SELECT id, b, i, l, f, d, CAST(d9 AS DECIMAL(9,2)),"
            + " CAST(d18 AS DECIMAL(18,4)), CAST(d38 AS DECIMAL(38,10)), dt, ts, ntz, s, bin, cat"
            + " FROM types_src");
    List<String> expected =
        canonicalRows(
            sql(
                "SELECT id, b, i, l, f, d, CAST(d9 AS DECIMAL(9,2)), CAST(d18 AS DECIMAL(18,4)),"
                    + " CAST(d38 AS DECIMAL(38,10)), dt, ts, ntz, s, bin, cat FROM types_src"));

    assertBothPaths("SELECT * FROM floe.col.types", expected);
    assertBothPaths(
        "SELECT * FROM floe.col.types WHERE cat = 'x'",
        expected.stream().filter(row -> row.endsWith(", x]")).toList());
    assertThat(bothPaths("SELECT count(*), count(d38), sum(i) FROM floe.col.types"))
        .containsExactly("[4, 3, 0]");
  }

  @Test
  void partitionConstantsAndMetadataColumnsMatchTheRowPath() {
    sql(
        "CREATE TABLE floe.col.meta (id BIGINT, cat STRING, n INT) USING iceberg"
            + " PARTITIONED BY (cat)");
    sql("INSERT INTO floe.col.meta SELECT id, IF(pmod(id, 3) = 0, 'a', 'b'), CAST(id AS INT) FROM range(30)");
    icebergTable(spark, "col.meta")
        .updateSpec()
        .addField(org.apache.iceberg.expressions.Expressions.bucket("id", 4))
        .commit();
    sql("INSERT INTO floe.col.meta SELECT id, 'c', CAST(id AS INT) FROM range(30, 40)");

    List<String> columnar =
        bothPaths("SELECT id, cat, n, _file, _pos, _spec_id, _partition FROM floe.col.meta");
    assertThat(columnar).hasSize(40);
    List<Row> rows =
        sql(
            "SELECT _file, count(*), min(_pos), max(_pos), count(DISTINCT _pos) FROM floe.col.meta"
                + " GROUP BY _file");
    for (Row row : rows) {
      assertThat(row.getLong(2)).isZero();
      assertThat(row.getLong(3)).isEqualTo(row.getLong(1) - 1);
      assertThat(row.getLong(4)).isEqualTo(row.getLong(1));
    }
    assertThat(bothPaths("SELECT DISTINCT _spec_id, _partition.cat FROM floe.col.meta"))
        .containsExactly("[0, a]", "[0, b]", "[1, c]");
    // grouped by an identity partition column, the counts come from file metadata unless the
    // rows are read: read them here, through both paths, and compare with the metadata's answer
    String grouped = "SELECT cat, count(*) FROM floe.col.meta GROUP BY cat";
    spark.conf().set("spark.floe.read.aggregate-pushdown", "false");
    try {
      assertThat(bothPaths(grouped)).containsExactly("[a, 10]", "[b, 20]", "[c, 10]");
    } finally {
      spark.conf().unset("spark.floe.read.aggregate-pushdown");
    }
    assertThat(canonicalRows(sql(grouped))).containsExactly("[a, 10]", "[b, 20]", "[c, 10]");
  }

  @Test
  void positionEqualityAndPartitionDeletesAreAppliedInBatches() throws IOException {
    sql(
        "CREATE TABLE floe.col.del (id BIGINT, cat STRING, data STRING) USING iceberg"
            + " PARTITIONED BY (cat) TBLPROPERTIES ('format-version' = '2')");
    sql(
        "INSERT INTO floe.col.del SELECT id, IF(pmod(id, 2) = 0, 'a', 'b'), IF(pmod(id, 5) = 0, 'x', 'keep')"
            + " FROM range(100)");
    Table table = icebergTable(spark, "col.del");
    DataFile fileA = filesOf(table, "a").get(0);
    List<Record> rowsA = fileRecords(table, fileA);
    long firstA = (Long) rowsA.get(0).getField("id");
    long fifthA = (Long) rowsA.get(4).getField("id");
    table
        .newRowDelta()
        .addDeletes(positionDeletes(table, fileA, List.of(0L, 4L)))
        .addDeletes(equalityDeletes(table, "data", "b", List.of("x")))
        .commit();

    List<String> expected = new ArrayList<>();
    for (long id = 0; id < 100; id++) {
      String cat = id % 2 == 0 ? "a" : "b";
      boolean x = id % 5 == 0;
      if (id == firstA || id == fifthA || (cat.equals("b") && x)) {
        continue;
      }
      expected.add("[" + id + ", " + cat + ", " + (x ? "x" : "keep") + "]");
    }
    assertBothPaths("SELECT id, cat, data FROM floe.col.del", expected.stream().sorted().toList());
    // deletes need columns the query does not select (positions, data)
    assertThat(bothPaths("SELECT count(*) FROM floe.col.del"))
        .containsExactly("[" + expected.size() + "]");
    assertThat(bothPaths("SELECT id FROM floe.col.del WHERE cat = 'b'"))
        .hasSize((int) expected.stream().filter(row -> row.contains(", b, ")).count());
  }

  @Test
  void deletionVectorsAreAppliedInBatches() throws IOException {
    sql(
        "CREATE TABLE floe.col.dv (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)"
            + " TBLPROPERTIES ('format-version' = '3')");
    sql("INSERT INTO floe.col.dv SELECT id, IF(pmod(id, 2) = 0, 'even', 'odd') FROM range(40)");
    Table table = icebergTable(spark, "col.dv");
    List<Long> deleted = new ArrayList<>();
    OutputFileFactory puffins =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(puffins, path -> null);
    try (BaseDVFileWriter closing = writer) {
      for (DataFile file : dataFiles(table)) {
        List<Record> records = fileRecords(table, file);
        for (long pos : List.of(1L, 2L, 7L)) {
          deleted.add((Long) records.get((int) pos).getField("id"));
          closing.delete(file.location(), pos, table.specs().get(file.specId()), file.partition());
        }
      }
    }
    org.apache.iceberg.RowDelta delta = table.newRowDelta();
    writer.result().deleteFiles().forEach(delta::addDeletes);
    delta.commit();

    List<String> expected = new ArrayList<>();
    for (long id = 0; id < 40; id++) {
      if (!deleted.contains(id)) {
        expected.add("[" + id + ", " + (id % 2 == 0 ? "even" : "odd") + "]");
      }
    }
    assertBothPaths("SELECT id, cat FROM floe.col.dv", expected.stream().sorted().toList());
    assertThat(bothPaths("SELECT id, _pos FROM floe.col.dv WHERE _pos IN (1, 2, 7)")).isEmpty();
  }

  @Test
  void evolvedSchemasReadWidenedRenamedAndAddedColumns() {
    sql(
        "CREATE TABLE floe.col.evolve (id BIGINT, i INT, f FLOAT, dec DECIMAL(9,2), name STRING)"
            + " USING iceberg");
    sql("INSERT INTO floe.col.evolve VALUES (1, 2147483647, 1.5, 1234567.89, 'one'),"
        + " (2, NULL, NULL, NULL, NULL)");
    sql("ALTER TABLE floe.col.evolve ALTER COLUMN i TYPE BIGINT");
    sql("ALTER TABLE floe.col.evolve ALTER COLUMN f TYPE DOUBLE");
    sql("ALTER TABLE floe.col.evolve ALTER COLUMN dec TYPE DECIMAL(20,2)");
    sql("ALTER TABLE floe.col.evolve RENAME COLUMN name TO label");
    sql("ALTER TABLE floe.col.evolve ADD COLUMN extra STRING");
    sql("INSERT INTO floe.col.evolve VALUES (3, 9223372036854775807, 2.5, 123456789012345678.12,"
        + " 'three', 'added')");

    assertBothPaths(
        "SELECT id, i, f, dec, label, extra FROM floe.col.evolve",
        List.of(
            "[1, 2147483647, 1.5, 1234567.89, one, null]",
            "[2, null, null, null, null, null]",
            "[3, 9223372036854775807, 2.5, 123456789012345678.12, three, added]"));
  }

  @Test
  void batchesNeverExceedTheBatchSizeAndPrefetchingChangesNothing() throws IOException {
    sql("CREATE TABLE floe.col.many (id BIGINT, s STRING) USING iceberg");
    for (int i = 0; i < 5; i++) {
      sql(
          "INSERT INTO floe.col.many SELECT id, CAST(id AS STRING) FROM range(" + (i * 50) + ", "
              + (i * 50 + 50) + ")");
    }
    Table table = icebergTable(spark, "col.many");
    table.newRowDelta().addDeletes(positionDeletes(table, dataFiles(table).get(0), List.of(3L))).commit();
    FloeScan scan = floeScan(spark.table("floe.col.many"));
    int tasks = scan.partitions().stream().mapToInt(p -> p.tasks().size()).sum();

    Read noPrefetch = read(factory(scan, true, 7, 0, null), scan.partitions());
    Read prefetch = read(factory(scan, true, 7, 3, null), scan.partitions());
    Read rows = read(factory(scan, false, 7, 2, null), scan.partitions());

    assertThat(noPrefetch.rows).hasSize(249).isEqualTo(prefetch.rows).isEqualTo(rows.rows);
    assertThat(noPrefetch.largestBatch).isEqualTo(7);
    assertThat(prefetch.largestBatch).isEqualTo(7);
    assertThat(noPrefetch.metric(ReaderMetrics.FILES_READ)).isEqualTo(tasks);
    assertThat(prefetch.metric(ReaderMetrics.FILES_READ)).isEqualTo(tasks);
    assertThat(rows.metric(ReaderMetrics.FILES_READ)).isEqualTo(tasks);
    assertThat(prefetch.metric(ReaderMetrics.ROW_GROUPS_READ)).isEqualTo(tasks);
    assertThat(prefetch.metric(ReaderMetrics.BYTES_READ))
        .isEqualTo(dataFiles(table).stream().mapToLong(DataFile::fileSizeInBytes).sum());
  }

  @Test
  void nonParquetFilesOfAColumnarScanAreCopiedIntoBatches() throws IOException {
    sql("CREATE TABLE floe.col.mixed (id BIGINT, s STRING, cat STRING) USING iceberg PARTITIONED BY (cat)");
    sql("INSERT INTO floe.col.mixed VALUES (1, 'one', 'p'), (2, NULL, 'p')");
    Table table = icebergTable(spark, "col.mixed");
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.AVRO).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.AVRO).build();
    GenericRecord partition = GenericRecord.create(table.spec().partitionType());
    partition.set(0, "v");
    org.apache.iceberg.io.DataWriter<Record> writer =
        writers.newDataWriter(files.newOutputFile(table.spec(), partition), table.spec(), partition);
    try (org.apache.iceberg.io.DataWriter<Record> closing = writer) {
      for (long id = 3; id <= 4; id++) {
        Record record = GenericRecord.create(table.schema());
        record.setField("id", id);
        record.setField("s", id == 3 ? "three" : null);
        record.setField("cat", "v");
        closing.write(record);
      }
    }
    table.newAppend().appendFile(writer.toDataFile()).commit();

    assertBothPaths(
        "SELECT id, s, cat, _spec_id, _partition, _pos FROM floe.col.mixed",
        List.of(
            "[1, one, p, 0, [p], 0]",
            "[2, null, p, 0, [p], 1]",
            "[3, three, v, 0, [v], 0]",
            "[4, null, v, 0, [v], 1]"));
  }

  @Test
  void closingAReaderClosesTheFilesItOpenedAhead() throws IOException {
    sql("CREATE TABLE floe.col.ahead (id BIGINT) USING iceberg");
    for (int i = 0; i < 6; i++) {
      sql("INSERT INTO floe.col.ahead VALUES (" + i + ")");
    }
    List<org.apache.iceberg.FileScanTask> tasks = new ArrayList<>();
    floeScan(spark.table("floe.col.ahead")).partitions().forEach(p -> p.tasks().forEach(task -> tasks.add(task.asFileScanTask())));
    assertThat(tasks).hasSize(6);
    java.util.Set<String> open = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();

    TaskPrefetcher<java.io.Closeable> prefetcher =
        new TaskPrefetcher<>(
            tasks,
            2,
            task -> {
              opened.incrementAndGet();
              open.add(task.file().location());
              return () -> open.remove(task.file().location());
            });
    try (java.io.Closeable first = prefetcher.next()) {
      assertThat(open).contains(tasks.get(0).file().location());
    }
    prefetcher.close();

    assertThat(opened.get()).isBetween(1, 3);
    assertThat(open).isEmpty();
  }

  @Test
  void readOptionsReachTheReaderFactory() {
    sql("CREATE TABLE floe.col.opts (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.col.opts SELECT id FROM range(10)");
    Dataset<Row> df =
        spark.read().option("batch-size", "3").option("prefetch-files", "0").table("floe.col.opts");
    FloeReaderFactory factory = (FloeReaderFactory) floeScan(df).toBatch().createReaderFactory();
    assertThat(factory.settings().batchSize()).isEqualTo(3);
    assertThat(factory.settings().prefetchFiles()).isZero();
    assertThat(df.collectAsList()).hasSize(10);
  }

  @Test
  void filesWithoutFieldIdsAreReadByTheNameMapping() throws IOException {
    java.nio.file.Path dir = warehouse.resolve("no-ids");
    // Spark's own Parquet writer stores no field ids; its column order differs from the table's
    spark
        .sql("SELECT CAST(id AS STRING) AS name, id * 10 AS score, id FROM range(6)")
        .coalesce(1)
        .write()
        .parquet(dir.toUri().toString());
    java.nio.file.Path parquet;
    try (var files = java.nio.file.Files.list(dir)) {
      parquet = files.filter(p -> p.toString().endsWith(".parquet")).findFirst().orElseThrow();
    }
    sql("CREATE TABLE floe.col.mapped (id BIGINT, name STRING, score BIGINT) USING iceberg");
    Table table = icebergTable(spark, "col.mapped");
    NameMapping mapping = org.apache.iceberg.mapping.MappingUtil.create(table.schema());
    table
        .updateProperties()
        .set(
            org.apache.iceberg.TableProperties.DEFAULT_NAME_MAPPING,
            org.apache.iceberg.mapping.NameMappingParser.toJson(mapping))
        .commit();
    table
        .newAppend()
        .appendFile(
            org.apache.iceberg.DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(parquet.toUri().toString())
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(java.nio.file.Files.size(parquet))
                .withRecordCount(6)
                .build())
        .commit();
    FloeScan scan = floeScan(spark.table("floe.col.mapped"));

    List<String> expected = new ArrayList<>();
    for (long id = 0; id < 6; id++) {
      expected.add("[" + id + ", " + id + ", " + id * 10 + "]");
    }
    assertThat(read(factory(scan, true, 4096, 2, mapping), scan.partitions()).rows)
        .isEqualTo(expected);
    assertThat(read(factory(scan, false, 4096, 2, mapping), scan.partitions()).rows)
        .isEqualTo(expected);

    // the same through SQL, where the scan takes the mapping from the table's properties
    for (String vectorized : List.of("true", "false")) {
      List<String> rows =
          spark.read().option("vectorization-enabled", vectorized).table("floe.col.mapped")
              .orderBy("id").collectAsList().stream().map(Object::toString).toList();
      assertThat(rows).as("vectorization-enabled=%s", vectorized)
          .isEqualTo(expected.stream().map(row -> row.replace(", ", ",")).toList());
    }
    assertThat(spark.sql("SELECT name FROM floe.col.mapped WHERE score = 30").collectAsList())
        .extracting(row -> row.getString(0))
        .containsExactly("3");
  }

  private static FloeReaderFactory factory(
      FloeScan scan, boolean vectorized, int batchSize, int prefetch, NameMapping mapping) {
    return new FloeReaderFactory(
        new ReadSettings(
            scan.tableName(), scan.io(), scan.tableSchema(), scan.projectedSchema(), true,
            batchSize, prefetch, mapping),
        vectorized);
  }

  /** What reading every partition through one factory gave. */
  private static final class Read {
    final List<String> rows = new ArrayList<>();
    final java.util.Map<String, Long> metrics = new java.util.HashMap<>();
    int largestBatch;

    long metric(String name) {
      return metrics.getOrDefault(name, 0L);
    }

    void addMetrics(CustomTaskMetric[] values) {
      for (CustomTaskMetric value : values) {
        metrics.merge(value.name(), value.value(), Long::sum);
      }
    }
  }

  private static Read read(FloeReaderFactory factory, List<FloeInputPartition> partitions)
      throws IOException {
    StructType schema = io.floe.spark.types.SparkSchemas.toSpark(factory.settings().readSchema());
    Read read = new Read();
    for (FloeInputPartition partition : partitions) {
      assertThat(factory.supportColumnarReads(partition)).isEqualTo(factory.vectorizationEnabled());
      if (factory.supportColumnarReads(partition)) {
        try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(partition)) {
          while (reader.next()) {
            ColumnarBatch batch = reader.get();
            read.largestBatch = Math.max(read.largestBatch, batch.numRows());
            for (int i = 0; i < batch.numRows(); i++) {
              read.rows.add(render(batch.getRow(i), schema));
            }
          }
          read.addMetrics(reader.currentMetricsValues());
        }
      } else {
        try (PartitionReader<InternalRow> reader = factory.createReader(partition)) {
          while (reader.next()) {
            read.rows.add(render(reader.get(), schema));
          }
          read.addMetrics(reader.currentMetricsValues());
        }
      }
    }
    read.rows.sort(null);
    return read;
  }

  private static String render(InternalRow row, StructType schema) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < schema.size(); i++) {
      if (row.isNullAt(i)) {
        values.add("null");
      } else if (schema.fields()[i].dataType() instanceof BinaryType) {
        values.add(Arrays.toString(row.getBinary(i)));
      } else {
        values.add(String.valueOf(row.get(i, schema.fields()[i].dataType())));
      }
    }
    return values.toString();
  }

  /** Runs a query columnar and as rows, checks each took its path, and returns the rows. */
  private static List<String> bothPaths(String query) {
    spark.conf().set(FloeBatch.VECTORIZATION_CONF, "true");
    List<String> columnar = run(query, true);
    spark.conf().set(FloeBatch.VECTORIZATION_CONF, "false");
    List<String> rows = run(query, false);
    spark.conf().unset(FloeBatch.VECTORIZATION_CONF);
    assertThat(columnar).as("columnar against rows for " + query).isEqualTo(rows);
    return columnar;
  }

  private static void assertBothPaths(String query, List<String> expected) {
    assertThat(bothPaths(query)).as(query).isEqualTo(expected);
  }

  private static List<String> run(String query, boolean columnar) {
    Dataset<Row> df = spark.sql(query);
    List<Row> rows = df.collectAsList();
    SparkPlan plan = df.queryExecution().sparkPlan();
    boolean sawScan = false;
    for (SparkPlan leaf : CollectionConverters.asJava(plan.collectLeaves())) {
      if (leaf instanceof org.apache.spark.sql.execution.datasources.v2.BatchScanExec) {
        sawScan = true;
        assertThat(leaf.supportsColumnar()).as("columnar scan in " + query).isEqualTo(columnar);
      }
    }
    assertThat(sawScan).as("a Floe scan in " + query).isTrue();
    return canonicalRows(rows);
  }

  private static List<DataFile> filesOf(Table table, String cat) {
    return dataFiles(table).stream()
        .filter(file -> cat.equals(file.partition().get(0, String.class)))
        .toList();
  }

  private static org.apache.iceberg.DeleteFile equalityDeletes(
      Table table, String column, String cat, List<String> values) throws IOException {
    Schema deleteSchema = table.schema().select(column);
    PartitionSpec spec = table.spec();
    GenericRecord partition = GenericRecord.create(spec.partitionType());
    partition.set(0, cat);
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(new int[] {deleteSchema.columns().get(0).fieldId()})
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(files.newOutputFile(spec, partition), spec, partition);
    try (EqualityDeleteWriter<Record> closing = writer) {
      for (String value : values) {
        Record key = GenericRecord.create(deleteSchema);
        key.setField(column, value);
        closing.write(key);
      }
    }
    return writer.toDeleteFile();
  }
}
