package io.floe.spark.read.plan;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static io.floe.spark.read.ReadTestSupport.floeScan;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Column pruning (top-level and nested) and filtered reads over tables partitioned by every
 * transform. Each filtered query must return exactly the rows Spark's own engine returns for the
 * same filter over the same data in a temporary view; selective partition filters must also prune
 * files.
 */
class PruningAndFilterReadTest extends SparkTestBase {
  private static final String IDS = "floe.filt.ids";
  private static final String TIMES = "floe.filt.times";

  @BeforeAll
  static void createTables() {
    // a zone with DST and a non-zero offset, so that time transforms (computed in UTC) and Spark's
    // session-local literals must agree
    spark.conf().set("spark.sql.session.timeZone", "America/Los_Angeles");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.filt");

    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW ids_src AS SELECT id,"
            + " CASE k WHEN 0 THEN 'a' WHEN 1 THEN 'b' WHEN 2 THEN 'c' WHEN 3 THEN 'a' END AS cat,"
            + " CASE k WHEN 0 THEN 'apple' WHEN 1 THEN 'apricot' WHEN 2 THEN 'banana' WHEN 4 THEN 'blue' END AS name,"
            + " CASE WHEN k = 4 THEN NULL ELSE CAST(k * 10 + 5 AS INT) END AS n,"
            + " concat('row-', id) AS data,"
            + " CASE WHEN id % 7 = 0 THEN NULL ELSE CAST((id % 11) / 10.0 AS DOUBLE) END AS value,"
            + " named_struct('a', CAST(id % 6 AS INT), 'b', CASE WHEN id % 3 = 0 THEN 'x' ELSE 'y' END,"
            + "   'inner', named_struct('x', CAST(id AS INT), 'y', concat('in-', id))) AS s"
            + " FROM (SELECT id, id % 5 AS k FROM range(60))");
    sql(
        "CREATE TABLE %s (id BIGINT, cat STRING, name STRING, n INT, data STRING, value DOUBLE,"
            + " s STRUCT<a: INT, b: STRING, inner: STRUCT<x: INT, y: STRING>>) USING iceberg"
            + " PARTITIONED BY (cat, bucket(3, id), truncate(2, name), truncate(10, n))",
        IDS);
    sql("INSERT INTO %s SELECT * FROM ids_src", IDS);
    sql("CACHE TABLE ids_src");

    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW times_src AS SELECT id,"
            + " CASE WHEN k = 5 THEN NULL ELSE date_add(DATE '2020-02-29', CAST(k * 400 AS INT)) END AS d,"
            + " CASE WHEN k = 4 THEN NULL ELSE TIMESTAMP '2022-01-31 23:30:00'"
            + "   + make_interval(0, CAST(k * 5 AS INT), 0, 0, 0, CAST(id AS INT), 0) END AS ts,"
            + " TIMESTAMP_NTZ '2024-01-01 22:00:00'"
            + "   + make_interval(0, 0, 0, CAST(k AS INT), 0, CAST(id * 7 AS INT), 0) AS ntz,"
            + " CASE WHEN k = 3 THEN NULL ELSE TIMESTAMP '2024-06-01 09:00:00'"
            + "   + make_interval(0, 0, 0, 0, CAST(k AS INT), CAST(id % 50 AS INT), 0) END AS ts_h,"
            + " concat('t-', id) AS data"
            + " FROM (SELECT id, id % 6 AS k FROM range(60))");
    sql(
        "CREATE TABLE %s (id BIGINT, d DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, ts_h TIMESTAMP,"
            + " data STRING) USING iceberg PARTITIONED BY (years(d), months(ts), days(ntz), hours(ts_h))",
        TIMES);
    sql("INSERT INTO %s SELECT * FROM times_src", TIMES);
    sql("CACHE TABLE times_src");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "cat = 'a'",
        "cat <> 'a'",
        "cat IS NULL",
        "cat IS NOT NULL",
        "cat IN ('a', 'c')",
        "cat NOT IN ('a')",
        "cat = 'zzz'",
        "id = 7",
        "id IN (1, 2, 3, 50)",
        "id > 40",
        "id <= 3 OR id >= 57",
        "name = 'apple'",
        "name LIKE 'ap%'",
        "name LIKE 'b%'",
        "name > 'b'",
        "name IS NULL",
        "n BETWEEN 10 AND 19",
        "n < 10",
        "n = 25",
        "NOT (n >= 20)",
        "cat = 'a' AND id > 20",
        "cat = 'b' OR name = 'apple'",
        "NOT (cat = 'a' OR id < 10)",
        "upper(cat) = 'A'",
        "value > 0.5",
        "value IS NULL",
        "value = 0.3 OR data = 'row-8'",
        "data = 'row-7'",
        "data LIKE '%7'",
        "s.a > 3",
        "s.b = 'x'",
        "s.inner.y = 'in-12'",
        "s.inner.x < 5 AND cat = 'a'"
      })
  void filterOnIdentityBucketTruncateAndDataColumnsMatchesSpark(String filter) {
    assertSameRows(IDS, "ids_src", filter);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "d = DATE '2021-04-04'",
        "d >= DATE '2023-01-01'",
        "d < DATE '2021-06-01'",
        "d IS NULL",
        "d IS NULL OR ts > TIMESTAMP '2022-07-01 00:00:00'",
        "year(d) = 2022",
        "ts >= TIMESTAMP '2022-02-01 00:00:00'",
        "ts < TIMESTAMP '2022-02-01 00:00:00'",
        "ts BETWEEN TIMESTAMP '2022-06-30 00:00:00' AND TIMESTAMP '2022-07-01 00:10:00'",
        "ts IS NULL",
        "ntz = TIMESTAMP_NTZ '2024-01-02 22:07:00'",
        "ntz >= TIMESTAMP_NTZ '2024-01-03 00:00:00' AND ntz < TIMESTAMP_NTZ '2024-01-04 00:00:00'",
        "ntz < TIMESTAMP_NTZ '2024-01-02 00:00:00'",
        "ts_h >= TIMESTAMP '2024-06-01 10:00:00' AND ts_h < TIMESTAMP '2024-06-01 12:00:00'",
        "ts_h = TIMESTAMP '2024-06-01 09:12:00'",
        "ts_h IS NULL",
        "ts_h > TIMESTAMP '2024-06-01 13:30:00' OR d = DATE '2020-02-29'",
        "NOT (ts_h < TIMESTAMP '2024-06-01 11:00:00')",
        "data = 't-5'"
      })
  void filterOnTimeTransformsMatchesSpark(String filter) {
    assertSameRows(TIMES, "times_src", filter);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        IDS + " WHERE cat = 'b'",
        IDS + " WHERE id = 7",
        IDS + " WHERE name = 'banana'",
        IDS + " WHERE name LIKE 'ap%'",
        IDS + " WHERE n BETWEEN 10 AND 19",
        TIMES + " WHERE d >= DATE '2023-01-01'",
        TIMES + " WHERE ts < TIMESTAMP '2022-02-01 00:00:00'",
        TIMES + " WHERE ntz < TIMESTAMP_NTZ '2024-01-02 00:00:00'",
        TIMES + " WHERE ts_h >= TIMESTAMP '2024-06-01 13:00:00'"
      })
  void selectivePartitionFilterPlansFewerFiles(String query) {
    String table = query.substring(0, query.indexOf(' '));
    int all = taskCount(spark.sql("SELECT * FROM " + table));
    int filtered = taskCount(spark.sql("SELECT * FROM " + query));

    assertThat(filtered).isGreaterThan(0).isLessThan(all);
  }

  @Test
  void filterThatMatchesNoPartitionPlansNoFiles() {
    Dataset<Row> df = spark.sql("SELECT * FROM " + IDS + " WHERE cat = 'zzz'");

    assertThat(taskCount(df)).isZero();
    assertThat(df.collectAsList()).isEmpty();
  }

  @Test
  void topLevelColumnPruningReadsOnlyTheSelectedColumns() {
    Dataset<Row> df = spark.sql("SELECT data, id FROM " + IDS);

    assertThat(floeScan(df).readSchema().fieldNames()).containsExactlyInAnyOrder("data", "id");
    assertThat(canonicalRows(df.collectAsList()))
        .isEqualTo(canonicalRows(sql("SELECT data, id FROM ids_src")));
  }

  @Test
  void nestedColumnPruningReadsOnlyTheSelectedStructField() {
    Dataset<Row> df = spark.sql("SELECT s.a FROM " + IDS);

    StructType expected =
        new StructType()
            .add("s", new StructType().add("a", DataTypes.IntegerType, true), true);
    assertThat(floeScan(df).readSchema()).isEqualTo(expected);
    assertThat(canonicalRows(df.collectAsList()))
        .isEqualTo(canonicalRows(sql("SELECT s.a FROM ids_src")));
  }

  @Test
  void deeplyNestedColumnPruningReadsOnlyTheSelectedLeaf() {
    Dataset<Row> df = spark.sql("SELECT id, s.inner.y FROM " + IDS + " WHERE s.b = 'x'");

    StructType scanned = floeScan(df).readSchema();
    StructType s = (StructType) scanned.apply("s").dataType();
    assertThat(s.fieldNames()).containsExactlyInAnyOrder("b", "inner");
    assertThat(((StructType) s.apply("inner").dataType()).fieldNames()).containsExactly("y");
    assertThat(canonicalRows(df.collectAsList()))
        .isEqualTo(canonicalRows(sql("SELECT id, s.inner.y FROM ids_src WHERE s.b = 'x'")));
  }

  @Test
  void selectingOnlyAPartitionColumnReturnsItsValues() {
    assertThat(canonicalRows(sql("SELECT cat FROM %s WHERE id < 10", IDS)))
        .isEqualTo(canonicalRows(sql("SELECT cat FROM ids_src WHERE id < 10")));
    assertThat(sql("SELECT count(*) FROM %s", IDS)).containsExactly(RowFactory.create(60L));
  }

  private static void assertSameRows(String table, String view, String filter) {
    List<Row> actual = spark.sql("SELECT * FROM " + table + " WHERE " + filter).collectAsList();
    List<Row> expected = spark.sql("SELECT * FROM " + view + " WHERE " + filter).collectAsList();
    assertThat(canonicalRows(actual))
        .as("rows of %s where %s", table, filter)
        .isEqualTo(canonicalRows(expected));
  }

  private static int taskCount(Dataset<Row> df) {
    return floeScan(df).partitions().stream().mapToInt(p -> p.tasks().size()).sum();
  }
}
