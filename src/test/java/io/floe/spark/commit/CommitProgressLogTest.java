package io.floe.spark.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the driver logs at INFO while it commits, so that a long commit of many files can be
 * followed: how many data files, records and bytes it commits, where and with which commit id,
 * and how long it took.
 */
class CommitProgressLogTest extends SparkTestBase {
  private static Level previous;

  @BeforeAll
  static void logCommitterAtInfo() {
    previous = LogManager.getLogger(Committer.class).getLevel();
    Configurator.setLevel(Committer.class.getName(), Level.INFO);
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.progress (id BIGINT, kind STRING) USING iceberg PARTITIONED BY (kind)");
  }

  @AfterAll
  static void restoreLevel() {
    Configurator.setLevel(Committer.class.getName(), previous);
  }

  @Test
  void commitLogsItsFileRecordAndByteCountsAndItsDuration() throws Exception {
    try (LogCapture log = new LogCapture(Committer.class)) {
      spark.sql("SELECT CAST(id AS BIGINT) AS id, IF(id < 2, 'a', 'b') AS kind FROM range(0, 5)")
          .coalesce(1)
          .writeTo("floe.db.progress")
          .option("commit-id", "progress-1")
          .append();

      Row files = sql("SELECT count(*), sum(file_size_in_bytes) FROM floe.db.progress.files").get(0);
      assertThat(files.getLong(0)).isEqualTo(2);
      assertThat(log.at(Level.INFO))
          .contains(
              "Committing 2 data files (5 records, " + files.getLong(1)
                  + " bytes) to floe.db.progress as APPEND with commit id progress-1")
          .anySatisfy(line -> assertThat(line).matches("Commit progress-1 to floe\\.db\\.progress took \\d+ ms"));
    }
  }
}
