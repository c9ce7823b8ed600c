package io.floe.spark.read;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The row-lineage metadata columns of format v3 tables, {@code _row_id} and {@code
 * _last_updated_sequence_number}, read through both read paths. Expected values come from the
 * spec's inheritance rule applied to what Iceberg's core API says about each data file (its {@code
 * first_row_id} and data sequence number) and to the row's {@code _pos}.
 */
class RowLineageReadTest extends SparkTestBase {

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.lineage");
  }

  @Test
  void appendsGetFirstRowIdsAndRowsInheritThem() {
    sql("CREATE TABLE floe.lineage.appends (id INT, name STRING) USING iceberg "
        + "PARTITIONED BY (bucket(2, id)) TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.lineage.appends VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
    sql("INSERT INTO floe.lineage.appends VALUES (5, 'e'), (6, 'f')");

    Table table = icebergTable(spark, "lineage.appends");
    List<DataFile> files = dataFiles(table);
    assertThat(files).allSatisfy(file -> assertThat(file.firstRowId()).isNotNull());
    assertThat(rowIdRanges(files)).as("disjoint row-id ranges").doesNotHaveDuplicates();
    long rows = files.stream().mapToLong(DataFile::recordCount).sum();
    assertThat(((HasTableOperations) table).operations().current().nextRowId())
        .isGreaterThanOrEqualTo(rows);

    List<String> actual =
        bothPaths(spark, "SELECT id, _row_id, _last_updated_sequence_number FROM floe.lineage.appends");
    assertThat(actual).isEqualTo(inherited(files, "floe.lineage.appends"));
    assertThat(actual.stream().map(row -> row.split(", ")[1]).collect(Collectors.toSet()))
        .as("unique row ids")
        .hasSize(6);
  }

  @Test
  void rowIdsStayWithTheirRowsWhenOtherRowsAreDeleted() {
    sql("CREATE TABLE floe.lineage.deleted (id INT, name STRING) USING iceberg TBLPROPERTIES "
        + "('format-version'='3', 'write.delete.mode'='merge-on-read')");
    sql("INSERT INTO floe.lineage.deleted VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
    List<String> before =
        bothPaths(spark, "SELECT id, _row_id, _last_updated_sequence_number FROM floe.lineage.deleted");

    sql("DELETE FROM floe.lineage.deleted WHERE id IN (2, 3)");

    List<String> after =
        bothPaths(spark, "SELECT id, _row_id, _last_updated_sequence_number FROM floe.lineage.deleted");
    List<String> expected =
        before.stream().filter(row -> row.startsWith("[1,") || row.startsWith("[4,")).toList();
    assertThat(after).isEqualTo(expected);
  }

  @Test
  void storedValuesWinAndOnlyNullsAreInherited() throws IOException {
    sql("CREATE TABLE floe.lineage.stored (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.lineage.stored VALUES (1)");
    Table table = icebergTable(spark, "lineage.stored");
    // a file as a rewrite writes it: the row-lineage columns hold the carried-over rows' values
    Schema withLineage = MetadataColumns.schemaWithRowLineage(table.schema());
    DataFile rewritten =
        writeFile(
            table,
            withLineage,
            List.of(record(withLineage, 10, 500L, 1L), record(withLineage, 11, null, null),
                record(withLineage, 12, 700L, null)));
    table.newAppend().appendFile(rewritten).commit();

    DataFile committed =
        dataFiles(table).stream()
            .filter(file -> file.location().equals(rewritten.location()))
            .findFirst()
            .orElseThrow();
    long first = committed.firstRowId();
    long sequence = committed.dataSequenceNumber();
    assertThat(
            bothPaths(spark,
                "SELECT id, _row_id, _last_updated_sequence_number FROM floe.lineage.stored WHERE id >= 10"))
        .containsExactly(
            "[10, 500, 1]",
            "[11, " + (first + 1) + ", " + sequence + "]",
            "[12, 700, " + sequence + "]");
  }

  @Test
  void filesFromBeforeAnUpgradeGetRowIdsWithTheNextCommit() {
    sql("CREATE TABLE floe.lineage.upgraded (id INT) USING iceberg TBLPROPERTIES ('format-version'='2')");
    sql("INSERT INTO floe.lineage.upgraded VALUES (1), (2)");
    assertThatThrownBy(() -> sql("SELECT _row_id FROM floe.lineage.upgraded"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("_row_id");

    sql("ALTER TABLE floe.lineage.upgraded SET TBLPROPERTIES ('format-version'='3')");
    // no snapshot since the upgrade: the files have no first_row_id, so nothing is inherited
    assertThat(dataFiles(icebergTable(spark, "lineage.upgraded")))
        .allSatisfy(file -> assertThat(file.firstRowId()).isNull());
    assertThat(bothPaths(spark,
            "SELECT id, _row_id, _last_updated_sequence_number FROM floe.lineage.upgraded"))
        .containsExactly("[1, null, null]", "[2, null, null]");

    sql("INSERT INTO floe.lineage.upgraded VALUES (3)");
    List<DataFile> files = dataFiles(icebergTable(spark, "lineage.upgraded"));
    assertThat(files).allSatisfy(file -> assertThat(file.firstRowId()).isNotNull());
    assertThat(bothPaths(spark,
            "SELECT id, _row_id, _last_updated_sequence_number FROM floe.lineage.upgraded"))
        .isEqualTo(inherited(files, "floe.lineage.upgraded"));
  }

  @Test
  void filtersOnRowIdSelectTheRowsSparkWouldSelect() {
    sql("CREATE TABLE floe.lineage.filtered (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.lineage.filtered VALUES (1), (2), (3)");
    sql("INSERT INTO floe.lineage.filtered VALUES (4), (5)");
    List<Row> all = sql("SELECT id, _row_id FROM floe.lineage.filtered");
    long pivot = all.stream().mapToLong(row -> row.getLong(1)).sorted().skip(2).findFirst().orElseThrow();
    List<String> expected =
        all.stream()
            .filter(row -> row.getLong(1) >= pivot)
            .map(row -> "[" + row.getInt(0) + "]")
            .sorted()
            .toList();

    assertThat(bothPaths(spark, "SELECT id FROM floe.lineage.filtered WHERE _row_id >= " + pivot))
        .isEqualTo(expected)
        .hasSize(3);
  }

  /** Each row's expected lineage: {@code first_row_id + _pos} and the file's data sequence number. */
  private static List<String> inherited(List<DataFile> files, String table) {
    Map<String, DataFile> byLocation =
        files.stream().collect(Collectors.toMap(DataFile::location, Function.identity()));
    List<String> expected = new ArrayList<>();
    for (Row row : sql("SELECT id, _file, _pos FROM %s", table)) {
      DataFile file = byLocation.get(row.getString(1));
      expected.add(
          "[" + row.getInt(0) + ", " + (file.firstRowId() + row.getLong(2)) + ", "
              + file.dataSequenceNumber() + "]");
    }
    return expected.stream().sorted().toList();
  }

  private static List<Long> rowIdRanges(List<DataFile> files) {
    List<Long> ids = new ArrayList<>();
    for (DataFile file : files) {
      for (long id = file.firstRowId(); id < file.firstRowId() + file.recordCount(); id++) {
        ids.add(id);
      }
    }
    return ids;
  }

  private static Record record(Schema schema, int id, Long rowId, Long sequence) {
    GenericRecord record = GenericRecord.create(schema);
    record.setField("id", id);
    record.setField(MetadataColumns.ROW_ID.name(), rowId);
    record.setField(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name(), sequence);
    return record;
  }

  private static DataFile writeFile(Table table, Schema schema, List<Record> records)
      throws IOException {
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataSchema(schema).build();
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
    DataWriter<Record> writer =
        writers.newDataWriter(files.newOutputFile(), table.spec(), null);
    try (DataWriter<Record> closing = writer) {
      records.forEach(closing::write);
    }
    return writer.toDataFile();
  }
}
