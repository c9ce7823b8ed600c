package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.OfficialRuntime;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * ORC and Avro tables shared with the official runtime, run in its own JVM over the same
 * warehouse: it reads the ORC and Avro tables Floe wrote (with a DELETE on them), and Floe reads the
 * ORC and Avro tables it wrote, each seeing the rows Spark computes over a view of the same rows.
 */
class FileFormatInteropTest extends SparkTestBase {

  @Test
  void orcAndAvroTablesWrittenByOneEngineReadTheSameInTheOther() throws Exception {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.interop_fmt");
    String rows =
        "SELECT id, IF(id %% 2 = 0, 'even', 'odd') AS kind, CAST(id AS DOUBLE) / 3 AS v,"
            + " DATE '2024-03-01' + CAST(id AS INT) AS d FROM range(40)";
    spark.sql(String.format(rows)).createOrReplaceTempView("interop_rows");
    for (String format : List.of("orc", "avro")) {
      sql(
          "CREATE TABLE floe.interop_fmt.floe_%s (id BIGINT, kind STRING, v DOUBLE, d DATE)"
              + " USING iceberg PARTITIONED BY (kind) TBLPROPERTIES ('write.format.default' = '%s')",
          format, format);
      sql("INSERT INTO floe.interop_fmt.floe_%s SELECT * FROM interop_rows", format);
      sql("DELETE FROM floe.interop_fmt.floe_%s WHERE id %% 5 = 0", format);
    }

    List<String> official =
        OfficialRuntime.run(
            warehouse,
            "CREATE TABLE off.interop_fmt.off_orc (id BIGINT, kind STRING, v DOUBLE, d DATE)"
                + " USING iceberg PARTITIONED BY (kind) TBLPROPERTIES ('write.format.default' = 'orc')",
            "INSERT INTO off.interop_fmt.off_orc SELECT id, IF(id % 2 = 0, 'even', 'odd'),"
                + " CAST(id AS DOUBLE) / 3, DATE '2024-03-01' + CAST(id AS INT) FROM range(40)",
            "CREATE TABLE off.interop_fmt.off_avro (id BIGINT, kind STRING, v DOUBLE, d DATE)"
                + " USING iceberg TBLPROPERTIES ('write.format.default' = 'avro')",
            "INSERT INTO off.interop_fmt.off_avro SELECT * FROM off.interop_fmt.off_orc WHERE id < 20",
            "SELECT 'orc', * FROM off.interop_fmt.floe_orc UNION ALL"
                + " SELECT 'avro', * FROM off.interop_fmt.floe_avro");

    assertThat(official)
        .as("the official runtime reads Floe's ORC and Avro tables")
        .isEqualTo(
            canonicalRows(
                spark
                    .sql(
                        "SELECT 'orc', * FROM interop_rows WHERE id % 5 <> 0 UNION ALL"
                            + " SELECT 'avro', * FROM interop_rows WHERE id % 5 <> 0")
                    .collectAsList())
                .stream()
                .sorted()
                .toList());

    sql("REFRESH TABLE floe.interop_fmt.off_orc");
    assertThat(sql("SELECT * FROM floe.interop_fmt.off_orc WHERE kind = 'odd' OR id < 6 ORDER BY id"))
        .containsExactlyElementsOf(
            sql("SELECT * FROM interop_rows WHERE kind = 'odd' OR id < 6 ORDER BY id"));
    assertThat(sql("SELECT * FROM floe.interop_fmt.off_avro ORDER BY id"))
        .containsExactlyElementsOf(sql("SELECT * FROM interop_rows WHERE id < 20 ORDER BY id"));
    assertThat(formats("interop_fmt.off_orc")).containsOnly(FileFormat.ORC);
    assertThat(formats("interop_fmt.off_avro")).containsOnly(FileFormat.AVRO);
    assertThat(formats("interop_fmt.floe_orc")).containsOnly(FileFormat.ORC);
  }

  private static List<FileFormat> formats(String name) {
    Table table = icebergTable(spark, name);
    List<FileFormat> formats = new ArrayList<>();
    table.newScan().planFiles().forEach(task -> formats.add(task.file().format()));
    assertThat(formats).isNotEmpty();
    return formats;
  }
}
