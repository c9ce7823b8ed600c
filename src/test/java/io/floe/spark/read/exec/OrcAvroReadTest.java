package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ORC and Avro data files written by Iceberg's own generic writers (through the core API, not
 * Floe), with position-delete files of the same format, read through Floe's SQL: the rows left are
 * those Spark computes over a view of the same rows less the deleted positions, filters prune
 * nothing they should keep, and {@code _file}, {@code _pos}, {@code _spec_id} and {@code _partition}
 * name each row's file, position and partition.
 */
class OrcAvroReadTest extends SparkTestBase {
  private static final StructType WRITTEN =
      StructType.fromDDL("id BIGINT, cat STRING, d DATE, file STRING, pos BIGINT");

  @ParameterizedTest
  @ValueSource(strings = {"orc", "avro"})
  void filesOfIcebergsWritersReadWithDeletesConstantsAndMetadataColumns(String format)
      throws IOException {
    FileFormat fileFormat = FileFormat.fromString(format);
    String name = "fmt_" + format;
    sql("CREATE NAMESPACE IF NOT EXISTS floe.fmt");
    sql("DROP TABLE IF EXISTS floe.fmt.%s", name);
    sql(
        "CREATE TABLE floe.fmt.%s (id BIGINT, cat STRING, d DATE) USING iceberg"
            + " PARTITIONED BY (cat) TBLPROPERTIES ('format-version' = '2')",
        name);
    Table table = icebergTable(spark, "fmt." + name);
    GenericAppenderFactory writers = new GenericAppenderFactory(table.schema(), table.spec());

    List<Row> written = new ArrayList<>();
    List<DataFile> dataFiles = new ArrayList<>();
    for (String cat : List.of("x", "y")) {
      PartitionKey partition = new PartitionKey(table.spec(), table.schema());
      Record record = GenericRecord.create(table.schema());
      record.setField("cat", cat);
      partition.partition(record);
      EncryptedOutputFile file = output(table, "cat=" + cat + "/part." + format);
      DataWriter<Record> writer = writers.newDataWriter(file, fileFormat, partition);
      try (writer) {
        for (long id = 0; id < 10; id += 1) {
          Record row = GenericRecord.create(table.schema());
          long value = cat.equals("x") ? id : 100 + id;
          row.setField("id", value);
          row.setField("cat", cat);
          row.setField("d", id % 3 == 0 ? null : LocalDate.of(2024, 1, 1).plusDays(value));
          writer.write(row);
          written.add(
              RowFactory.create(
                  value,
                  cat,
                  row.getField("d"),
                  file.encryptingOutputFile().location(),
                  id));
        }
      }
      dataFiles.add(writer.toDataFile());
    }
    var append = table.newAppend();
    dataFiles.forEach(append::appendFile);
    append.commit();

    // positions 1 and 7 of the first file, 0 of the second, in a delete file of the same format
    DataFile first = dataFiles.get(0);
    PositionDeleteWriter<Record> deletes =
        writers.newPosDeleteWriter(
            output(table, "cat=x/deletes." + format), fileFormat, first.partition());
    try (deletes) {
      PositionDelete<Record> delete = PositionDelete.create();
      deletes.write(delete.set(first.location(), 1L, null));
      deletes.write(delete.set(first.location(), 7L, null));
    }
    PositionDeleteWriter<Record> moreDeletes =
        writers.newPosDeleteWriter(
            output(table, "cat=y/deletes." + format), fileFormat, dataFiles.get(1).partition());
    try (moreDeletes) {
      moreDeletes.write(PositionDelete.<Record>create().set(dataFiles.get(1).location(), 0L, null));
    }
    RowDelta delta = table.newRowDelta();
    for (DeleteFile file : List.of(deletes.toDeleteFile(), moreDeletes.toDeleteFile())) {
      assertThat(file.format()).isEqualTo(fileFormat);
      delta.addDeletes(file);
    }
    delta.commit();

    spark.createDataFrame(written, WRITTEN).createOrReplaceTempView("written_" + format);
    String kept =
        "SELECT * FROM written_" + format
            + " WHERE NOT ((cat = 'x' AND pos IN (1, 7)) OR (cat = 'y' AND pos = 0))";
    for (String filter :
        List.of("true", "cat = 'y'", "id BETWEEN 3 AND 104", "d IS NULL", "d > DATE '2024-01-05'")) {
      assertThat(sql("SELECT id, cat, d FROM floe.fmt.%s WHERE %s ORDER BY id", name, filter))
          .as(filter)
          .containsExactlyElementsOf(
              sql("SELECT id, cat, d FROM (%s) WHERE %s ORDER BY id", kept, filter));
    }
    assertThat(
            sql(
                "SELECT id, _file, _pos, _spec_id, _partition.cat FROM floe.fmt.%s ORDER BY id",
                name))
        .containsExactlyElementsOf(
            sql("SELECT id, file, pos, %d, cat FROM (%s) ORDER BY id", table.spec().specId(), kept));
    assertThat(sql("SELECT cat, count(*) FROM floe.fmt.%s GROUP BY cat ORDER BY cat", name))
        .containsExactlyElementsOf(
            sql("SELECT cat, count(*) FROM (%s) GROUP BY cat ORDER BY cat", kept));
    assertThat(first.location()).endsWith("." + fileFormat.name().toLowerCase(Locale.ROOT));
  }

  private static EncryptedOutputFile output(Table table, String relative) {
    return EncryptedFiles.plainAsEncryptedOutput(
        table.io().newOutputFile(table.locationProvider().newDataLocation(relative)));
  }
}
