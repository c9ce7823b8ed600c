package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.fileRecords;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static io.floe.spark.read.ReadTestSupport.positionDeletes;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Row-level deletes written with Iceberg core's writers (position deletes, equality deletes and, on
 * format version 3, deletion vectors) are applied by Floe's reader: queries return exactly the
 * surviving rows, whichever columns they select or filter on.
 */
class DeleteFilesReadTest extends SparkTestBase {
  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.del");
  }

  @Test
  void positionAndEqualityDeletesLeaveExactlyTheSurvivingRows() throws IOException {
    sql(
        "CREATE TABLE floe.del.mixed (id BIGINT, cat STRING, data STRING) USING iceberg"
            + " PARTITIONED BY (cat) TBLPROPERTIES ('format-version' = '2')");
    sql(
        "INSERT INTO floe.del.mixed VALUES (1, 'a', 'd1'), (2, 'b', 'x'), (3, 'c', 'd3'),"
            + " (4, 'a', 'd4'), (5, 'b', 'd5'), (6, 'c', 'x')");
    sql(
        "INSERT INTO floe.del.mixed VALUES (7, 'a', 'x'), (8, 'b', 'x'), (9, 'c', 'd9'),"
            + " (10, 'a', 'd10'), (11, 'b', 'd11'), (12, 'c', 'd12')");
    Table table = icebergTable(spark, "del.mixed");
    Map<Long, String> survivors = idToCat(sql("SELECT id, cat FROM floe.del.mixed"));
    assertThat(survivors).hasSize(12);

    // position deletes: the first and last row of one file in partition a
    DataFile fileA = filesOf(table, "a").get(0);
    List<Record> rowsA = fileRecords(table, fileA);
    long firstA = (Long) rowsA.get(0).getField("id");
    long lastA = (Long) rowsA.get(rowsA.size() - 1).getField("id");
    DeleteFile positions =
        positionDeletes(table, fileA, List.of(0L, (long) rowsA.size() - 1));
    // equality delete on a column the queries below do not select, in partition b only
    DeleteFile dataX = equalityDeletes(table, "data", "b", List.of("x"));
    // equality delete on the partition column itself: removes every row of partition c
    DeleteFile catC = equalityDeletes(table, "cat", "c", List.of("c"));
    RowDelta delta = table.newRowDelta();
    delta.addDeletes(positions).addDeletes(dataX).addDeletes(catC).commit();

    survivors.remove(firstA);
    survivors.remove(lastA);
    survivors.remove(2L);
    survivors.remove(8L);
    survivors.keySet().removeIf(id -> survivors.get(id).equals("c"));
    assertThat(idToCat(sql("SELECT id, cat FROM floe.del.mixed"))).isEqualTo(survivors);
    assertThat(ids(sql("SELECT id FROM floe.del.mixed"))).isEqualTo(new ArrayList<>(survivors.keySet()));
    assertThat(sql("SELECT count(*) FROM floe.del.mixed").get(0).getLong(0))
        .isEqualTo(survivors.size());
    assertThat(ids(sql("SELECT id FROM floe.del.mixed WHERE cat = 'b'")))
        .isEqualTo(idsIn(survivors, "b"));
    assertThat(ids(sql("SELECT id FROM floe.del.mixed WHERE cat = 'c'"))).isEmpty();
    assertThat(ids(sql("SELECT id FROM floe.del.mixed WHERE data = 'x'")))
        .isEqualTo(
            survivors.keySet().stream().filter(id -> id == 7L).collect(Collectors.toList()));

    // the snapshot before the deletes still has every row, also next to the current one
    long beforeDeletes = table.snapshot(table.currentSnapshot().parentId()).snapshotId();
    assertThat(
            sql(
                "SELECT (SELECT count(*) FROM floe.del.mixed VERSION AS OF %d),"
                    + " (SELECT count(*) FROM floe.del.mixed)",
                beforeDeletes))
        .containsExactly(RowFactory.create(12L, (long) survivors.size()));

    // equality deletes apply only to rows written before them
    sql("INSERT INTO floe.del.mixed VALUES (13, 'c', 'late'), (14, 'b', 'x')");
    assertThat(ids(sql("SELECT id FROM floe.del.mixed WHERE cat IN ('b', 'c')")))
        .isEqualTo(merge(idsIn(survivors, "b"), List.of(13L, 14L)));
  }

  @Test
  void positionDeletesHideTheirPositionsFromTheRowPositionColumn() throws IOException {
    sql(
        "CREATE TABLE floe.del.positions (id BIGINT, data STRING) USING iceberg"
            + " TBLPROPERTIES ('format-version' = '2')");
    sql("INSERT INTO floe.del.positions SELECT /*+ COALESCE(1) */ id, concat('v', id) FROM range(10)");
    Table table = icebergTable(spark, "del.positions");
    assertThat(dataFiles(table)).hasSize(1);
    DataFile file = dataFiles(table).get(0);
    List<Record> records = fileRecords(table, file);

    table.newRowDelta().addDeletes(positionDeletes(table, file, List.of(1L, 4L, 9L))).commit();

    List<Row> rows = sql("SELECT _pos, id FROM floe.del.positions ORDER BY _pos");
    List<Long> positions = rows.stream().map(row -> row.getLong(0)).toList();
    assertThat(positions).containsExactly(0L, 2L, 3L, 5L, 6L, 7L, 8L);
    for (Row row : rows) {
      assertThat(row.getLong(1)).isEqualTo(records.get((int) row.getLong(0)).getField("id"));
    }
  }

  @Test
  void equalityDeleteOnSeveralColumnsMatchesOnlyWholeKeys() throws IOException {
    sql(
        "CREATE TABLE floe.del.keys (id BIGINT, region STRING, amount INT) USING iceberg"
            + " TBLPROPERTIES ('format-version' = '2')");
    sql(
        "INSERT INTO floe.del.keys VALUES (1, 'eu', 10), (1, 'us', 20), (2, 'eu', 30),"
            + " (2, NULL, 40), (3, 'us', 50)");
    Table table = icebergTable(spark, "del.keys");
    Schema keySchema = table.schema().select("id", "region");
    Record euOne = GenericRecord.create(keySchema);
    euOne.setField("id", 1L);
    euOne.setField("region", "eu");
    Record nullTwo = GenericRecord.create(keySchema);
    nullTwo.setField("id", 2L);
    nullTwo.setField("region", null);

    table.newRowDelta().addDeletes(equalityDeletes(table, keySchema, null, List.of(euOne, nullTwo))).commit();

    assertThat(sql("SELECT amount FROM floe.del.keys ORDER BY amount").stream().map(r -> r.getInt(0)).toList())
        .containsExactly(20, 30, 50);
  }

  @Test
  void deletionVectorsOnAFormatVersion3TableHideTheirRows() throws IOException {
    sql(
        "CREATE TABLE floe.del.dv (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)"
            + " TBLPROPERTIES ('format-version' = '3')");
    sql("INSERT INTO floe.del.dv SELECT id, IF(pmod(id, 2) = 0, 'even', 'odd') FROM range(20)");
    Table table = icebergTable(spark, "del.dv");
    List<Long> deleted = new ArrayList<>();
    OutputFileFactory puffins =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PUFFIN).build();
    BaseDVFileWriter writer = new BaseDVFileWriter(puffins, path -> null);
    try (BaseDVFileWriter closing = writer) {
      for (DataFile file : dataFiles(table)) {
        List<Record> records = fileRecords(table, file);
        for (long pos : List.of(0L, 3L)) {
          deleted.add((Long) records.get((int) pos).getField("id"));
          closing.delete(file.location(), pos, table.specs().get(file.specId()), file.partition());
        }
      }
    }
    RowDelta delta = table.newRowDelta();
    writer.result().deleteFiles().forEach(delta::addDeletes);
    delta.commit();

    List<Long> expected = new ArrayList<>();
    for (long id = 0; id < 20; id += 1) {
      if (!deleted.contains(id)) {
        expected.add(id);
      }
    }
    assertThat(deleted).hasSize(2 * dataFiles(table).size());
    assertThat(ids(sql("SELECT id FROM floe.del.dv"))).isEqualTo(expected);
    assertThat(ids(sql("SELECT id FROM floe.del.dv WHERE cat = 'odd'")))
        .isEqualTo(expected.stream().filter(id -> id % 2 == 1).toList());
  }

  // helpers

  private static List<DataFile> filesOf(Table table, String cat) {
    return dataFiles(table).stream()
        .filter(file -> cat.equals(file.partition().get(0, String.class)))
        .toList();
  }

  /** An equality delete on one string column, in the partition {@code cat = <partition>}. */
  private static DeleteFile equalityDeletes(
      Table table, String column, String partition, List<String> values) throws IOException {
    Schema deleteSchema = table.schema().select(column);
    List<Record> keys = new ArrayList<>();
    for (String value : values) {
      Record key = GenericRecord.create(deleteSchema);
      key.setField(column, value);
      keys.add(key);
    }
    return equalityDeletes(table, deleteSchema, partition, keys);
  }

  private static DeleteFile equalityDeletes(
      Table table, Schema deleteSchema, String cat, List<Record> keys) throws IOException {
    PartitionSpec spec = table.spec();
    GenericRecord partition = null;
    if (cat != null) {
      partition = GenericRecord.create(spec.partitionType());
      partition.set(0, cat);
    }
    int[] fieldIds = deleteSchema.columns().stream().mapToInt(f -> f.fieldId()).toArray();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .equalityFieldIds(fieldIds)
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    EqualityDeleteWriter<Record> writer =
        writers.newEqualityDeleteWriter(files.newOutputFile(spec, partition), spec, partition);
    try (EqualityDeleteWriter<Record> closing = writer) {
      keys.forEach(closing::write);
    }
    return writer.toDeleteFile();
  }

  private static Map<Long, String> idToCat(List<Row> rows) {
    Map<Long, String> result = new TreeMap<>();
    rows.forEach(row -> result.put(row.getLong(0), row.getString(1)));
    return result;
  }

  private static List<Long> ids(List<Row> rows) {
    return rows.stream().map(row -> row.getLong(0)).sorted().collect(Collectors.toList());
  }

  private static List<Long> idsIn(Map<Long, String> idToCat, String cat) {
    return idToCat.entrySet().stream()
        .filter(entry -> entry.getValue().equals(cat))
        .map(Map.Entry::getKey)
        .sorted()
        .collect(Collectors.toList());
  }

  private static List<Long> merge(List<Long> first, List<Long> second) {
    List<Long> merged = new ArrayList<>(first);
    merged.addAll(second);
    merged.sort(null);
    return merged;
  }
}
