package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.CatalogTestBase;
import io.floe.spark.catalog.TestCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The write options {@code check-nullability} and {@code check-ordering} through Spark: accepted,
 * read from the official runtime's session confs too, and with the nullability check off a NULL in a
 * required column still fails the write and commits nothing.
 */
class CheckOptionsTest extends CatalogTestBase {

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.HADOOP;
  }

  @BeforeAll
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.db");
    sql("CREATE TABLE floe.db.checks (id BIGINT NOT NULL, data STRING) USING iceberg");
  }

  @AfterEach
  void unsetConfs() {
    spark.conf().unset("spark.sql.iceberg.check-nullability");
  }

  @Test
  void bothChecksOffStillWriteMatchingRows() throws Exception {
    spark.sql("SELECT 1L AS id, 'a' AS data")
        .writeTo("floe.db.checks")
        .option("check-nullability", "false")
        .option("check-ordering", "false")
        .append();

    assertThat(sql("SELECT id, data FROM floe.db.checks WHERE id = 1")).containsExactly(row(1L, "a"));
  }

  @Test
  void withNullabilityCheckOffANullInARequiredColumnStillFailsAndCommitsNothing() {
    spark.conf().set("spark.sql.iceberg.check-nullability", "false");
    int before = snapshots("db.checks").size();

    assertThatThrownBy(
            () -> sql("INSERT INTO floe.db.checks SELECT CAST(NULL AS BIGINT), 'x'"))
        .hasStackTraceContaining("NULL")
        .hasStackTraceContaining("id");

    assertThat(snapshots("db.checks")).hasSize(before);
  }

  @Test
  void aCheckValueThatIsNotABooleanFailsNamingTheOption() {
    assertThatThrownBy(
            () ->
                spark.sql("SELECT 2L AS id, 'b' AS data")
                    .writeTo("floe.db.checks")
                    .option("check-ordering", "maybe")
                    .append())
        .hasMessageContaining("floe.db.checks")
        .hasMessageContaining("check-ordering")
        .hasMessageContaining("maybe");
  }
}
