package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.fileRecords;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * Iceberg's metadata columns read through Floe: {@code _file} is the data file's location, {@code
 * _pos} the row's position in it (0..n-1), {@code _spec_id} the file's partition spec, and {@code
 * _partition} the file's partition tuple in the table's combined partition type.
 */
class MetadataColumnsReadTest extends SparkTestBase {

  @Test
  void metadataColumnsDescribeEachRowsFileAcrossPartitionEvolution() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.meta");
    sql("CREATE TABLE floe.meta.evolved (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");
    sql("INSERT INTO floe.meta.evolved SELECT id, IF(id < 6, 'a', 'b') FROM range(10)");
    Table table = icebergTable(spark, "meta.evolved");
    table.updateSpec().addField(Expressions.bucket("id", 2)).commit();
    sql("INSERT INTO floe.meta.evolved SELECT id, 'c' FROM range(10, 16)");
    table.refresh();

    List<Row> rows = sql("SELECT _file, _pos, _spec_id, _partition, id FROM floe.meta.evolved");

    List<DataFile> files = dataFiles(table);
    assertThat(files.stream().map(DataFile::specId).distinct()).hasSize(2);
    Map<String, List<Row>> rowsByFile = new HashMap<>();
    rows.forEach(row -> rowsByFile.computeIfAbsent(row.getString(0), f -> new ArrayList<>()).add(row));
    assertThat(rowsByFile.keySet())
        .containsExactlyInAnyOrderElementsOf(files.stream().map(DataFile::location).toList());
    assertThat(rows).hasSize(16);

    for (DataFile file : files) {
      List<Row> fileRows = new ArrayList<>(rowsByFile.get(file.location()));
      fileRows.sort((a, b) -> Long.compare(a.getLong(1), b.getLong(1)));
      List<Record> records = fileRecords(table, file);
      assertThat(fileRows).hasSize(records.size());
      for (int pos = 0; pos < records.size(); pos += 1) {
        Row row = fileRows.get(pos);
        assertThat(row.getLong(1)).as("_pos in %s", file.location()).isEqualTo(pos);
        assertThat(row.getLong(4)).isEqualTo(records.get(pos).getField("id"));
        assertThat(row.getInt(2)).isEqualTo(file.specId());
        Row partition = row.getStruct(3);
        assertThat(partition.schema().fieldNames()).containsExactly("cat", "id_bucket_2");
        assertThat(partition.getString(0)).isEqualTo(file.partition().get(0, String.class));
        if (file.specId() == 0) {
          assertThat(partition.isNullAt(1)).isTrue();
        } else {
          assertThat(partition.getInt(1)).isEqualTo(file.partition().get(1, Integer.class));
        }
      }
    }
  }

  @Test
  void metadataColumnsHaveTheirIcebergTypesAndWorkWithFilters() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.meta");
    sql("CREATE TABLE floe.meta.typed (id BIGINT, d DATE) USING iceberg PARTITIONED BY (days(d))");
    sql(
        "INSERT INTO floe.meta.typed VALUES (1, DATE '2024-01-01'), (2, DATE '2024-01-02'),"
            + " (3, DATE '2024-01-02')");

    StructType schema =
        spark.sql("SELECT _file, _pos, _spec_id, _partition FROM floe.meta.typed").schema();
    assertThat(schema.apply("_file").dataType()).isEqualTo(DataTypes.StringType);
    assertThat(schema.apply("_pos").dataType()).isEqualTo(DataTypes.LongType);
    assertThat(schema.apply("_spec_id").dataType()).isEqualTo(DataTypes.IntegerType);
    assertThat(schema.apply("_partition").dataType())
        .isEqualTo(new StructType().add("d_day", DataTypes.DateType, true));

    List<Row> rows =
        sql("SELECT id, _partition.d_day, _pos FROM floe.meta.typed WHERE d = DATE '2024-01-02' ORDER BY _pos");
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).get(1).toString()).isEqualTo("2024-01-02");
    assertThat(rows.stream().map(r -> r.getLong(2)).toList()).containsExactly(0L, 1L);
    assertThat(sql("SELECT id FROM floe.meta.typed WHERE _pos = 0 ORDER BY id").stream()
            .map(r -> r.getLong(0)).toList())
        .containsExactly(1L, 2L);
  }

  @Test
  void fileColumnAloneCountsRowsPerFile() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.meta");
    sql("CREATE TABLE floe.meta.alone (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)");
    sql("INSERT INTO floe.meta.alone SELECT id, IF(pmod(id, 3) = 0, 'x', 'y') FROM range(30)");
    Table table = icebergTable(spark, "meta.alone");

    Map<String, Long> counts = new HashMap<>();
    sql("SELECT _file, count(*) FROM floe.meta.alone GROUP BY _file")
        .forEach(row -> counts.put(row.getString(0), row.getLong(1)));

    Map<String, Long> expected = new HashMap<>();
    dataFiles(table).forEach(file -> expected.put(file.location(), file.recordCount()));
    assertThat(counts).isEqualTo(expected);
  }

  @Test
  void unpartitionedTableHasSpecZeroAndANullPartition() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.meta");
    sql("CREATE TABLE floe.meta.flat (id BIGINT) USING iceberg");
    sql("INSERT INTO floe.meta.flat VALUES (1), (2)");

    List<Row> rows = sql("SELECT _spec_id, _partition, id FROM floe.meta.flat ORDER BY id");

    assertThat(rows).hasSize(2);
    for (Row row : rows) {
      assertThat(row.getInt(0)).isZero();
      // as in Iceberg's own readers: an empty partition struct reads as null
      assertThat(row.isNullAt(1)).isTrue();
    }
  }
}
