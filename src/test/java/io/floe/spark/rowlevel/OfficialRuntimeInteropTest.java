package io.floe.spark.rowlevel;

import static io.floe.spark.read.ReadTestSupport.canonicalRows;
import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.SparkTestBase;
import io.floe.spark.read.OfficialRuntime;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Interop with the official runtime ({@code iceberg-spark-runtime-4.1_2.13}), run in its own JVM
 * over the same warehouse: it reads Floe's merge-on-read deletes (position deletes on v2, deletion
 * vectors on v3) and sees the same rows as Floe; and Floe reads the deletes the official runtime's
 * own merge-on-read DELETE writes, then deletes more rows of the same files on top of them, which
 * the official runtime reads back.
 */
class OfficialRuntimeInteropTest extends SparkTestBase {
  /** One official-runtime JVM for the class's checks (a JVM start costs several seconds). */
  private static OfficialRuntime.Session official;

  @BeforeAll
  static void createNamespace() throws IOException {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.interop_mor");
    official = OfficialRuntime.session(warehouse);
  }

  @AfterAll
  static void stopOfficialRuntime() throws IOException, InterruptedException {
    official.close();
  }

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void officialRuntimeAndFloeReadEachOthersDeletes(int formatVersion) throws Exception {
    assertThat(OfficialRuntime.RUNTIME_JAR).as("the official runtime jar the build copies").exists();
    MergeOnReadTables t =
        MergeOnReadTables.create(
            spark, "interop_mor.t_v" + formatVersion, formatVersion, true, Map.of());
    sql("DELETE FROM %s WHERE id %% 4 = 0", t.table());
    sql("UPDATE %s SET val = -1 WHERE id %% 4 = 1", t.table());
    String official = "off.interop_mor.t_v" + formatVersion;

    assertThat(official("SELECT id, dep, val FROM " + official))
        .as("the official runtime reads Floe's deletes")
        .isEqualTo(floeRows(t));

    // the official runtime deletes rows of the same data files, then Floe deletes more on top
    official("DELETE FROM " + official + " WHERE id % 4 = 2");
    assertThat(floeRows(t))
        .isEqualTo(
            canonicalRows(
                spark
                    .sql(
                        "SELECT id, dep, CASE WHEN coalesce(id % 4 = 1, false) THEN -1 ELSE val END"
                            + " FROM " + MergeOnReadTables.VIEW
                            + " WHERE NOT coalesce(id % 4 = 0 OR id % 4 = 2, false)")
                    .collectAsList()));
    sql("DELETE FROM %s WHERE id %% 4 = 3", t.table());
    t.assertOneDeleteFilePerDataFile();
    assertThat(official("SELECT id, dep, val FROM " + official)).isEqualTo(floeRows(t));
    assertThat(t.genericRows()).isEqualTo(floeRows(t));
  }

  private static List<String> floeRows(MergeOnReadTables t) {
    return canonicalRows(spark.sql("SELECT id, dep, val FROM " + t.table()).collectAsList());
  }

  /** Runs statements in the official runtime over this test's warehouse (see {@link OfficialRuntime#run}). */
  private static List<String> official(String... statements) throws IOException, InterruptedException {
    return official.run(statements);
  }
}
