package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.read.ReadTestSupport;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code rewrite_data_files} bin-packing 200 small files (one snapshot of 200,000 rows) into a few:
 * the rows stay the same (checked against a temp view taken before) and the call's time is logged.
 */
class RewriteDataFilesScaleTest extends ProcedureTestBase {
  private static final Logger LOG = LoggerFactory.getLogger(RewriteDataFilesScaleTest.class);
  private static final String TABLE = "db.many";

  @Test
  void binpacksTwoHundredSmallFilesIntoAFew() {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING, value DOUBLE) USING iceberg", CATALOG, TABLE);
    sql(
        "INSERT INTO %s.%s SELECT /*+ REPARTITION(200) */ id, concat('row-', CAST(id AS STRING)), "
            + "id * 0.5 FROM range(0, 200000)",
        CATALOG, TABLE);
    List<DataFile> before = ReadTestSupport.dataFiles(icebergTable(TABLE));
    assertThat(before).hasSize(200);
    spark
        .createDataFrame(spark.table(CATALOG + "." + TABLE).collectAsList(),
            spark.table(CATALOG + "." + TABLE).schema())
        .createOrReplaceTempView("many_before");

    long start = System.nanoTime();
    List<Row> result =
        call(
                "rewrite_data_files(table => '%s', options => map('target-file-size-bytes', '%d'))",
                TABLE, 1024L * 1024)
            .collectAsList();
    long millis = (System.nanoTime() - start) / 1_000_000;

    List<DataFile> after = ReadTestSupport.dataFiles(icebergTable(TABLE));
    LOG.warn("rewrite_data_files bin-packed {} files into {} in {} ms", before.size(), after.size(),
        millis);
    System.out.printf("MEASURE rewrite_data_files %d -> %d files: %d ms%n", before.size(),
        after.size(), millis);
    assertThat(result.get(0).getInt(0)).isEqualTo(200);
    assertThat(after.size()).isBetween(1, 10);
    assertThat(sql("SELECT * FROM %s.%s EXCEPT ALL SELECT * FROM many_before", CATALOG, TABLE))
        .isEmpty();
    assertThat(sql("SELECT * FROM many_before EXCEPT ALL SELECT * FROM %s.%s", CATALOG, TABLE))
        .isEmpty();
  }
}
