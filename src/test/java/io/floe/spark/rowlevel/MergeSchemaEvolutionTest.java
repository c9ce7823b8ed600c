package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Spark 4.1's {@code MERGE WITH SCHEMA EVOLUTION}: Floe tables have the AUTOMATIC_SCHEMA_EVOLUTION
 * capability unless {@code write.spark.auto-schema-evolution.enabled=false} (the official runtime's
 * property and default), so Spark adds the source's new columns and widens types through the
 * catalog before the MERGE, in each row-level mode. Without the clause, or with the property off,
 * the schema stays and the source's extra columns are not written. A change Iceberg cannot make
 * fails naming the column and changes neither the schema nor the rows.
 */
class MergeSchemaEvolutionTest extends RowLevelTestBase {
  private static final String MERGE =
      "MERGE WITH SCHEMA EVOLUTION INTO " + TABLE + " t USING s ON t.id = s.id"
          + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *";
  /** The MERGE's rows when the table keeps its schema: the source's extra column is not written. */
  private static final String WITHOUT_NOTE =
      "SELECT coalesce(s.id, v.id) AS id, coalesce(s.data, v.data) AS data, coalesce(s.p, v.p) AS p"
          + " FROM v FULL OUTER JOIN s ON v.id = s.id";

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"copy-on-write", "merge-on-read"})
  void newColumnsAndWiderTypesComeFromTheSource(String mode) {
    createTable("'write.merge.mode' = '" + mode + "'");
    createSource("CAST(id AS BIGINT) AS id, CAST(data AS BIGINT) AS data, p, note");

    sql(MERGE);

    Schema schema = icebergTable("db.t").schema();
    assertThat(schema.findField("data").type()).isEqualTo(Types.LongType.get());
    assertThat(schema.findField("note").type()).isEqualTo(Types.StringType.get());
    assertThat(schema.findField("note").fieldId()).isGreaterThan(schema.findField("p").fieldId());
    assertTableIs(
        "SELECT coalesce(s.id, v.id) AS id, CAST(coalesce(s.data, v.data) AS BIGINT) AS data,"
            + " coalesce(s.p, v.p) AS p, s.note AS note"
            + " FROM v FULL OUTER JOIN s ON v.id = s.id");
  }

  @Test
  void withoutTheClauseTheSourcesExtraColumnIsLeftOut() {
    createTable("'write.merge.mode' = 'copy-on-write'");
    createSource("id, data, p, note");

    sql("MERGE INTO " + TABLE + " t USING s ON t.id = s.id"
        + " WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");

    assertThat(icebergTable("db.t").schema().findField("note")).isNull();
    assertTableIs(WITHOUT_NOTE);
  }

  @Test
  void thePropertyTurnsEvolutionOff() {
    createTable("'write.spark.auto-schema-evolution.enabled' = 'false'");
    createSource("id, data, p, note");

    sql(MERGE);

    assertThat(icebergTable("db.t").schema().findField("note")).isNull();
    assertTableIs(WITHOUT_NOTE);
  }

  @Test
  void aTypeChangeIcebergCannotMakeFailsNamingTheColumnAndChangesNothing() {
    createTable("'write.merge.mode' = 'merge-on-read'");
    createSource("id, CAST(data AS STRING) AS data, p, note");
    long snapshot = current().snapshotId();
    Schema before = icebergTable("db.t").schema();

    assertThatThrownBy(() -> sql(MERGE)).hasMessageContaining("data");

    assertThat(current().snapshotId()).isEqualTo(snapshot);
    assertThat(icebergTable("db.t").schema().sameSchema(before)).isTrue();
    assertTableIs("SELECT * FROM v");
  }

  private static void createTable(String properties) {
    create(
        "id INT, data INT, p STRING",
        "PARTITIONED BY (p) TBLPROPERTIES ('format-version' = '2', " + properties + ")",
        "(1, 10, 'a'), (2, 20, 'a'), (3, 30, 'b')",
        "(4, 40, 'b'), (5, NULL, 'c')");
  }

  /** The view {@code s}: two matches, two new ids, with an extra column {@code note}. */
  private static void createSource(String projection) {
    spark.sql("SELECT " + projection + " FROM VALUES (2, 200, 'a', 'two'), (4, 400, 'b', NULL),"
            + " (8, 800, 'c', 'eight'), (9, NULL, 'a', 'nine') AS src(id, data, p, note)")
        .createOrReplaceTempView("s");
  }
}
