package io.floe.spark.distributed;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The statements the distributed suite runs in local mode and on a cluster, and the queries whose
 * results must agree: partitioned writes and reads, appends, a dynamic partition overwrite, CTAS
 * and metadata queries. Results hold only values that do not depend on where tasks ran (no
 * snapshot ids, timestamps or file names).
 */
final class Scenario {
  private Scenario() {}

  /** Runs the scenario in catalog {@code floe} and returns each query's rows by its name. */
  static Map<String, List<List<Object>>> run(SparkSession spark) {
    Map<String, List<List<Object>>> results = new LinkedHashMap<>();
    exec(spark, "CREATE NAMESPACE floe.db");
    exec(spark, "CREATE TABLE floe.db.events (id BIGINT, category STRING, day DATE, amount DOUBLE)"
        + " USING iceberg PARTITIONED BY (category, bucket(4, id))");
    exec(spark, "INSERT INTO floe.db.events " + events(0, 20_000, 6));
    exec(spark, "INSERT INTO floe.db.events " + events(20_000, 30_000, 3));
    results.put("grouped by partition", Cluster.rows(spark,
        "SELECT category, count(*), sum(id), min(day), max(day), sum(amount)"
            + " FROM floe.db.events GROUP BY category ORDER BY category"));
    results.put("partition filter", Cluster.rows(spark,
        "SELECT id, day, amount FROM floe.db.events WHERE category = 'b' AND id BETWEEN 100 AND 160"
            + " ORDER BY id"));
    results.put("data filter", Cluster.rows(spark,
        "SELECT category, count(*) FROM floe.db.events WHERE day = DATE '2024-01-03'"
            + " AND amount > 1000 GROUP BY category ORDER BY category"));

    spark.conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
    exec(spark, "INSERT OVERWRITE floe.db.events SELECT id, category, day, amount * 2"
        + " FROM floe.db.events WHERE category = 'a'");
    spark.conf().unset("spark.sql.sources.partitionOverwriteMode");
    results.put("after dynamic overwrite", Cluster.rows(spark,
        "SELECT category, count(*), sum(amount) FROM floe.db.events GROUP BY category ORDER BY category"));

    exec(spark, "CREATE TABLE floe.db.daily USING iceberg PARTITIONED BY (day) AS"
        + " SELECT day, category, count(*) AS n, sum(amount) AS total FROM floe.db.events"
        + " GROUP BY day, category");
    results.put("ctas", Cluster.rows(spark,
        "SELECT day, category, n, total FROM floe.db.daily ORDER BY day, category"));

    results.put("snapshots", Cluster.rows(spark,
        "SELECT operation, summary['added-records'], summary['deleted-records'], summary['total-records']"
            + " FROM floe.db.events.snapshots ORDER BY committed_at"));
    results.put("files", Cluster.rows(spark,
        "SELECT partition.category, sum(record_count) FROM floe.db.events.files"
            + " GROUP BY partition.category ORDER BY 1"));
    results.put("ctas snapshots", Cluster.rows(spark,
        "SELECT operation, summary['total-records'] FROM floe.db.daily.snapshots"));
    return results;
  }

  /** Generated rows: ids in [from, to), spread over three categories and five days. */
  private static String events(long from, long to, int slices) {
    return String.format(
        "SELECT id, CASE id %% 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' ELSE 'c' END,"
            + " date_add(DATE '2024-01-01', CAST(id %% 5 AS INT)), id * 0.25"
            + " FROM range(%d, %d, 1, %d)",
        from, to, slices);
  }

  private static void exec(SparkSession spark, String statement) {
    spark.sql(statement).collectAsList();
  }
}
