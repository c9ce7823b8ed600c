package io.floe.spark.read;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Format v3 row lineage and default values between Floe and the official runtime, each in its own
 * JVM over one warehouse: the official runtime reads the {@code _row_id}s, sequence numbers and
 * initial defaults of a table Floe wrote and altered, and Floe reads the row ids of the official
 * runtime's appends, each seeing the same rows as the other.
 */
class V3InteropTest extends SparkTestBase {
  private static final String LINEAGE =
      "SELECT id, c, _row_id, _last_updated_sequence_number FROM %s";

  /** One official-runtime JVM for the class's checks (a JVM start costs several seconds). */
  private static OfficialRuntime.Session official;

  @BeforeAll
  static void createNamespace() throws IOException {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.interop_v3");
    official = OfficialRuntime.session(warehouse);
  }

  @AfterAll
  static void stopOfficialRuntime() throws IOException, InterruptedException {
    official.close();
  }

  @Test
  void officialRuntimeAndFloeAgreeOnRowLineageAndDefaults() throws Exception {
    assertThat(OfficialRuntime.RUNTIME_JAR).as("the official runtime jar the build copies").exists();
    sql("CREATE TABLE floe.interop_v3.t (id INT) USING iceberg PARTITIONED BY (bucket(2, id)) "
        + "TBLPROPERTIES ('format-version'='3')");
    sql("INSERT INTO floe.interop_v3.t VALUES (1), (2), (3), (4)");
    sql("INSERT INTO floe.interop_v3.t VALUES (5), (6)");
    sql("ALTER TABLE floe.interop_v3.t ADD COLUMN c INT DEFAULT 7");
    sql("INSERT INTO floe.interop_v3.t (id) VALUES (8)");

    List<String> floe = canonicalRows(sql(LINEAGE, "floe.interop_v3.t"));
    assertThat(floe).hasSize(7).allMatch(row -> row.split(", ")[1].equals("7"));
    assertThat(floe.stream().map(row -> row.split(", ")[2]).distinct()).as("unique row ids").hasSize(7);
    assertThat(official.run(String.format(LINEAGE, "off.interop_v3.t")))
        .as("the official runtime reads Floe's row ids and defaults")
        .isEqualTo(floe);

    official.run("INSERT INTO off.interop_v3.t VALUES (10, 11), (12, 13)");
    List<String> afterOfficial = canonicalRows(sql(LINEAGE, "floe.interop_v3.t"));
    assertThat(afterOfficial).hasSize(9).containsAll(floe);
    assertThat(official.run(String.format(LINEAGE, "off.interop_v3.t")))
        .as("Floe reads the official runtime's appends as it does")
        .isEqualTo(afterOfficial);
  }

  @Test
  void officialRuntimeReadsTheLineageFloesRewritesKept() throws Exception {
    String lineage = "SELECT id, v, _row_id, _last_updated_sequence_number FROM %s";
    sql("CREATE TABLE floe.interop_v3.rewritten (id INT, v INT) USING iceberg "
        + "PARTITIONED BY (bucket(2, id)) TBLPROPERTIES ('format-version'='3', "
        + "'write.update.mode'='copy-on-write', 'write.merge.mode'='merge-on-read')");
    sql("INSERT INTO floe.interop_v3.rewritten SELECT id, id FROM range(0, 10) t(id)");
    sql("INSERT INTO floe.interop_v3.rewritten SELECT id, id FROM range(10, 16) t(id)");
    List<String> inserted = canonicalRows(sql(lineage, "floe.interop_v3.rewritten"));
    sql("UPDATE floe.interop_v3.rewritten SET v = v + 100 WHERE id %% 3 = 0");
    sql("MERGE INTO floe.interop_v3.rewritten t USING (SELECT id FROM range(4, 20, 4) s(id)) s "
        + "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = -1 "
        + "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 0)");
    sql("CALL floe.system.rewrite_data_files(table => 'interop_v3.rewritten', "
        + "options => map('rewrite-all', 'true'))");

    List<String> floe = canonicalRows(sql(lineage, "floe.interop_v3.rewritten"));
    assertThat(floe.stream().map(row -> row.split(", ")[2]).distinct()).as("unique row ids").hasSize(17);
    assertThat(floe.stream().filter(row -> Integer.parseInt(row.substring(1, row.indexOf(','))) < 16)
            .map(row -> row.split(", ")[2]).sorted().toList())
        .as("the 16 first rows kept their ids through the rewrites")
        .isEqualTo(inserted.stream().map(row -> row.split(", ")[2]).sorted().toList());
    assertThat(official.run(String.format(lineage, "off.interop_v3.rewritten")))
        .as("the official runtime reads the lineage Floe's rewrites wrote")
        .isEqualTo(floe);
  }
}
