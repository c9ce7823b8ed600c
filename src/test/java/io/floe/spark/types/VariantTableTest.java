package io.floe.spark.types;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadPaths.rowPathEitherWay;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.FloeScan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Iceberg's format v3 {@code variant} type as Spark's VariantType: DDL (CREATE, CTAS, ADD COLUMN,
 * the v2 refusal), writes of Spark's variants into Parquet's unshredded variant layout (and into
 * ORC and Avro through Iceberg's generic writers), reads through both read paths, NULL against the
 * variant null, variants nested in structs, arrays and maps, partitioned tables, compaction, MERGE
 * and merge-on-read DELETE. Every expected row is Spark's own
 * evaluation of the same expression over {@code parse_json} of the same strings in a temp view.
 */
class VariantTableTest extends SparkTestBase {
  /** JSON shapes: objects, nested arrays, every integer width, decimals, doubles, strings, null. */
  static final List<String> JSON =
      List.of(
          "{\"a\": 1, \"b\": \"x\", \"c\": [1, 2, {\"d\": null}]}",
          "{\"a\": 300, \"nested\": {\"deep\": {\"deeper\": [[1], [2, 3], []]}}}",
          "{\"a\": 70000, \"b\": true, \"c\": false}",
          "{\"a\": 5000000000, \"b\": -1.5, \"c\": 12345678901234567890.123456}",
          "{\"a\": -128, \"big\": 123456789012345678901234567890.12345678}",
          "[1, -32768, 2147483647, -9223372036854775808, 1.0E300, -2.5E-300]",
          "[]",
          "{}",
          "\"a string longer than sixty-four bytes, so not a short string in the variant encoding\"",
          "\"short\"",
          "\"\"",
          "0.1",
          "3.14159265358979323846264338327950288",
          "true",
          "null",
          "42",
          "{\"a\": null}",
          "{\"z\": 1, \"a\": 2, \"m\": {\"z\": [true, null, \"é\"]}}");

  private static final String SPARK_SHAPE =
      "id, to_json(v), variant_get(v, '$.a', 'bigint'), variant_get(v, '$.b', 'string'),"
          + " is_variant_null(v), v IS NULL, schema_of_variant(v)";

  @BeforeAll
  static void sourceView() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < JSON.size(); i++) {
      rows.add(RowFactory.create(i, JSON.get(i), i % 3));
    }
    rows.add(RowFactory.create(JSON.size(), null, 0));
    rows.add(RowFactory.create(JSON.size() + 1, null, 1));
    StructType schema =
        new StructType()
            .add("id", DataTypes.IntegerType)
            .add("s", DataTypes.StringType)
            .add("p", DataTypes.IntegerType);
    spark.createDataFrame(rows, schema).createOrReplaceTempView("json_src");
    spark.sql("SELECT id, parse_json(s) AS v, p FROM json_src").createOrReplaceTempView("expected");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.vt");
  }

  @Test
  void insertedVariantsReadBackAsSparkEvaluatesThem() throws IOException {
    sql("CREATE TABLE floe.vt.t (id INT, v VARIANT) USING iceberg TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.vt.t SELECT id, parse_json(s) FROM json_src");

    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.t"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM expected")));
    assertThat(spark.table("floe.vt.t").schema().apply("v").dataType())
        .isEqualTo(DataTypes.VariantType);
    assertThat(icebergTable(spark, "vt.t").schema().findField("v").type())
        .isEqualTo(Types.VariantType.get());
  }

  @Test
  void dataFilesHoldTheUnshreddedParquetVariantLayout() throws IOException {
    sql("CREATE TABLE floe.vt.layout (id INT, v VARIANT) USING iceberg"
        + " TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.vt.layout SELECT id, parse_json(s) FROM json_src");

    Table table = icebergTable(spark, "vt.layout");
    for (DataFile file : dataFiles(table)) {
      MessageType schema;
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(new Path(file.location()), new Configuration()))) {
        schema = reader.getFooter().getFileMetaData().getSchema();
      }
      GroupType v = schema.getType("v").asGroupType();
      assertThat(v.getLogicalTypeAnnotation())
          .isInstanceOf(LogicalTypeAnnotation.VariantLogicalTypeAnnotation.class);
      assertThat(v.getId().intValue()).isEqualTo(table.schema().findField("v").fieldId());
      assertThat(v.getRepetition()).isEqualTo(Type.Repetition.OPTIONAL);
      assertThat(v.getFields()).extracting(Type::getName).containsExactly("metadata", "value");
      for (Type part : v.getFields()) {
        assertThat(part.isRepetition(Type.Repetition.REQUIRED)).isTrue();
        assertThat(part.asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.BINARY);
      }
    }
  }

  @Test
  void castsOfEveryWidthDatesAndTimestampsRoundTrip() {
    String casts =
        "SELECT id, CAST(CAST(id AS TINYINT) AS VARIANT) AS b, CAST(CAST(id * 300 AS SMALLINT) AS VARIANT) AS s,"
            + " CAST(id * 70000 AS VARIANT) AS i, CAST(CAST(id AS BIGINT) * 5000000000 AS VARIANT) AS l,"
            + " CAST(CAST(id AS FLOAT) / 3 AS VARIANT) AS f, CAST(CAST(id AS DOUBLE) / 3 AS VARIANT) AS d,"
            + " CAST(CAST(id AS DECIMAL(9, 2)) / 7 AS VARIANT) AS dec4,"
            + " CAST(CAST(id AS DECIMAL(38, 10)) / 7 AS VARIANT) AS dec16,"
            + " CAST(date_add(DATE '2024-02-29', id * 100 - 900) AS VARIANT) AS dt,"
            + " CAST(TIMESTAMP_NTZ '1969-12-31 23:59:59.999999' + make_interval(0, 0, 0, id) AS VARIANT) AS ntz,"
            + " CAST(CAST(id AS BOOLEAN) AS VARIANT) AS bool, CAST(CAST(s AS BINARY) AS VARIANT) AS bin"
            + " FROM json_src";
    spark.conf().set("spark.sql.session.timeZone", "UTC");
    try {
      sql("CREATE TABLE floe.vt.casts USING iceberg TBLPROPERTIES ('format-version'='3') AS " + casts);
      String shape =
          "id, to_json(b), to_json(s), to_json(i), to_json(l), to_json(f), to_json(d), to_json(dec4),"
              + " to_json(dec16), to_json(dt), variant_get(dt, '$', 'date'), to_json(ntz),"
              + " variant_get(ntz, '$', 'timestamp_ntz'), to_json(bool), to_json(bin),"
              + " schema_of_variant(dec16), schema_of_variant(l), schema_of_variant(b)";
      spark.sql(casts).createOrReplaceTempView("cast_expected");

      assertThat(bothPaths(spark, "SELECT " + shape + " FROM floe.vt.casts"))
          .isEqualTo(canonicalRows(sql("SELECT " + shape + " FROM cast_expected")));
    } finally {
      spark.conf().unset("spark.sql.session.timeZone");
    }
  }

  @Test
  void createTableAsSelectFromParseJsonKeepsEveryValue() {
    sql("CREATE TABLE floe.vt.ctas USING iceberg TBLPROPERTIES ('format-version'='3')"
        + " AS SELECT id, parse_json(s) AS v FROM json_src");

    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.ctas"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM expected")));
  }

  @Test
  void addedVariantColumnReadsNullForOldRowsAndValuesForNewOnes() {
    sql("CREATE TABLE floe.vt.added (id INT) USING iceberg TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.vt.added SELECT id FROM json_src WHERE id < 5");
    sql("ALTER TABLE floe.vt.added ADD COLUMN v VARIANT");
    sql("INSERT INTO floe.vt.added SELECT id, parse_json(s) FROM json_src WHERE id >= 5");

    String expected =
        "SELECT id, CASE WHEN id < 5 THEN NULL ELSE v END AS v FROM expected";
    spark.sql(expected).createOrReplaceTempView("added_expected");
    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.added"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM added_expected")));
  }

  @Test
  void formatVersionTwoTablesRefuseVariantColumnsNamingTheColumnAndVersion() {
    assertThatThrownBy(() -> sql("CREATE TABLE floe.vt.v2 (id INT, doc VARIANT) USING iceberg"))
        .hasMessageContaining("column doc has type variant")
        .hasMessageContaining("format version 3 (the table is v2");
    assertThatThrownBy(
            () -> sql("CREATE TABLE floe.vt.v2 USING iceberg TBLPROPERTIES ('format-version'='2')"
                + " AS SELECT id, parse_json(s) AS doc FROM json_src"))
        .hasMessageContaining("column doc has type variant")
        .hasMessageContaining("the table is v2");
    assertThat(sql("SHOW TABLES IN floe.vt").stream().map(row -> row.getString(1)))
        .doesNotContain("v2");

    sql("CREATE TABLE floe.vt.v2 (id INT) USING iceberg");
    Table before = icebergTable(spark, "vt.v2");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.vt.v2 ADD COLUMN doc VARIANT"))
        .hasMessageContaining("column doc has type variant")
        .hasMessageContaining("the table is v2");
    assertThatThrownBy(() -> sql("ALTER TABLE floe.vt.v2 ADD COLUMN s STRUCT<doc: VARIANT>"))
        .hasMessageContaining("column s has type variant")
        .hasMessageContaining("the table is v2");
    Table after = icebergTable(spark, "vt.v2");
    assertThat(after.schemas()).hasSameSizeAs(before.schemas());
    assertThat(after.schema().asStruct()).isEqualTo(before.schema().asStruct());
  }

  @Test
  void partitionedTableReadsEachPartitionsVariants() {
    sql("CREATE TABLE floe.vt.parts (id INT, v VARIANT, p INT) USING iceberg PARTITIONED BY (p)"
        + " TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.vt.parts SELECT id, parse_json(s), p FROM json_src");

    assertThat(dataFiles(icebergTable(spark, "vt.parts"))).hasSizeGreaterThanOrEqualTo(3);
    String shape = SPARK_SHAPE + ", p";
    assertThat(bothPaths(spark, "SELECT " + shape + " FROM floe.vt.parts"))
        .isEqualTo(canonicalRows(sql("SELECT " + shape + " FROM expected")));
    String filtered = " WHERE p = 1 AND variant_get(v, '$.a', 'bigint') > 0";
    assertThat(bothPaths(spark, "SELECT " + shape + " FROM floe.vt.parts" + filtered))
        .isEqualTo(canonicalRows(sql("SELECT " + shape + " FROM expected" + filtered)))
        .isNotEmpty();
  }

  @Test
  void filtersOnVariantColumnsStayWithSparkAndSeparateNullFromVariantNull() {
    sql("CREATE TABLE floe.vt.filters (id INT, v VARIANT) USING iceberg"
        + " TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.vt.filters SELECT id, parse_json(s) FROM json_src");

    for (String where :
        List.of(
            "v IS NULL",
            "v IS NOT NULL",
            "is_variant_null(v)",
            "variant_get(v, '$.a', 'bigint') = 300",
            "id > 3 AND v IS NOT NULL")) {
      String query = "SELECT id, to_json(v) FROM floe.vt.filters WHERE " + where;
      FloeScan scan = floeScan(spark.sql(query));
      assertThat(scan.filter().toString())
          .as("the scan filter of " + where)
          .doesNotContain("v");
      assertThat(bothPaths(spark, query))
          .as(where)
          .isEqualTo(canonicalRows(sql("SELECT id, to_json(v) FROM expected WHERE " + where)))
          .isNotEmpty();
    }
    assertThat(sql("SELECT count(v), count(*) FROM floe.vt.filters"))
        .isEqualTo(sql("SELECT count(v), count(*) FROM expected"));
    assertThat(sql("SELECT id FROM floe.vt.filters WHERE v IS NULL"))
        .extracting(row -> row.getInt(0))
        .containsExactlyInAnyOrder(JSON.size(), JSON.size() + 1);
    assertThat(sql("SELECT id FROM floe.vt.filters WHERE is_variant_null(v)"))
        .extracting(row -> row.getInt(0))
        .containsExactly(JSON.indexOf("null"));
  }

  @Test
  void mergeOnReadDeleteWritesDeletionVectorsAndKeepsTheOtherVariants() throws IOException {
    sql("CREATE TABLE floe.vt.mor (id INT, v VARIANT) USING iceberg TBLPROPERTIES ("
        + "'format-version'='3', 'write.delete.mode'='merge-on-read',"
        + " 'write.update.mode'='merge-on-read')");
    sql("INSERT INTO floe.vt.mor SELECT id, parse_json(s) FROM json_src");

    sql("DELETE FROM floe.vt.mor WHERE variant_get(v, '$.a', 'bigint') > 100 OR is_variant_null(v)");

    Table table = icebergTable(spark, "vt.mor");
    List<DeleteFile> deletes = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        deletes.addAll(task.deletes());
      }
    }
    assertThat(deletes).isNotEmpty().allMatch(delete -> delete.format() == FileFormat.PUFFIN);
    String kept =
        " WHERE NOT coalesce(variant_get(v, '$.a', 'bigint') > 100 OR is_variant_null(v), false)";
    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.mor"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM expected" + kept)));

    sql("UPDATE floe.vt.mor SET v = parse_json('{\"updated\": [1, 2]}') WHERE id = 0");
    spark.sql("SELECT id, CASE WHEN id = 0 THEN parse_json('{\"updated\": [1, 2]}') ELSE v END AS v"
            + " FROM expected" + kept)
        .createOrReplaceTempView("updated_expected");
    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.mor"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM updated_expected")));
  }

  @Test
  void variantsNestedInStructsArraysAndMapsRoundTrip() {
    String nested =
        "SELECT id, named_struct('doc', parse_json(s), 'n', id) AS st,"
            + " array(parse_json(s), CAST(id AS VARIANT), NULL) AS arr,"
            + " map('k', parse_json(s)) AS m FROM json_src";
    sql("CREATE TABLE floe.vt.nested USING iceberg TBLPROPERTIES ('format-version'='3') AS " + nested);
    spark.sql(nested).createOrReplaceTempView("nested_expected");

    String shape =
        "id, to_json(st.doc), st.n, transform(arr, x -> to_json(x)), to_json(m['k']),"
            + " is_variant_null(st.doc)";
    assertThat(rowPathEitherWay(spark, "SELECT " + shape + " FROM floe.vt.nested"))
        .isEqualTo(canonicalRows(sql("SELECT " + shape + " FROM nested_expected")));
  }

  @Test
  void compactionAndMergeKeepEveryVariant() {
    sql("CREATE TABLE floe.vt.compact (id INT, v VARIANT) USING iceberg"
        + " TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.vt.compact SELECT id, parse_json(s) FROM json_src WHERE mod(id, 2) = 0");
    sql("INSERT INTO floe.vt.compact SELECT id, parse_json(s) FROM json_src WHERE mod(id, 2) = 1");

    sql("CALL floe.system.rewrite_data_files(table => 'vt.compact',"
        + " options => map('rewrite-all', 'true'))");
    assertThat(dataFiles(icebergTable(spark, "vt.compact"))).hasSize(1);
    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.compact"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM expected")));

    String changes =
        "SELECT id + 1 AS id, parse_json(concat('{\"merged\": ', id, '}')) AS v FROM json_src"
            + " WHERE mod(id, 5) = 0";
    sql("MERGE INTO floe.vt.compact t USING (" + changes + ") c ON t.id = c.id"
        + " WHEN MATCHED THEN UPDATE SET v = c.v WHEN NOT MATCHED THEN INSERT *");
    spark.sql("SELECT coalesce(c.id, e.id) AS id, CASE WHEN c.id IS NOT NULL THEN c.v ELSE e.v END"
            + " AS v FROM expected e FULL OUTER JOIN (" + changes + ") c ON e.id = c.id")
        .createOrReplaceTempView("merged_expected");
    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.compact"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM merged_expected")));
  }

  @Test
  void avroFilesRoundTripThroughIcebergsGenericWriter() {
    sql("CREATE TABLE floe.vt.fmt_avro (id INT, v VARIANT) USING iceberg TBLPROPERTIES ("
        + "'format-version'='3', 'write.format.default'='avro')");
    sql("INSERT INTO floe.vt.fmt_avro SELECT id, parse_json(s) FROM json_src");

    assertThat(dataFiles(icebergTable(spark, "vt.fmt_avro")))
        .isNotEmpty()
        .allMatch(file -> file.format() == FileFormat.AVRO);
    assertThat(bothPaths(spark, "SELECT " + SPARK_SHAPE + " FROM floe.vt.fmt_avro"))
        .isEqualTo(canonicalRows(sql("SELECT " + SPARK_SHAPE + " FROM expected")));
  }

  @Test
  void orcWritesOfVariantColumnsAreRefusedNamingTheColumnAndCommitNothing() {
    sql("CREATE TABLE floe.vt.fmt_orc (id INT, v VARIANT) USING iceberg TBLPROPERTIES ("
        + "'format-version'='3', 'write.format.default'='orc')");

    assertThatThrownBy(() -> sql("INSERT INTO floe.vt.fmt_orc SELECT id, parse_json(s) FROM json_src"))
        .hasMessageContaining("Cannot write column 'v' of type variant to an ORC file");
    Table table = icebergTable(spark, "vt.fmt_orc");
    assertThat(table.snapshots()).isEmpty();
    assertThat(sql("SELECT * FROM floe.vt.fmt_orc")).isEmpty();
  }
}
