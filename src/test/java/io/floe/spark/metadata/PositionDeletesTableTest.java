package io.floe.spark.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeReaderFactory;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadTestSupport;
import io.floe.spark.serialization.Travel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataTableType;
import org.apache.iceberg.MetadataTableUtils;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code position_deletes} metadata table ({@code floe.db.t.position_deletes}): one row per
 * deleted position of every live position delete file and deletion vector, with the columns
 * Iceberg core's {@code PositionDeletesTable} defines ({@code file_path}, {@code pos}, {@code row},
 * {@code partition}, {@code spec_id}, {@code delete_file_path}, and on format version 3 {@code
 * content_offset} and {@code content_size_in_bytes}). The expected rows are what the test wrote
 * into each delete file, with the delete files Iceberg core's own scan of the table plans.
 */
class PositionDeletesTableTest extends SparkTestBase {
  private static final String V2 = "floe.pd.v2.position_deletes";
  private static final String V3 = "floe.pd.v3.position_deletes";
  /** Every row written into the v2 table's delete files. */
  private static final List<Row> V2_ROWS = new ArrayList<>();
  /** Every row written into the v3 table's deletion vectors. */
  private static final List<Row> V3_ROWS = new ArrayList<>();
  private static String fileA;
  private static Record deletedWithRow;
  private static Record remaining;

  @BeforeAll
  static void createTables() throws IOException {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.pd");
    sql("CREATE TABLE floe.pd.v2 (id BIGINT, data STRING, category STRING) USING iceberg"
        + " PARTITIONED BY (category) TBLPROPERTIES ('format-version'='2')");
    sql("INSERT INTO floe.pd.v2 VALUES (1, 'one', 'a'), (2, 'two', 'a'), (3, 'three', 'a'),"
        + " (4, 'four', 'b'), (5, 'five', 'b'), (6, 'six', 'b')");
    Table v2 = ReadTestSupport.icebergTable(spark, "pd.v2");
    DataFile a = fileIn(v2, "a");
    DataFile b = fileIn(v2, "b");
    fileA = a.location();
    List<Record> recordsB = ReadTestSupport.fileRecords(v2, b);
    deletedWithRow = recordsB.get(1);
    remaining = recordsB.get(2);
    RowDelta delta = v2.newRowDelta();
    // Parquet files without rows and with rows, and an Avro file (Iceberg's ORC writer does not run
    // next to Spark's ORC on this classpath)
    delta.addDeletes(deletes(v2, a, List.of(0L, 2L), FileFormat.PARQUET, null, V2_ROWS));
    delta.addDeletes(deletes(v2, b, List.of(1L), FileFormat.PARQUET, recordsB, V2_ROWS));
    delta.addDeletes(deletes(v2, a, List.of(1L), FileFormat.AVRO, null, V2_ROWS));
    delta.addDeletes(deletes(v2, b, List.of(0L), FileFormat.AVRO, null, V2_ROWS));
    delta.commit();

    sql("CREATE TABLE floe.pd.v3 (id BIGINT, category STRING) USING iceberg"
        + " PARTITIONED BY (category) TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.pd.v3 SELECT id, IF(pmod(id, 2) = 0, 'even', 'odd') FROM range(20)");
    Table v3 = ReadTestSupport.icebergTable(spark, "pd.v3");
    OutputFileFactory puffins =
        OutputFileFactory.builderFor(v3, 1, 1).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(puffins, path -> null);
    List<DataFile> v3Files = ReadTestSupport.dataFiles(v3);
    try (BaseDVFileWriter closing = writer) {
      for (DataFile file : v3Files) {
        for (long pos : List.of(0L, 3L, 4L)) {
          closing.delete(file.location(), pos, v3.specs().get(file.specId()), file.partition());
        }
      }
    }
    RowDelta dvs = v3.newRowDelta();
    for (DeleteFile dv : writer.result().deleteFiles()) {
      dvs.addDeletes(dv);
      for (long pos : List.of(0L, 3L, 4L)) {
        V3_ROWS.add(
            RowFactory.create(
                dv.referencedDataFile(), pos, null,
                RowFactory.create(dv.partition().get(0, String.class)), dv.specId(), dv.location(),
                dv.contentOffset(), dv.contentSizeInBytes()));
      }
    }
    dvs.commit();
  }

  @Test
  void selectStarReturnsEveryDeletedPositionOfEveryDeleteFileFormat() {
    Dataset<Row> all = spark.sql("SELECT * FROM " + V2);
    Table core = positionDeletesTable("pd.v2");
    assertThat(all.columns())
        .containsExactly("file_path", "pos", "row", "partition", "spec_id", "delete_file_path")
        .containsExactlyElementsOf(
            core.schema().columns().stream().map(Types.NestedField::name).toList());
    assertThat(all.schema().apply("row").dataType())
        .isEqualTo(
            new StructType()
                .add("id", DataTypes.LongType)
                .add("data", DataTypes.StringType)
                .add("category", DataTypes.StringType));

    List<Row> rows = all.collectAsList();
    assertThat(sorted(rows)).isEqualTo(sorted(V2_ROWS)).hasSize(5);
    // the delete files read are exactly those Iceberg core plans for its position_deletes table
    assertThat(rows.stream().map(row -> row.getString(5)).collect(Collectors.toSet()))
        .isEqualTo(coreDeleteFiles(core));
    // every delete file format is there, and only the file written with rows has rows
    assertThat(rows.stream().map(row -> extension(row.getString(5))).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("parquet", "avro");
    assertThat(rows.stream().filter(row -> !row.isNullAt(2)).toList())
        .singleElement()
        .satisfies(
            row ->
                assertThat(row.getStruct(2))
                    .isEqualTo(
                        RowFactory.create(
                            deletedWithRow.getField("id"), deletedWithRow.getField("data"), "b")));
    // and the deletes really apply to the data table
    assertThat(sql("SELECT id FROM floe.pd.v2"))
        .containsExactly(RowFactory.create(remaining.getField("id")));
  }

  @Test
  void projectionsCountsAndFiltersSeeTheSameRows() {
    Dataset<Row> projected = spark.sql("SELECT pos, delete_file_path FROM " + V2);
    assertThat(projected.columns()).containsExactly("pos", "delete_file_path");
    assertThat(sorted(projected.collectAsList()))
        .isEqualTo(sorted(project(V2_ROWS, 1, 5)));

    Dataset<Row> primitives = spark.sql("SELECT file_path, pos FROM " + V2);
    assertThat(sorted(primitives.collectAsList())).isEqualTo(sorted(project(V2_ROWS, 0, 1)));

    assertThat(sql("SELECT count(*) FROM " + V2)).containsExactly(RowFactory.create(5L));
    assertThat(sql("SELECT count(*) FROM %s WHERE partition.category = 'b'", V2))
        .containsExactly(RowFactory.create(2L));
    assertThat(sorted(sql("SELECT pos FROM %s WHERE file_path = '%s'", V2, fileA)))
        .isEqualTo(sorted(List.of(RowFactory.create(0L), RowFactory.create(1L), RowFactory.create(2L))));
    assertThat(sql("SELECT count(*) FROM %s WHERE spec_id = 0 AND pos = 1", V2))
        .containsExactly(RowFactory.create(2L));
    assertThat(sql("SELECT row.data, partition.category FROM %s WHERE row IS NOT NULL", V2))
        .containsExactly(RowFactory.create(deletedWithRow.getField("data"), "b"));
    assertThat(sql("SELECT partition.category, count(*) FROM %s GROUP BY partition.category"
            + " ORDER BY partition.category", V2))
        .containsExactly(RowFactory.create("a", 3L), RowFactory.create("b", 2L));
  }

  @Test
  void rowsAreTheSameWhenVectorizationIsOff() {
    spark.conf().set("spark.floe.read.vectorization-enabled", "false");
    try {
      assertThat(sorted(sql("SELECT * FROM " + V2))).isEqualTo(sorted(V2_ROWS));
    } finally {
      spark.conf().unset("spark.floe.read.vectorization-enabled");
    }
  }

  @Test
  void partitionAndFilePathFiltersPruneDeleteFilesWhenPlanning() {
    FloeScan all = scan("v2", null);
    FloeScan onlyB =
        scan("v2", predicate("=", Expressions.column("partition.category"), "b"));
    FloeScan onlyA = scan("v2", predicate("=", Expressions.column("file_path"), fileA));

    assertThat(deleteFiles(all)).hasSize(4);
    // the partition filter prunes the delete files of partition a
    assertThat(deleteFiles(onlyB)).hasSize(2).isSubsetOf(deleteFiles(all));
    assertThat(deleteFiles(all).stream().filter(file -> file.contains("category=b/")).toList())
        .containsExactlyInAnyOrderElementsOf(deleteFiles(onlyB));
    // a file_path filter prunes only by the bounds the delete files carry (none in Avro, and
    // Parquet's default truncated string bounds of long paths rarely exclude a file), so it never
    // drops a delete file of that data file
    assertThat(deleteFiles(onlyA))
        .isSubsetOf(deleteFiles(all))
        .containsAll(
            deleteFiles(all).stream().filter(file -> file.contains("category=a/")).toList());
    for (FloeInputPartition partition : all.partitions()) {
      assertThat(partition.tasks())
          .isNotEmpty()
          .noneMatch(ScanTask::isFileScanTask)
          .allMatch(PositionDeletesScanTask.class::isInstance);
    }
  }

  @Test
  void deletionVectorsOfAFormatVersion3TableAreRows() {
    Dataset<Row> all = spark.sql("SELECT * FROM " + V3);
    assertThat(all.columns())
        .containsExactly(
            "file_path", "pos", "row", "partition", "spec_id", "delete_file_path",
            "content_offset", "content_size_in_bytes")
        .containsExactlyElementsOf(
            positionDeletesTable("pd.v3").schema().columns().stream()
                .map(Types.NestedField::name)
                .toList());
    assertThat(sorted(all.collectAsList())).isEqualTo(sorted(V3_ROWS)).hasSize(6);
    assertThat(all.collectAsList().stream().map(row -> row.getString(5)).collect(Collectors.toSet()))
        .isEqualTo(coreDeleteFiles(positionDeletesTable("pd.v3")))
        .allSatisfy(location -> assertThat(location).endsWith(".puffin"));

    assertThat(sql("SELECT count(*) FROM %s WHERE partition.category = 'odd'", V3))
        .containsExactly(RowFactory.create(3L));
    assertThat(sql("SELECT count(*) FROM floe.pd.v3")).containsExactly(RowFactory.create(14L));
  }

  @Test
  void positionDeletesPlanPiecesTravelAndReadTheSameRows() {
    StructType columns =
        new StructType()
            .add("file_path", DataTypes.StringType)
            .add("pos", DataTypes.LongType)
            .add("delete_file_path", DataTypes.StringType);
    for (String table : List.of("v2", "v3")) {
      FloeScan scan =
          scan(table, new CaseInsensitiveStringMap(Map.of("split-size", "1")), columns, null);
      FloeBatch batch = (FloeBatch) scan.toBatch();
      assertThat(batch.partitions()).as(table).hasSizeGreaterThan(1);
      List<List<Object>> expected = new ArrayList<>();
      for (Row row : table.equals("v2") ? V2_ROWS : V3_ROWS) {
        expected.add(Arrays.asList(row.getString(0), row.getLong(1), row.getString(5)));
      }
      expected.sort(Comparator.comparing(Object::toString));

      FloeReaderFactory factory = batch.readerFactory();
      assertThat(Travel.read(factory, batch.partitions(), columns)).as(table).isEqualTo(expected);
      for (boolean kryo : List.of(false, true)) {
        FloeReaderFactory shipped = kryo ? Travel.throughKryo(factory) : Travel.throughJava(factory);
        List<FloeInputPartition> partitions = new ArrayList<>();
        for (FloeInputPartition partition : batch.partitions()) {
          FloeInputPartition copy =
              kryo ? Travel.throughKryo(partition) : Travel.throughJava(partition);
          assertThat(copy).isNotSameAs(partition).isEqualTo(partition).hasSameHashCodeAs(partition);
          assertThat(copy.toString()).isEqualTo(partition.toString());
          partitions.add(copy);
        }
        assertThat(Travel.read(shipped, partitions, columns)).as(table).isEqualTo(expected);
      }
      FloeInputPartition first = batch.partitions().get(0);
      FloeInputPartition rebuilt =
          new FloeInputPartition(first.index(), first.tasks(), first.partitionKey());
      assertThat(rebuilt).isEqualTo(first);
      // the vectorized factory still reads these partitions as rows
      assertThat(batch.createReaderFactory().supportColumnarReads(first)).isFalse();
    }
  }

  @Test
  void deletesUnderAnOlderSpecShowTheirPartitionInTheTablesUnifiedPartitionType() throws IOException {
    sql("CREATE TABLE floe.pd.evolved (id BIGINT, category STRING) USING iceberg"
        + " PARTITIONED BY (category) TBLPROPERTIES ('format-version'='2')");
    sql("INSERT INTO floe.pd.evolved VALUES (1, 'a'), (2, 'a')");
    Table table = ReadTestSupport.icebergTable(spark, "pd.evolved");
    DataFile before = ReadTestSupport.dataFiles(table).get(0);
    table
        .updateSpec()
        .addField("id_bucket", org.apache.iceberg.expressions.Expressions.bucket("id", 4))
        .commit();
    sql("INSERT INTO floe.pd.evolved VALUES (3, 'b')");
    table.refresh();
    DataFile after =
        ReadTestSupport.dataFiles(table).stream()
            .filter(file -> file.specId() != before.specId())
            .findFirst()
            .orElseThrow();
    int bucket = after.partition().get(1, Integer.class);
    DeleteFile oldDeletes =
        deletes(table, before, List.of(1L), FileFormat.PARQUET, null, new ArrayList<>());
    DeleteFile newDeletes =
        deletes(table, after, List.of(0L), FileFormat.PARQUET, null, new ArrayList<>());
    table.newRowDelta().addDeletes(oldDeletes).addDeletes(newDeletes).commit();

    Dataset<Row> rows =
        spark.sql("SELECT partition, spec_id, pos FROM floe.pd.evolved.position_deletes");
    assertThat(rows.schema().apply("partition").dataType())
        .isEqualTo(
            new StructType()
                .add("category", DataTypes.StringType)
                .add("id_bucket", DataTypes.IntegerType));
    assertThat(sorted(rows.collectAsList()))
        .isEqualTo(
            sorted(
                List.of(
                    RowFactory.create(RowFactory.create("a", null), before.specId(), 1L),
                    RowFactory.create(RowFactory.create("b", bucket), after.specId(), 0L))));
    assertThat(
            sql("SELECT pos FROM floe.pd.evolved.position_deletes WHERE partition.id_bucket = %d",
                bucket))
        .containsExactly(RowFactory.create(0L));
    assertThat(sql("SELECT id FROM floe.pd.evolved ORDER BY id")).containsExactly(RowFactory.create(1L));
  }

  @Test
  void aTableWithoutDeletesHasAnEmptyPositionDeletesTable() {
    sql("CREATE TABLE floe.pd.clean (id BIGINT) USING iceberg TBLPROPERTIES ('format-version'='2')");
    sql("INSERT INTO floe.pd.clean VALUES (1), (2)");
    Dataset<Row> all = spark.sql("SELECT * FROM floe.pd.clean.position_deletes");
    // an unpartitioned table has no partition column
    assertThat(all.columns())
        .containsExactly("file_path", "pos", "row", "spec_id", "delete_file_path");
    assertThat(all.collectAsList()).isEmpty();
    assertThat(sql("SELECT count(*) FROM floe.pd.clean.position_deletes"))
        .containsExactly(RowFactory.create(0L));
  }

  // helpers

  /** Writes position deletes of one data file and adds the rows they show to {@code expected}. */
  private static DeleteFile deletes(
      Table table,
      DataFile file,
      List<Long> positions,
      FileFormat format,
      List<Record> rows,
      List<Row> expected)
      throws IOException {
    PartitionSpec spec = table.specs().get(file.specId());
    OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).format(format).build();
    PositionDeleteWriter<Record> writer;
    if (rows == null) {
      writer =
          new GenericFileWriterFactory.Builder(table)
              .deleteFileFormat(format)
              .build()
              .newPositionDeleteWriter(files.newOutputFile(spec, file.partition()), spec, file.partition());
    } else {
      writer =
          Parquet.writeDeletes(files.newOutputFile(spec, file.partition()))
              .forTable(table)
              .withSpec(spec)
              .withPartition(file.partition())
              .rowSchema(table.schema())
              .createWriterFunc(
                  (Schema schema, org.apache.parquet.schema.MessageType type) ->
                      GenericParquetWriter.create(schema, type))
              .buildPositionWriter();
    }
    String category = file.partition().get(0, String.class);
    try (PositionDeleteWriter<Record> closing = writer) {
      PositionDelete<Record> delete = PositionDelete.create();
      for (long pos : positions) {
        Record row = rows == null ? null : rows.get((int) pos);
        closing.write(delete.set(file.location(), pos, row));
      }
    }
    DeleteFile deleteFile = writer.toDeleteFile();
    for (long pos : positions) {
      Record row = rows == null ? null : rows.get((int) pos);
      expected.add(
          RowFactory.create(
              file.location(), pos,
              row == null
                  ? null
                  : RowFactory.create(row.getField("id"), row.getField("data"), row.getField("category")),
              RowFactory.create(category), file.specId(), deleteFile.location()));
    }
    return deleteFile;
  }

  private static Table positionDeletesTable(String name) {
    return MetadataTableUtils.createMetadataTableInstance(
        ReadTestSupport.icebergTable(spark, name), MetadataTableType.POSITION_DELETES);
  }

  /** The delete files Iceberg core's own scan of a position_deletes table plans. */
  private static Set<String> coreDeleteFiles(Table positionDeletes) {
    Set<String> files = new TreeSet<>();
    try (CloseableIterable<ScanTask> tasks = positionDeletes.newBatchScan().planFiles()) {
      for (ScanTask task : tasks) {
        files.add(((PositionDeletesScanTask) task).file().location());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static DataFile fileIn(Table table, String category) {
    List<DataFile> files =
        ReadTestSupport.dataFiles(table).stream()
            .filter(file -> category.equals(file.partition().get(0, String.class)))
            .toList();
    assertThat(files).as("data files of category " + category).hasSize(1);
    return files.get(0);
  }

  private static FloeScan scan(String table, Predicate filter) {
    return scan(table, CaseInsensitiveStringMap.empty(), null, filter);
  }

  private static FloeScan scan(
      String table, CaseInsensitiveStringMap options, StructType columns, Predicate filter) {
    try {
      FloeCatalog catalog =
          (FloeCatalog) ((SparkSession) spark).sessionState().catalogManager().catalog("floe");
      FloeTable positionDeletes =
          (FloeTable) catalog.loadTable(Identifier.of(new String[] {"pd", table}, "position_deletes"));
      ScanBuilder builder = positionDeletes.newScanBuilder(options);
      if (filter != null) {
        ((SupportsPushDownV2Filters) builder).pushPredicates(new Predicate[] {filter});
      }
      if (columns != null) {
        ((SupportsPushDownRequiredColumns) builder).pruneColumns(columns);
      }
      return (FloeScan) builder.build();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Predicate predicate(String op, Expression column, String value) {
    return new Predicate(
        op, new Expression[] {column, Expressions.literal(UTF8String.fromString(value))});
  }

  private static Set<String> deleteFiles(FloeScan scan) {
    Set<String> files = new TreeSet<>();
    for (FloeInputPartition partition : scan.partitions()) {
      for (ScanTask task : partition.tasks()) {
        files.add(((PositionDeletesScanTask) task).file().location());
      }
    }
    return files;
  }

  private static List<Row> project(List<Row> rows, int... columns) {
    List<Row> projected = new ArrayList<>();
    for (Row row : rows) {
      Object[] values = new Object[columns.length];
      for (int i = 0; i < columns.length; i++) {
        values[i] = row.get(columns[i]);
      }
      projected.add(RowFactory.create(values));
    }
    return projected;
  }

  private static List<String> sorted(List<Row> rows) {
    return rows.stream().map(Row::toString).sorted().toList();
  }

  private static String extension(String location) {
    return location.substring(location.lastIndexOf('.') + 1);
  }
}
