package io.floe.spark.read.exec;

import static io.floe.spark.read.ReadTestSupport.icebergTable;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.math.BigDecimal;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Files written before an ALTER TABLE read correctly after it, with no write in between: columns are
 * matched by field id, so renamed columns keep their data, added columns read NULL, dropped columns
 * are gone (and a new column of the same name does not resurrect them), and widened types read the
 * exact old values.
 */
class SchemaEvolutionReadTest extends SparkTestBase {

  @BeforeAll
  static void createNamespace() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.evo");
  }

  private static List<Row> rows(String query, Object... args) {
    return sql(query, args);
  }

  @Test
  void renamedColumnKeepsDataOfFilesWrittenBeforeTheRename() {
    sql("CREATE TABLE floe.evo.renamed (id INT, name STRING) USING iceberg");
    sql("INSERT INTO floe.evo.renamed VALUES (1, 'a'), (2, 'b'), (3, NULL)");

    sql("ALTER TABLE floe.evo.renamed RENAME COLUMN name TO label");

    assertThat(spark.table("floe.evo.renamed").columns()).containsExactly("id", "label");
    assertThat(rows("SELECT id, label FROM floe.evo.renamed ORDER BY id"))
        .containsExactly(RowFactory.create(1, "a"), RowFactory.create(2, "b"), RowFactory.create(3, null));
    assertThat(rows("SELECT id FROM floe.evo.renamed WHERE label = 'b'"))
        .containsExactly(RowFactory.create(2));

    sql("INSERT INTO floe.evo.renamed VALUES (4, 'd')");
    assertThat(rows("SELECT label FROM floe.evo.renamed WHERE id IN (1, 4) ORDER BY id"))
        .containsExactly(RowFactory.create("a"), RowFactory.create("d"));
  }

  @Test
  void timeTravelBeforeARenameUsesTheSchemaOfThatSnapshot() {
    sql("CREATE TABLE floe.evo.travel (id INT, name STRING) USING iceberg");
    sql("INSERT INTO floe.evo.travel VALUES (1, 'a')");
    long before = sql("SELECT snapshot_id FROM floe.evo.travel.snapshots").get(0).getLong(0);

    sql("ALTER TABLE floe.evo.travel RENAME COLUMN name TO label");

    assertThat(spark.sql("SELECT * FROM floe.evo.travel VERSION AS OF " + before).columns())
        .containsExactly("id", "name");
    assertThat(rows("SELECT name FROM floe.evo.travel VERSION AS OF %d", before))
        .containsExactly(RowFactory.create("a"));
    assertThat(rows("SELECT id FROM floe.evo.travel VERSION AS OF %d WHERE name = 'a'", before))
        .containsExactly(RowFactory.create(1));
    assertThat(rows("SELECT label FROM floe.evo.travel")).containsExactly(RowFactory.create("a"));

    sql("INSERT INTO floe.evo.travel VALUES (2, 'b')");
    assertThat(rows("SELECT id, name FROM floe.evo.travel VERSION AS OF %d WHERE name = 'a'", before))
        .containsExactly(RowFactory.create(1, "a"));
    assertThat(rows("SELECT id FROM floe.evo.travel WHERE label = 'b'")).containsExactly(RowFactory.create(2));
  }

  @Test
  void reorderedColumnsReadOldFilesInTheNewOrder() {
    sql("CREATE TABLE floe.evo.reordered (a INT, b STRING, c DOUBLE, s STRUCT<x: INT, y: STRING>) USING iceberg");
    sql("INSERT INTO floe.evo.reordered VALUES (1, 'one', 1.5, named_struct('x', 10, 'y', 'ten'))");

    sql("ALTER TABLE floe.evo.reordered ALTER COLUMN c FIRST");
    sql("ALTER TABLE floe.evo.reordered ALTER COLUMN a AFTER b");
    sql("ALTER TABLE floe.evo.reordered ALTER COLUMN s.y FIRST");

    Row row = rows("SELECT * FROM floe.evo.reordered").get(0);
    assertThat(spark.table("floe.evo.reordered").columns()).containsExactly("c", "b", "a", "s");
    assertThat(row.getDouble(0)).isEqualTo(1.5);
    assertThat(row.getString(1)).isEqualTo("one");
    assertThat(row.getInt(2)).isEqualTo(1);
    assertThat(row.getStruct(3)).isEqualTo(RowFactory.create("ten", 10));
    assertThat(row.getStruct(3).schema().fieldNames()).containsExactly("y", "x");
  }

  @Test
  void addedColumnsReadNullFromOldFiles() {
    sql("CREATE TABLE floe.evo.added (id INT) USING iceberg PARTITIONED BY (bucket(2, id))");
    sql("INSERT INTO floe.evo.added VALUES (1), (2), (3)");

    sql("ALTER TABLE floe.evo.added ADD COLUMNS (note STRING, amount BIGINT, tags ARRAY<STRING>)");

    assertThat(rows("SELECT * FROM floe.evo.added ORDER BY id"))
        .containsExactly(
            RowFactory.create(1, null, null, null),
            RowFactory.create(2, null, null, null),
            RowFactory.create(3, null, null, null));
    assertThat(rows("SELECT count(*) FROM floe.evo.added WHERE note IS NULL AND amount IS NULL"))
        .containsExactly(RowFactory.create(3L));
    assertThat(rows("SELECT id FROM floe.evo.added WHERE amount > 0")).isEmpty();

    sql("INSERT INTO floe.evo.added VALUES (4, 'new', 40, array('t'))");
    assertThat(rows("SELECT id, note, amount FROM floe.evo.added WHERE id >= 3 ORDER BY id"))
        .containsExactly(RowFactory.create(3, null, null), RowFactory.create(4, "new", 40L));
  }

  @Test
  void droppedColumnIsGoneAndANewColumnOfTheSameNameReadsNull() {
    sql("CREATE TABLE floe.evo.dropped (id INT, secret STRING, keep STRING) USING iceberg");
    sql("INSERT INTO floe.evo.dropped VALUES (1, 's1', 'k1'), (2, 's2', 'k2')");

    sql("ALTER TABLE floe.evo.dropped DROP COLUMN secret");

    assertThat(spark.table("floe.evo.dropped").columns()).containsExactly("id", "keep");
    assertThat(rows("SELECT * FROM floe.evo.dropped ORDER BY id"))
        .containsExactly(RowFactory.create(1, "k1"), RowFactory.create(2, "k2"));

    sql("ALTER TABLE floe.evo.dropped ADD COLUMN secret STRING");
    assertThat(rows("SELECT id, secret, keep FROM floe.evo.dropped ORDER BY id"))
        .containsExactly(RowFactory.create(1, null, "k1"), RowFactory.create(2, null, "k2"));
  }

  @Test
  void widenedTypesReadTheExactValuesOfOldFiles() {
    sql("CREATE TABLE floe.evo.widened (i INT, f FLOAT, d DECIMAL(9,2)) USING iceberg");
    sql(
        "INSERT INTO floe.evo.widened VALUES (2147483647, CAST(0.1 AS FLOAT), 9999999.99),"
            + " (-2147483648, CAST(-1.5 AS FLOAT), -0.01), (NULL, NULL, NULL)");

    sql("ALTER TABLE floe.evo.widened ALTER COLUMN i TYPE BIGINT");
    sql("ALTER TABLE floe.evo.widened ALTER COLUMN f TYPE DOUBLE");
    sql("ALTER TABLE floe.evo.widened ALTER COLUMN d TYPE DECIMAL(18,2)");

    StructType schema = spark.table("floe.evo.widened").schema();
    assertThat(schema.apply("i").dataType()).isEqualTo(DataTypes.LongType);
    assertThat(schema.apply("f").dataType()).isEqualTo(DataTypes.DoubleType);
    assertThat(schema.apply("d").dataType()).isEqualTo(DataTypes.createDecimalType(18, 2));
    assertThat(rows("SELECT i, f, d FROM floe.evo.widened ORDER BY i NULLS LAST"))
        .containsExactly(
            RowFactory.create(-2147483648L, -1.5d, new BigDecimal("-0.01")),
            RowFactory.create(2147483647L, (double) 0.1f, new BigDecimal("9999999.99")),
            RowFactory.create(null, null, null));

    sql("INSERT INTO floe.evo.widened VALUES (9223372036854775807, 1e300, 9999999999999999.99)");
    assertThat(rows("SELECT i, f, d FROM floe.evo.widened WHERE i > 2147483647"))
        .containsExactly(
            RowFactory.create(
                9223372036854775807L, 1e300, new BigDecimal("9999999999999999.99")));
    assertThat(rows("SELECT i FROM floe.evo.widened WHERE d = 9999999.99"))
        .containsExactly(RowFactory.create(2147483647L));
  }

  @Test
  void nestedFieldsCanBeAddedAndRenamedOverOldFiles() {
    sql("CREATE TABLE floe.evo.nested (id INT, s STRUCT<a: INT, b: STRING>) USING iceberg");
    sql(
        "INSERT INTO floe.evo.nested VALUES (1, named_struct('a', 10, 'b', 'x')),"
            + " (2, named_struct('a', 20, 'b', 'y')), (3, NULL)");

    sql("ALTER TABLE floe.evo.nested ADD COLUMN s.c STRING");
    sql("ALTER TABLE floe.evo.nested RENAME COLUMN s.b TO bee");

    assertThat(rows("SELECT s.a, s.bee, s.c FROM floe.evo.nested ORDER BY id"))
        .containsExactly(
            RowFactory.create(10, "x", null),
            RowFactory.create(20, "y", null),
            RowFactory.create(null, null, null));
    List<Row> whole = rows("SELECT s FROM floe.evo.nested ORDER BY id");
    assertThat(whole.get(0).getStruct(0)).isEqualTo(RowFactory.create(10, "x", null));
    assertThat(whole.get(0).getStruct(0).schema().fieldNames()).containsExactly("a", "bee", "c");
    assertThat(whole.get(2).isNullAt(0)).isTrue();
    assertThat(rows("SELECT id FROM floe.evo.nested WHERE s.bee = 'y'")).containsExactly(RowFactory.create(2));

    sql("INSERT INTO floe.evo.nested VALUES (4, named_struct('a', 40, 'bee', 'z', 'c', 'new'))");
    assertThat(rows("SELECT s.c FROM floe.evo.nested WHERE id IN (1, 4) ORDER BY id"))
        .containsExactly(RowFactory.create((Object) null), RowFactory.create("new"));
  }

  @Test
  void droppedNestedFieldIsGoneFromOldFiles() {
    sql("CREATE TABLE floe.evo.nested_drop (id INT, s STRUCT<a: INT, b: STRING, c: DOUBLE>) USING iceberg");
    sql("INSERT INTO floe.evo.nested_drop VALUES (1, named_struct('a', 1, 'b', 'one', 'c', 1.0))");

    sql("ALTER TABLE floe.evo.nested_drop DROP COLUMN s.b");

    Row row = rows("SELECT s FROM floe.evo.nested_drop").get(0);
    assertThat(row.getStruct(0).schema().fieldNames()).containsExactly("a", "c");
    assertThat(row.getStruct(0)).isEqualTo(RowFactory.create(1, 1.0));
  }

  @Test
  void widenedIdentityPartitionColumnReadsWideValuesFromOldPartitions() {
    sql(
        "CREATE TABLE floe.evo.widened_part (p INT, f FLOAT, d DECIMAL(9,2), id INT) USING iceberg"
            + " PARTITIONED BY (p, f, d)");
    sql("INSERT INTO floe.evo.widened_part VALUES (2147483647, CAST(0.1 AS FLOAT), 1234567.89, 1), (NULL, NULL, NULL, 2)");

    sql("ALTER TABLE floe.evo.widened_part ALTER COLUMN p TYPE BIGINT");
    sql("ALTER TABLE floe.evo.widened_part ALTER COLUMN f TYPE DOUBLE");
    sql("ALTER TABLE floe.evo.widened_part ALTER COLUMN d TYPE DECIMAL(18,2)");

    assertThat(rows("SELECT p, f, d, id FROM floe.evo.widened_part ORDER BY id"))
        .containsExactly(
            RowFactory.create(2147483647L, (double) 0.1f, new BigDecimal("1234567.89"), 1),
            RowFactory.create(null, null, null, 2));
    assertThat(rows("SELECT id FROM floe.evo.widened_part WHERE p = 2147483647"))
        .containsExactly(RowFactory.create(1));
  }

  @Test
  void renamedPartitionSourceColumnKeepsItsValues() {
    sql("CREATE TABLE floe.evo.renamed_part (id INT, cat STRING) USING iceberg PARTITIONED BY (cat)");
    sql("INSERT INTO floe.evo.renamed_part VALUES (1, 'a'), (2, 'b'), (3, NULL)");

    sql("ALTER TABLE floe.evo.renamed_part RENAME COLUMN cat TO category");

    assertThat(rows("SELECT id, category FROM floe.evo.renamed_part ORDER BY id"))
        .containsExactly(RowFactory.create(1, "a"), RowFactory.create(2, "b"), RowFactory.create(3, null));
    assertThat(rows("SELECT id FROM floe.evo.renamed_part WHERE category = 'b'"))
        .containsExactly(RowFactory.create(2));
  }

  @Test
  void fieldsAddedToListElementAndMapValueStructsReadNullFromOldFiles() {
    sql(
        "CREATE TABLE floe.evo.collections (id INT, points ARRAY<STRUCT<x: INT>>,"
            + " attrs MAP<STRING, STRUCT<v: STRING>>) USING iceberg");
    sql(
        "INSERT INTO floe.evo.collections VALUES (1, array(named_struct('x', 1), named_struct('x', 2)),"
            + " map('k', named_struct('v', 'one')))");

    sql("ALTER TABLE floe.evo.collections ADD COLUMN points.element.y STRING");
    sql("ALTER TABLE floe.evo.collections ADD COLUMN attrs.value.w INT");
    sql("ALTER TABLE floe.evo.collections RENAME COLUMN points.element.x TO px");

    Row row = rows("SELECT points, attrs FROM floe.evo.collections").get(0);
    assertThat(row.getList(0))
        .containsExactly(RowFactory.create(1, null), RowFactory.create(2, null));
    assertThat(row.getJavaMap(1)).containsEntry("k", RowFactory.create("one", null));
    assertThat(rows("SELECT points[1].px FROM floe.evo.collections"))
        .containsExactly(RowFactory.create(2));
    assertThat(rows("SELECT points.px FROM floe.evo.collections").get(0).getList(0))
        .containsExactly(1, 2);
  }

  @Test
  void columnAddedWithADefaultOnAFormatVersion3TableReadsTheDefaultFromOldFiles() {
    sql("CREATE TABLE floe.evo.defaults (id INT) USING iceberg TBLPROPERTIES ('format-version' = '3')");
    sql("INSERT INTO floe.evo.defaults VALUES (1), (2)");
    Table table = icebergTable(spark, "evo.defaults");

    table.updateSchema().addColumn("level", Types.IntegerType.get(), Literal.of(7)).commit();

    assertThat(rows("SELECT id, level FROM floe.evo.defaults ORDER BY id"))
        .containsExactly(RowFactory.create(1, 7), RowFactory.create(2, 7));
  }

  @Test
  void snapshotReadOptionAfterSchemaChangesReadsOldRowsInTheCurrentSchema() {
    sql("CREATE TABLE floe.evo.option_travel (id INT, name STRING, gone STRING) USING iceberg");
    sql("INSERT INTO floe.evo.option_travel VALUES (1, 'a', 'g')");
    long first = icebergTable(spark, "evo.option_travel").currentSnapshot().snapshotId();
    sql("ALTER TABLE floe.evo.option_travel RENAME COLUMN name TO label");
    sql("ALTER TABLE floe.evo.option_travel DROP COLUMN gone");
    sql("ALTER TABLE floe.evo.option_travel ADD COLUMN extra STRING");
    sql("INSERT INTO floe.evo.option_travel VALUES (2, 'b', 'e')");

    Dataset<Row> old =
        spark.read().option("snapshot-id", String.valueOf(first)).table("floe.evo.option_travel");

    assertThat(old.columns()).containsExactly("id", "label", "extra");
    assertThat(old.collectAsList()).containsExactly(RowFactory.create(1, "a", null));
    assertThat(old.select("label").collectAsList()).containsExactly(RowFactory.create("a"));
    assertThat(old.filter("label = 'a'").count()).isEqualTo(1);
    assertThat(old.filter("label = 'b'").count()).isZero();
    assertThat(old.filter("extra IS NULL").count()).isEqualTo(1);
    assertThat(old.filter("NOT (extra IS NULL) OR label = 'a'").count()).isEqualTo(1);
  }

  @Test
  void widenedColumnsWithDictionariesAndBloomFiltersFilterOldFilesExactly() {
    sql(
        "CREATE TABLE floe.evo.widened_filters (i INT, f FLOAT) USING iceberg TBLPROPERTIES ("
            + " 'write.parquet.bloom-filter-enabled.column.i' = 'true',"
            + " 'write.parquet.bloom-filter-enabled.column.f' = 'true')");
    sql(
        "INSERT INTO floe.evo.widened_filters SELECT /*+ COALESCE(1) */ CAST(pmod(id, 3) AS INT),"
            + " CAST(pmod(id, 3) AS FLOAT) / 2 FROM range(300)");

    sql("ALTER TABLE floe.evo.widened_filters ALTER COLUMN i TYPE BIGINT");
    sql("ALTER TABLE floe.evo.widened_filters ALTER COLUMN f TYPE DOUBLE");

    assertThat(rows("SELECT count(*) FROM floe.evo.widened_filters WHERE i = 2"))
        .containsExactly(RowFactory.create(100L));
    assertThat(rows("SELECT count(*) FROM floe.evo.widened_filters WHERE i IN (0, 5)"))
        .containsExactly(RowFactory.create(100L));
    assertThat(rows("SELECT count(*) FROM floe.evo.widened_filters WHERE i <> 1"))
        .containsExactly(RowFactory.create(200L));
    assertThat(rows("SELECT count(*) FROM floe.evo.widened_filters WHERE f = 0.5"))
        .containsExactly(RowFactory.create(100L));
    assertThat(rows("SELECT count(*) FROM floe.evo.widened_filters WHERE f > 0.7"))
        .containsExactly(RowFactory.create(100L));
  }
}
