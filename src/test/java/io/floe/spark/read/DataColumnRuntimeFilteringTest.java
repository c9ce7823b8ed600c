package io.floe.spark.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.exec.ReaderMetrics;
import io.floe.spark.read.plan.DriverMetrics;
import io.floe.spark.read.plan.RuntimeFilteredTask;
import io.floe.spark.serialization.Travel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.iceberg.ScanTask;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runtime filtering on data columns: a join on a column that is not a partition column, whose other
 * side is filtered, hands the fact table's scan an {@code IN} list of the join keys (Spark's
 * dynamic pruning), and the scan reads only the files, and the row groups, whose column bounds can
 * hold one of them. The fact table's files each hold one range of the key, as a table written in
 * key order does. Every answer is compared with the same join over temp views of the same rows.
 */
class DataColumnRuntimeFilteringTest extends SparkTestBase {
  private static final int FILES = 8;
  private static final int ROWS_PER_FILE = 1000;
  /** The fact rows of file {@code %d}: one range of k, in k order; file 7 also holds NULL keys. */
  private static final String FACT_ROWS =
      "SELECT CASE WHEN id %% 97 = 0 AND id >= 7000 THEN NULL ELSE id END AS k,"
          + " lpad(CAST(id AS STRING), 6, '0') AS s,"
          + " date_add(DATE'2020-01-01', CAST(id DIV 10 AS INT)) AS d,"
          + " CAST(id / 100 AS DECIMAL(12, 2)) AS dec,"
          + " timestamp_micros(1700000000000000 + id * 1000000) AS ts,"
          + " id AS nostat, id * 3 AS v"
          + " FROM range(%d, %d, 1, 1)";
  /**
   * The dimension: 'cold' keys spread over every file, 'hot' keys in files 2 and 5 and a NULL key,
   * and 300 'wide' keys in file 1.
   */
  private static final String DIM_ROWS =
      "SELECT k, lpad(CAST(k AS STRING), 6, '0') AS s,"
          + " date_add(DATE'2020-01-01', CAST(k DIV 10 AS INT)) AS d,"
          + " CAST(k / 100 AS DECIMAL(12, 2)) AS dec,"
          + " timestamp_micros(1700000000000000 + k * 1000000) AS ts,"
          + " k AS nostat, tag"
          + " FROM (SELECT id * 50 + 1 AS k, 'cold' AS tag FROM range(0, 160)"
          + "  UNION ALL SELECT * FROM VALUES (2050L, 'hot'), (2051L, 'hot'), (5300L, 'hot'),"
          + "   (CAST(NULL AS BIGINT), 'hot') AS h(k, tag)"
          + "  UNION ALL SELECT id AS k, 'wide' AS tag FROM range(1000, 1300))";

  @BeforeAll
  static void createTables() {
    spark.conf().set(FloeScanBuilder.DATA_COLUMN_RUNTIME_FILTERS, "true");
    sql("CREATE NAMESPACE IF NOT EXISTS floe.rtf");
    sql(
        "CREATE TABLE floe.rtf.facts (k BIGINT, s STRING, d DATE, dec DECIMAL(12, 2),"
            + " ts TIMESTAMP, nostat BIGINT, v BIGINT) USING iceberg TBLPROPERTIES ("
            + " 'write.metadata.metrics.column.nostat'='none',"
            + " 'write.parquet.row-group-size-bytes'='4096',"
            + " 'write.parquet.page-size-bytes'='512',"
            + " 'write.parquet.row-group-check-min-record-count'='10',"
            + " 'write.parquet.row-group-check-max-record-count'='100')");
    for (int file = 0; file < FILES; file++) {
      sql(
          "INSERT INTO floe.rtf.facts " + FACT_ROWS,
          file * ROWS_PER_FILE, (file + 1) * ROWS_PER_FILE);
    }
    spark.sql(String.format(FACT_ROWS, 0, FILES * ROWS_PER_FILE)).createOrReplaceTempView("facts_view");
    sql("CREATE TABLE floe.rtf.dim USING iceberg AS " + DIM_ROWS);
    spark.sql(DIM_ROWS).createOrReplaceTempView("dim_view");
  }

  @AfterEach
  void resetConf() {
    spark.conf().unset("spark.sql.optimizer.dynamicPartitionPruning.enabled");
    spark.conf().unset("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly");
    spark.conf().unset("spark.sql.autoBroadcastJoinThreshold");
  }

  @Test
  void aJoinOnASortedDataColumnReadsOnlyTheFilesHoldingItsKeys() {
    String query = join("k", "'hot'");
    Dataset<Row> df = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));
    List<Row> rows = df.collectAsList();

    assertThat(rows)
        .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
    assertThat(rows).hasSize(3);
    BatchScanExec facts = factScan(df);
    assertThat(facts.runtimeFilters().isEmpty()).isFalse();
    Map<String, Long> metrics = ScanPlans.metrics(facts);
    // keys 2050, 2051 and 5300 lie in two of the eight files; the NULL key matches none
    assertThat(metrics.get(ReaderMetrics.FILES_READ)).isEqualTo(2);
    assertThat(metrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isEqualTo(FILES - 2);
  }

  @Test
  void withoutDynamicPruningTheSameJoinReadsEveryFile() {
    spark.conf().set("spark.sql.optimizer.dynamicPartitionPruning.enabled", "false");
    String query = join("k", "'hot'");
    Dataset<Row> df = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));

    assertThat(df.collectAsList())
        .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
    BatchScanExec facts = factScan(df);
    assertThat(facts.runtimeFilters().isEmpty()).isTrue();
    assertThat(ScanPlans.metrics(facts).get(ReaderMetrics.FILES_READ)).isEqualTo(FILES);
  }

  @Test
  void aShuffleJoinPrunesOnlyWhenSparkMayRunThePruningSubqueryOnItsOwn() {
    String query = join("k", "'hot'");
    spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
    // by default Spark keeps the pruning subquery only where it can reuse a broadcast
    Dataset<Row> shuffled = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));
    assertThat(shuffled.collectAsList())
        .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
    assertThat(ScanPlans.metrics(factScan(shuffled)).get(ReaderMetrics.FILES_READ))
        .isEqualTo(FILES);

    // allowed to run it on its own, Spark does when the fact side is larger than the dimension
    // side by its fallback filter ratio, and the files are pruned as with a broadcast
    spark.conf().set("spark.sql.optimizer.dynamicPartitionPruning.reuseBroadcastOnly", "false");
    Dataset<Row> df = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));
    assertThat(df.collectAsList())
        .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
    assertThat(ScanPlans.metrics(factScan(df)).get(ReaderMetrics.FILES_READ)).isEqualTo(2);
  }

  @Test
  void rowGroupsWhoseStatisticsCannotHoldAKeyAreSkipped() {
    String query = join("k", "'hot'");
    spark.conf().set("spark.sql.optimizer.dynamicPartitionPruning.enabled", "false");
    Dataset<Row> all = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));
    all.collectAsList();
    long everyRowGroup = ScanPlans.metrics(factScan(all)).get(ReaderMetrics.ROW_GROUPS_READ);
    spark.conf().unset("spark.sql.optimizer.dynamicPartitionPruning.enabled");

    Dataset<Row> df = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));
    assertThat(df.collectAsList())
        .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
    long rowGroups = ScanPlans.metrics(factScan(df)).get(ReaderMetrics.ROW_GROUPS_READ);
    // each file holds several row groups of consecutive keys; the two keys of file 2 share one
    // row group and key 5300 lies in one of file 5's
    assertThat(everyRowGroup).isGreaterThan(4L * FILES);
    assertThat(rowGroups).isEqualTo(2);
  }

  @Test
  void aLongKeyListPrunesFilesAndRowGroupsBeyondIcebergsInLimit() {
    // 300 keys, 1000 to 1299, all in file 1: more values than Iceberg's evaluators take
    String query = join("k", "'wide'");
    Dataset<Row> df = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));
    List<Row> rows = df.collectAsList();

    assertThat(rows)
        .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
    assertThat(rows).hasSize(300);
    Map<String, Long> metrics = ScanPlans.metrics(factScan(df));
    assertThat(metrics.get(ReaderMetrics.FILES_READ)).isEqualTo(1);
    assertThat(metrics.get(DriverMetrics.SKIPPED_DATA_FILES)).isEqualTo(FILES - 1);
  }

  @Test
  void stringDateDecimalAndTimestampKeysPruneLikeNumbers() {
    for (String column : List.of("s", "d", "dec", "ts")) {
      String query = join(column, "'hot'");
      Dataset<Row> df = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));
      List<Row> rows = df.collectAsList();

      assertThat(rows)
          .as(column)
          .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
      assertThat(rows).as(column).isNotEmpty();
      BatchScanExec facts = factScan(df);
      assertThat(facts.runtimeFilters().isEmpty()).as(column).isFalse();
      assertThat(ScanPlans.metrics(facts).get(ReaderMetrics.FILES_READ)).as(column).isEqualTo(2);
    }
  }

  @Test
  void nullKeysOnEitherSideMatchNothingAndPruneNothingWrongly() {
    // the dimension's NULL key is 'hot' too; the fact table's NULL keys are in file 7
    String query =
        "SELECT f.k, f.v FROM %s f JOIN %s m ON f.k <=> m.k WHERE m.tag = 'hot'";
    Dataset<Row> df = spark.sql(query.formatted("floe.rtf.facts", "floe.rtf.dim"));

    assertThat(df.collectAsList())
        .containsExactlyInAnyOrderElementsOf(sql(query.formatted("facts_view", "dim_view")));
  }

  @Test
  void anInListWithNullKeepsOnlyFilesHoldingItsValues() {
    FloeScan scan = plannedScan();
    scan.filter(
        new Predicate[] {
          new Predicate(
              "IN",
              new org.apache.spark.sql.connector.expressions.Expression[] {
                FieldReference.apply("k"),
                new LiteralValue<>(3500L, DataTypes.LongType),
                new LiteralValue<>(null, DataTypes.LongType)
              })
        });

    // 3500 lies in file 3 only; NULL matches no row
    Set<String> kept = files(scan.readPartitions());
    assertThat(kept).hasSize(1);
    assertThat(kept).containsExactlyElementsOf(files(List.of(fileHolding(scan, 3500L))));
  }

  @Test
  void runtimeFilteredPartitionsTravelAndReadTheSameRows() {
    FloeScan scan = plannedScan();
    scan.filter(new Predicate[] {keyIn(2050L, 2051L, 5300L)});
    FloeBatch batch = (FloeBatch) scan.toBatch();
    List<List<Object>> original =
        Travel.read(batch.readerFactory(), batch.partitions(), scan.readSchema());

    assertThat(batch.partitions())
        .allSatisfy(
            partition ->
                assertThat(partition.tasks()).allMatch(RuntimeFilteredTask.class::isInstance));
    // the rows of the row groups holding the three keys, in the two kept files: Spark filters the
    // rest after the scan
    List<Object> keys = new ArrayList<>();
    original.forEach(row -> keys.add(row.get(0)));
    assertThat(keys).contains(2050L, 2051L, 5300L).hasSizeLessThan(ROWS_PER_FILE / 2);
    for (UnaryOperator<FloeInputPartition> travel :
        List.<UnaryOperator<FloeInputPartition>>of(Travel::throughJava, Travel::throughKryo)) {
      List<FloeInputPartition> travelled = new ArrayList<>();
      batch.partitions().forEach(partition -> travelled.add(travel.apply(partition)));
      assertThat(Travel.read(batch.readerFactory(), travelled, scan.readSchema()))
          .isEqualTo(original);
    }
  }

  @Test
  void aRuntimeFilterOnAColumnWithoutStatisticsKeepsEveryFile() {
    FloeScan scan = plannedScan();
    Set<String> offered = new HashSet<>();
    for (NamedReference reference : scan.filterAttributes()) {
      offered.add(String.join(".", reference.fieldNames()));
    }
    assertThat(offered).contains("k", "s", "d", "dec", "ts", "v").doesNotContain("nostat");

    scan.filter(
        new Predicate[] {
          new Predicate(
              "IN",
              new org.apache.spark.sql.connector.expressions.Expression[] {
                FieldReference.apply("nostat"), new LiteralValue<>(3500L, DataTypes.LongType)
              })
        });
    assertThat(files(scan.readPartitions())).hasSize(FILES);
    assertThat(
            spark
                .sql("SELECT count(*) FROM floe.rtf.facts f JOIN floe.rtf.dim m"
                    + " ON f.nostat = m.nostat WHERE m.tag = 'hot'")
                .collectAsList())
        .isEqualTo(
            sql("SELECT count(*) FROM facts_view f JOIN dim_view m"
                + " ON f.nostat = m.nostat WHERE m.tag = 'hot'"));
  }

  private static Predicate keyIn(long... keys) {
    org.apache.spark.sql.connector.expressions.Expression[] children =
        new org.apache.spark.sql.connector.expressions.Expression[keys.length + 1];
    children[0] = FieldReference.apply("k");
    for (int pos = 0; pos < keys.length; pos++) {
      children[pos + 1] = new LiteralValue<>(keys[pos], DataTypes.LongType);
    }
    return new Predicate("IN", children);
  }

  /** A join of the fact table with the dimension on {@code column}, the dimension filtered. */
  private static String join(String column, String tag) {
    return "SELECT f.k, f.s, f.d, f.dec, f.ts, f.v FROM %s f JOIN %s m ON f."
        + column + " = m." + column + " WHERE m.tag = " + tag;
  }

  private static FloeScan plannedScan() {
    return (FloeScan) scanNode().scan();
  }

  private static BatchScanExec scanNode() {
    Dataset<Row> df = spark.sql("SELECT k, s, d, dec, ts, nostat, v FROM floe.rtf.facts");
    return ScanPlans.floeScanNodes(df).get(0);
  }

  private static BatchScanExec factScan(Dataset<Row> df) {
    return ScanPlans.floeScanNodes(df).stream()
        .filter(scan -> ((FloeScan) scan.scan()).tableName().endsWith("rtf.facts"))
        .findFirst()
        .orElseThrow();
  }

  private static Set<String> files(List<FloeInputPartition> partitions) {
    Set<String> files = new HashSet<>();
    for (FloeInputPartition partition : partitions) {
      for (ScanTask task : partition.tasks()) {
        files.add(task.asFileScanTask().file().location());
      }
    }
    return files;
  }

  /** The planned input partition whose file's key bounds hold {@code key}. */
  private static FloeInputPartition fileHolding(FloeScan scan, long key) {
    int keyId = scan.tableSchema().findField("k").fieldId();
    for (FloeInputPartition partition : scan.partitions()) {
      for (ScanTask task : partition.tasks()) {
        org.apache.iceberg.DataFile file = task.asFileScanTask().file();
        long lower = org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.LongType.get(), file.lowerBounds().get(keyId));
        long upper = org.apache.iceberg.types.Conversions.fromByteBuffer(
            org.apache.iceberg.types.Types.LongType.get(), file.upperBounds().get(keyId));
        if (lower <= key && key <= upper) {
          return new FloeInputPartition(0, List.of(task), null);
        }
      }
    }
    throw new AssertionError("No file holds " + key);
  }
}
