package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every CALL shares: finding the procedure, checking the arguments when Spark binds the call,
 * and resolving the table argument; every failure leaves the table as it was.
 */
class ProcedureCallTest extends ProcedureTestBase {
  private static final String TABLE = "db.calls";
  private long first;
  private String metadataBefore;

  @BeforeEach
  void createCalls() {
    createTable(TABLE);
    first = append(TABLE, 1);
    append(TABLE, 2);
    metadataBefore = metadataLocation();
  }

  private static String metadataLocation() {
    return ((org.apache.iceberg.HasTableOperations) icebergTable(TABLE))
        .operations()
        .current()
        .metadataFileLocation();
  }

  private void assertUnchanged() {
    assertThat(metadataLocation()).isEqualTo(metadataBefore);
    assertThat(ids(TABLE)).containsExactly(1L, 2L);
  }

  @Test
  void unknownProcedureFailsNamingItAndListingTheKnownOnes() {
    assertThatThrownBy(() -> call("no_such_thing('%s')", TABLE))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("Cannot find procedure floe.system.no_such_thing; known procedures: ")
        .hasMessageContaining("ancestors_of, cherrypick_snapshot, ")
        .hasMessageContaining("rollback_to_snapshot");
    assertUnchanged();
  }

  @Test
  void procedureOutsideTheSystemNamespaceIsNotFound() {
    assertThatThrownBy(() -> spark.sql("CALL floe.db.rollback_to_snapshot('db.calls', 1)"))
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("Cannot find procedure floe.db.rollback_to_snapshot")
        .hasMessageContaining("namespace system");
  }

  @Test
  void procedureNamesAreCaseInsensitive() {
    assertThat(call("ROLLBACK_TO_SNAPSHOT('%s', %d)", TABLE, first).collectAsList()).hasSize(1);
    assertThat(ids(TABLE)).containsExactly(1L);
  }

  @Test
  void catalogListsEveryProcedureInTheSystemNamespaceOnly() {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog(CATALOG);
    String names =
        Arrays.stream(catalog.listProcedures(new String[] {"system"}))
            .map(Identifier::name)
            .collect(Collectors.joining(","));
    assertThat(names)
        .isEqualTo(
            "add_files,ancestors_of,cherrypick_snapshot,compute_partition_stats,"
                + "compute_table_stats,create_changelog_view,expire_snapshots,fast_forward,migrate,"
                + "publish_changes,register_table,remove_orphan_files,rewrite_data_files,"
                + "rewrite_manifests,rewrite_position_delete_files,rewrite_table_path,"
                + "rollback_to_snapshot,rollback_to_timestamp,"
                + "set_current_snapshot,snapshot");
    assertThat(catalog.listProcedures(new String[] {"db"})).isEmpty();
  }

  @Test
  void missingRequiredArgumentFailsNamingIt() {
    assertThatThrownBy(() -> call("rollback_to_snapshot('%s')", TABLE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: missing required argument "
                + "'snapshot_id' (BIGINT)");
    assertUnchanged();
  }

  @Test
  void requiredArgumentGivenAsNullFailsNamingIt() {
    assertThatThrownBy(
            () -> call("rollback_to_snapshot(table => '%s', snapshot_id => NULL)", TABLE))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: argument 'snapshot_id' is required "
                + "and must not be NULL");
    assertUnchanged();
  }

  @Test
  void mistypedArgumentFailsNamingIt() {
    assertThatThrownBy(
            () -> call("rollback_to_snapshot(table => '%s', snapshot_id => array(1))", TABLE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: argument 'snapshot_id' must be "
                + "BIGINT, not ARRAY<INT>");
    assertThatThrownBy(() -> call("rollback_to_snapshot(array('x'), %d)", first))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: argument 'table' must be STRING, "
                + "not ARRAY<STRING>");
    assertUnchanged();
  }

  @Test
  void argumentsSparkCanCastAreAccepted() {
    call("rollback_to_snapshot(table => '%s', snapshot_id => '%d')", TABLE, first).collectAsList();
    assertThat(ids(TABLE)).containsExactly(1L);
  }

  @Test
  void unknownArgumentNameFailsNamingItAndListingTheParameters() {
    assertThatThrownBy(() -> call("rollback_to_snapshot(table => '%s', snapshot => 1)", TABLE))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: unknown argument 'snapshot'; its "
                + "arguments are table, snapshot_id");
    assertUnchanged();
  }

  @Test
  void argumentGivenTwiceOrTooManyArgumentsFail() {
    assertThatThrownBy(() -> call("rollback_to_snapshot('%s', %d, table => 'x')", TABLE, first))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: argument 'table' is given twice");
    assertThatThrownBy(() -> call("rollback_to_snapshot('%s', %d, 3)", TABLE, first))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: it takes at most 2 arguments "
                + "(table, snapshot_id), got 3");
    assertUnchanged();
  }

  @Test
  void tableArgumentResolvesInThisCatalog() {
    call("rollback_to_snapshot('floe.%s', %d)", TABLE, first).collectAsList();
    assertThat(ids(TABLE)).containsExactly(1L);
  }

  @Test
  void tableArgumentOfAnotherCatalogFailsNamingTheCatalog() {
    assertThatThrownBy(() -> call("rollback_to_snapshot('spark_catalog.%s', %d)", TABLE, first))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot in catalog 'floe': "
                + "'spark_catalog.db.calls' is a table in catalog 'spark_catalog'");
    assertUnchanged();
  }

  @Test
  void singlePartTableArgumentUsesTheCurrentNamespaceOfThisCatalog() {
    String previousCatalog = spark.sessionState().catalogManager().currentCatalog().name();
    try {
      sql("USE floe.db");
      call("rollback_to_snapshot('calls', %d)", first).collectAsList();
    } finally {
      sql("USE %s", previousCatalog);
    }
    assertThat(ids(TABLE)).containsExactly(1L);
  }

  @Test
  void missingOrEmptyTableFailsNamingIt() {
    assertThatThrownBy(() -> call("rollback_to_snapshot('db.missing', 1)"))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: table `floe`.`db`.`missing` does not "
                + "exist");
    assertThatThrownBy(() -> call("rollback_to_snapshot('', 1)"))
        .hasMessage(
            "Cannot call floe.system.rollback_to_snapshot: argument 'table' is an empty table "
                + "name");
    assertThatThrownBy(() -> call("rollback_to_snapshot('db.`unclosed', 1)"))
        .hasMessageStartingWith(
            "Cannot call floe.system.rollback_to_snapshot: cannot parse argument 'table' as a "
                + "table name: db.`unclosed");
  }

  @Test
  void migrateWithoutFloesSessionCatalogNamesWhatIsMissingAndChangesNothing() {
    sql("CREATE TABLE IF NOT EXISTS spark_catalog.default.plain_parquet (id BIGINT) USING parquet");
    try {
      assertThatThrownBy(() -> call("migrate('default.plain_parquet')").collectAsList())
          .hasMessage(
              "Cannot call floe.system.migrate: migrate replaces a table of the session catalog by "
                  + "an Iceberg table, so spark.sql.catalog.spark_catalog must be "
                  + "io.floe.spark.FloeSessionCatalog; it is "
                  + "org.apache.spark.sql.execution.datasources.v2.V2SessionCatalog");
      assertThat(spark.catalog().tableExists("default.plain_parquet")).isTrue();
      assertThat(spark.catalog().tableExists("default.plain_parquet_BACKUP_")).isFalse();
    } finally {
      sql("DROP TABLE IF EXISTS spark_catalog.default.plain_parquet");
    }
  }

  @Test
  void snapshotReadsATableOfSparksOwnSessionCatalog() {
    sql("CREATE TABLE IF NOT EXISTS spark_catalog.default.snap_source (id BIGINT, data STRING) "
        + "USING parquet");
    sql("INSERT INTO spark_catalog.default.snap_source SELECT id, concat('v', id) FROM range(0, 50)");
    sql("DROP TABLE IF EXISTS %s.db.snap_copy", CATALOG);
    try {
      long files =
          call("snapshot('spark_catalog.default.snap_source', 'db.snap_copy')").collectAsList()
              .get(0).getLong(0);
      assertThat(files).isEqualTo(spark.table("spark_catalog.default.snap_source").inputFiles().length);
      String copy = CATALOG + ".db.snap_copy";
      String source = "spark_catalog.default.snap_source";
      assertThat(sql("SELECT * FROM %s EXCEPT ALL SELECT * FROM %s", copy, source)).isEmpty();
      assertThat(sql("SELECT * FROM %s EXCEPT ALL SELECT * FROM %s", source, copy)).isEmpty();
      assertThat(sql("SELECT count(*) FROM %s", copy).get(0).getLong(0)).isEqualTo(50L);
    } finally {
      sql("DROP TABLE IF EXISTS spark_catalog.default.snap_source");
      sql("DROP TABLE IF EXISTS %s.db.snap_copy", CATALOG);
    }
  }
}
