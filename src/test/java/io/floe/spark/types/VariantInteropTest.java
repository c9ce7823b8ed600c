package io.floe.spark.types;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.OfficialRuntime;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.GroupType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Variant columns between Floe and the official runtime 1.11 on Spark 4.1, each in its own JVM
 * over one warehouse: the official runtime reads the variants Floe wrote, and Floe reads, through
 * both of its read paths, the variants the official runtime wrote, unshredded (its default) and
 * shredded ({@code spark.sql.iceberg.shred-variants}). Each side's rows are Spark's evaluation of
 * the same expressions over {@code parse_json} of the same strings.
 */
class VariantInteropTest extends SparkTestBase {
  /** What both engines print; no value holds the '|' the official runtime's rows are split on. */
  private static final String SHAPE =
      "id, to_json(v), variant_get(v, '$.a', 'bigint'), is_variant_null(v), v IS NULL";

  /** One official-runtime JVM for the class's checks (a JVM start costs several seconds). */
  private static OfficialRuntime.Session official;

  @BeforeAll
  static void createNamespace() throws IOException {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.interop_variant");
    official = OfficialRuntime.session(warehouse);
    spark.sql("SELECT * FROM " + values(false)).createOrReplaceTempView("src");
    spark.sql("SELECT * FROM " + values(true)).createOrReplaceTempView("src_no_decimals");
  }

  @AfterAll
  static void stopOfficialRuntime() throws IOException, InterruptedException {
    official.close();
  }

  /**
   * The test's JSON strings and a NULL as an inline table {@code src(id, s)} both engines parse.
   *
   * @param withoutDecimals leave out the strings with decimal numbers: the official runtime 1.11
   *     fails to write them shredded ("Fixed Binary size 11 does not match field type length 16"
   *     when one field holds decimals of different sizes)
   */
  private static String values(boolean withoutDecimals) {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < VariantTableTest.JSON.size(); i++) {
      String json = VariantTableTest.JSON.get(i);
      if (!withoutDecimals || !json.matches(".*[0-9][.][0-9].*")) {
        rows.add("(" + i + ", '" + json + "')");
      }
    }
    rows.add("(" + VariantTableTest.JSON.size() + ", CAST(NULL AS STRING))");
    return "VALUES " + String.join(", ", rows) + " AS src(id, s)";
  }

  private static List<String> expected(String view) {
    return canonicalRows(
        sql("SELECT " + SHAPE + " FROM (SELECT id, parse_json(s) AS v FROM " + view + ")"));
  }

  /** The Parquet group of column {@code v} in each of the table's data files. */
  private static List<GroupType> variantGroups(Table table) throws IOException {
    List<GroupType> groups = new ArrayList<>();
    for (DataFile file : dataFiles(table)) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(new Path(file.location()), new Configuration()))) {
        groups.add(reader.getFooter().getFileMetaData().getSchema().getType("v").asGroupType());
      }
    }
    return groups;
  }

  @Test
  void officialRuntimeReadsFloesVariants() throws Exception {
    assertThat(OfficialRuntime.RUNTIME_JAR).as("the official runtime jar the build copies").exists();
    sql("CREATE TABLE floe.interop_variant.floe_written (id INT, v VARIANT) USING iceberg"
        + " TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.interop_variant.floe_written SELECT id, parse_json(s) FROM src");

    List<String> expected = expected("src");
    assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.interop_variant.floe_written"))
        .isEqualTo(expected);
    assertThat(
            official.run("SELECT " + SHAPE + " FROM off.interop_variant.floe_written"))
        .as("the official runtime reads Floe's variants")
        .isEqualTo(expected);
  }

  @Test
  void floeReadsTheOfficialRuntimesUnshreddedAndShreddedVariants() throws Exception {
    for (boolean shred : List.of(false, true)) {
      String table = shred ? "off_shredded" : "off_unshredded";
      // the session conf the official runtime reads when it writes (SparkWriteConf)
      official.run(
          "SET `spark.sql.iceberg.shred-variants`=" + shred,
          "CREATE TABLE off.interop_variant." + table + " (id INT, v VARIANT) USING iceberg"
              + " TBLPROPERTIES ('format-version'='3')",
          "INSERT INTO off.interop_variant." + table + " SELECT id, parse_json(s) FROM "
              + values(shred),
          // the session serves the class's other checks: they write with the runtime's default
          "RESET `spark.sql.iceberg.shred-variants`");

      assertThat(variantGroups(icebergTable(spark, "interop_variant." + table)))
          .as("the official runtime's files of " + table)
          .isNotEmpty()
          .allMatch(group -> group.containsField("typed_value") == shred);
      assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.interop_variant." + table))
          .as("Floe reads the official runtime's " + (shred ? "shredded" : "unshredded") + " variants")
          .isEqualTo(expected(shred ? "src_no_decimals" : "src"));
    }
  }

  @Test
  void officialRuntimeReadsFloesShreddedVariantsOfEveryShape() throws Exception {
    spark.sql("SELECT * FROM " + ShreddingData.values(true)).createOrReplaceTempView("shred_src");
    sql("CREATE TABLE floe.interop_variant.floe_shredded (id INT, v VARIANT) USING iceberg"
        + " TBLPROPERTIES ('format-version'='3', 'write.parquet.shred-variants'='true')");
    sql("INSERT INTO floe.interop_variant.floe_shredded SELECT id, parse_json(s) FROM shred_src");

    assertThat(variantGroups(icebergTable(spark, "interop_variant.floe_shredded")))
        .as("Floe's files")
        .isNotEmpty()
        .allMatch(group -> group.containsField("typed_value"));
    List<String> expected =
        canonicalRows(
            sql("SELECT " + ShreddingData.SHAPE + " FROM (SELECT id, parse_json(s) AS v FROM"
                + " shred_src)"));
    assertThat(
            bothPaths(
                spark, "SELECT " + ShreddingData.SHAPE + " FROM floe.interop_variant.floe_shredded"))
        .isEqualTo(expected);
    assertThat(
            official.run("SELECT " + ShreddingData.SHAPE + " FROM off.interop_variant.floe_shredded"))
        .as("the official runtime reads Floe's shredded variants")
        .isEqualTo(expected);
  }

  /**
   * The official runtime writes {@link ShreddingData} shredded (without its decimals, which the
   * official runtime 1.11 rescales into the inferred scale or fails to write) and reads it back;
   * Floe reads the same rows through both paths.
   */
  @Test
  void floeReadsTheOfficialRuntimesShreddedVariantsOfEveryShapeAsItDoes() throws Exception {
    List<String> officialRows =
        official.run(
            "CREATE TABLE off.interop_variant.off_shapes (id INT, v VARIANT) USING iceberg"
                + " TBLPROPERTIES ('format-version'='3', 'write.parquet.shred-variants'='true')",
            "INSERT INTO off.interop_variant.off_shapes SELECT id, parse_json(s) FROM "
                + ShreddingData.values(false),
            "SELECT " + ShreddingData.SHAPE + " FROM off.interop_variant.off_shapes");

    List<GroupType> groups = variantGroups(icebergTable(spark, "interop_variant.off_shapes"));
    assertThat(groups).as("the official runtime's files").isNotEmpty();
    for (GroupType group : groups) {
      assertThat(group.getType("typed_value").asGroupType().getFields())
          .extracting(org.apache.parquet.schema.Type::getName)
          .contains("a", "arr", "b", "n");
    }
    List<String> expected =
        canonicalRows(
            sql("SELECT " + ShreddingData.SHAPE + " FROM (SELECT id, parse_json(s) AS v FROM "
                + ShreddingData.values(false) + ")"));
    assertThat(officialRows).as("the official runtime reads its own shredded variants").isEqualTo(expected);
    assertThat(
            bothPaths(spark, "SELECT " + ShreddingData.SHAPE + " FROM floe.interop_variant.off_shapes"))
        .as("Floe reads the official runtime's shredded variants")
        .isEqualTo(expected);
  }
}
