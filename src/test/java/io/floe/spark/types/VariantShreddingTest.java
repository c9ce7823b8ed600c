package io.floe.spark.types;

import static io.floe.spark.read.ReadPaths.bothPaths;
import static io.floe.spark.read.ReadPaths.rowPathEitherWay;
import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.dataFiles;
import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.SparkTestBase;
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
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Floe's shredded variant writes: {@code write.parquet.shred-variants}, the session conf {@code
 * spark.sql.iceberg.shred-variants} and the write option {@code shred-variants} (in the official
 * runtime's order) turn shredding of top-level variant columns on, in a layout inferred from each
 * file's first rows ({@code variant-inference-buffer-size}); every value, whether it fits the layout
 * or lives in the residual {@code value} column, reads back through both read paths as Spark
 * evaluates the same expressions over {@code parse_json} of the same strings.
 */
class VariantShreddingTest extends SparkTestBase {
  private static final String SHAPE = ShreddingData.SHAPE;

  @BeforeAll
  static void sourceViews() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.shred");
    spark.sql("SELECT * FROM " + ShreddingData.values(true)).createOrReplaceTempView("shred_src");
    spark.sql("SELECT id, parse_json(s) AS v FROM shred_src").createOrReplaceTempView("shred_expected");
  }

  @AfterEach
  void unsetConfs() {
    spark.conf().unset("spark.sql.iceberg.shred-variants");
    spark.conf().unset("spark.sql.iceberg.variant-inference-buffer-size");
  }

  private static List<String> expected() {
    return canonicalRows(sql("SELECT " + SHAPE + " FROM shred_expected"));
  }

  /** The Parquet group of column {@code column} in each of the table's data files. */
  static List<GroupType> groups(Table table, String... column) throws IOException {
    List<GroupType> groups = new ArrayList<>();
    for (DataFile file : dataFiles(table)) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(new Path(file.location()), new Configuration()))) {
        MessageType schema = reader.getFooter().getFileMetaData().getSchema();
        groups.add(schema.getType(column).asGroupType());
      }
    }
    return groups;
  }

  private static void create(String table, String properties) {
    sql("CREATE TABLE floe.shred." + table + " (id INT, v VARIANT) USING iceberg TBLPROPERTIES ("
        + "'format-version'='3'" + properties + ")");
  }

  @Test
  void tablePropertyShredsTopLevelVariantsAndEveryValueReadsBackAsWritten() throws IOException {
    create("by_property", ", 'write.parquet.shred-variants'='true'");
    sql("INSERT INTO floe.shred.by_property SELECT id, parse_json(s) FROM shred_src");

    List<GroupType> groups = groups(icebergTable(spark, "shred.by_property"), "v");
    assertThat(groups).isNotEmpty();
    for (GroupType v : groups) {
      assertThat(v.getLogicalTypeAnnotation())
          .isInstanceOf(LogicalTypeAnnotation.VariantLogicalTypeAnnotation.class);
      assertThat(v.getFields()).extracting(Type::getName)
          .containsExactly("metadata", "value", "typed_value");
      GroupType typed = v.getType("typed_value").asGroupType();
      // fields alphabetically, as the official runtime's inference orders them; the decimal
      // field d stays in the residual object
      assertThat(typed.getFields()).extracting(Type::getName).containsExactly("a", "arr", "b", "n");
      Type a = typed.getType("a").asGroupType().getType("typed_value");
      assertThat(a.asPrimitiveType().getPrimitiveTypeName()).isEqualTo(PrimitiveTypeName.INT64);
      GroupType n = typed.getType("n").asGroupType().getType("typed_value").asGroupType();
      assertThat(n.getFields()).extracting(Type::getName).contains("tags", "x");
    }
    assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.shred.by_property"))
        .isEqualTo(expected());
    assertThat(sql("SELECT count(v), count(*) FROM floe.shred.by_property"))
        .isEqualTo(sql("SELECT count(v), count(*) FROM shred_expected"));
  }

  @Test
  void sessionConfTurnsShreddingOnAndTheWriteOptionOverridesTheTableProperty() throws Exception {
    create("by_conf", "");
    spark.conf().set("spark.sql.iceberg.shred-variants", "true");
    sql("INSERT INTO floe.shred.by_conf SELECT id, parse_json(s) FROM shred_src");
    spark.conf().unset("spark.sql.iceberg.shred-variants");
    assertThat(groups(icebergTable(spark, "shred.by_conf"), "v"))
        .isNotEmpty()
        .allMatch(group -> group.containsField("typed_value"));
    assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.shred.by_conf"))
        .isEqualTo(expected());

    create("option_off", ", 'write.parquet.shred-variants'='true'");
    spark.table("shred_expected")
        .writeTo("floe.shred.option_off")
        .option("shred-variants", "false")
        .append();
    assertThat(groups(icebergTable(spark, "shred.option_off"), "v"))
        .isNotEmpty()
        .noneMatch(group -> group.containsField("typed_value"));

    create("default_off", "");
    sql("INSERT INTO floe.shred.default_off SELECT id, parse_json(s) FROM shred_src");
    assertThat(groups(icebergTable(spark, "shred.default_off"), "v"))
        .isNotEmpty()
        .noneMatch(group -> group.containsField("typed_value"));
    assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.shred.option_off"))
        .isEqualTo(expected());
  }

  @Test
  void aOneRowInferenceBufferShredsTheFirstRowsShapeAndKeepsOtherValuesInTheResidual()
      throws IOException {
    create("one_row", ", 'write.parquet.shred-variants'='true'");
    spark.conf().set("spark.sql.iceberg.variant-inference-buffer-size", "1");
    // one task, so one file whose layout comes from row 0, where a is a string
    sql("INSERT INTO floe.shred.one_row SELECT /*+ COALESCE(1) */ id, parse_json(s) FROM shred_src"
        + " ORDER BY id");

    List<GroupType> groups = groups(icebergTable(spark, "shred.one_row"), "v");
    assertThat(groups).hasSize(1);
    Type a =
        groups.get(0).getType("typed_value").asGroupType().getType("a").asGroupType()
            .getType("typed_value");
    assertThat(a.getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.stringType());
    assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.shred.one_row"))
        .isEqualTo(expected());
  }

  @Test
  void badShreddingOptionsFailNamingTheOptionAndCommitNothing() {
    create("bad", "");
    assertThatThrownBy(
            () -> spark.table("shred_expected").writeTo("floe.shred.bad")
                .option("shred-variants", "maybe").append())
        .hasMessageContaining("Cannot write to")
        .hasMessageContaining("option 'shred-variants' must be true or false, not 'maybe'");
    spark.conf().set("spark.sql.iceberg.variant-inference-buffer-size", "0");
    assertThatThrownBy(() -> sql("INSERT INTO floe.shred.bad SELECT id, parse_json(s) FROM shred_src"))
        .hasMessageContaining(
            "option 'variant-inference-buffer-size' must be a positive whole number, not '0'");
    assertThat(icebergTable(spark, "shred.bad").snapshots()).isEmpty();
    assertThat(sql("SELECT * FROM floe.shred.bad")).isEmpty();
  }

  @Test
  void variantsNestedInStructsStayUnshreddedNextToAShreddedTopLevelColumn() throws IOException {
    sql("CREATE TABLE floe.shred.nested (id INT, v VARIANT, st STRUCT<doc: VARIANT, n: INT>)"
        + " USING iceberg TBLPROPERTIES ('format-version'='3', 'write.parquet.shred-variants'='true')");
    sql("INSERT INTO floe.shred.nested SELECT id, parse_json(s), named_struct('doc', parse_json(s),"
        + " 'n', id) FROM shred_src");

    Table table = icebergTable(spark, "shred.nested");
    assertThat(groups(table, "v")).isNotEmpty().allMatch(group -> group.containsField("typed_value"));
    assertThat(groups(table, "st", "doc"))
        .isNotEmpty()
        .allSatisfy(
            group -> assertThat(group.getFields()).extracting(Type::getName)
                .containsExactly("metadata", "value"));
    String shape = SHAPE + ", to_json(st.doc), st.n";
    spark.sql("SELECT id, v, named_struct('doc', v, 'n', id) AS st FROM shred_expected")
        .createOrReplaceTempView("nested_expected");
    assertThat(rowPathEitherWay(spark, "SELECT " + shape + " FROM floe.shred.nested"))
        .isEqualTo(canonicalRows(sql("SELECT " + shape + " FROM nested_expected")));
  }

  @Test
  void mergeOnReadUpdateAndCompactionOfAShreddedTableKeepEveryValueShredded() throws IOException {
    create("mor", ", 'write.parquet.shred-variants'='true', 'write.delete.mode'='merge-on-read',"
        + " 'write.update.mode'='merge-on-read'");
    sql("INSERT INTO floe.shred.mor SELECT id, parse_json(s) FROM shred_src WHERE id < 30");
    sql("INSERT INTO floe.shred.mor SELECT id, parse_json(s) FROM shred_src WHERE id >= 30");

    String changed = "parse_json('{\"a\": 1, \"b\": \"updated\", \"arr\": [7, 8]}')";
    sql("UPDATE floe.shred.mor SET v = " + changed + " WHERE mod(id, 4) = 1");
    sql("DELETE FROM floe.shred.mor WHERE try_variant_get(v, '$.a', 'bigint') > 1000000000");
    spark.sql("SELECT id, CASE WHEN mod(id, 4) = 1 THEN " + changed + " ELSE v END AS v"
            + " FROM shred_expected")
        .createOrReplaceTempView("mor_updated");
    spark.sql("SELECT * FROM mor_updated WHERE NOT coalesce("
            + "try_variant_get(v, '$.a', 'bigint') > 1000000000, false)")
        .createOrReplaceTempView("mor_expected");
    List<String> expected = canonicalRows(sql("SELECT " + SHAPE + " FROM mor_expected"));
    assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.shred.mor")).isEqualTo(expected);

    sql("CALL floe.system.rewrite_data_files(table => 'shred.mor',"
        + " options => map('rewrite-all', 'true', 'delete-file-threshold', '1'))");
    Table table = icebergTable(spark, "shred.mor");
    assertThat(dataFiles(table)).hasSize(1);
    assertThat(groups(table, "v")).allMatch(group -> group.containsField("typed_value"));
    assertThat(bothPaths(spark, "SELECT " + SHAPE + " FROM floe.shred.mor")).isEqualTo(expected);
  }
}
