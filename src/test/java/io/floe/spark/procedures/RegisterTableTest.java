package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.TestCatalog;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** {@code register_table} on a JDBC catalog: an existing table's metadata under a new name. */
class RegisterTableTest extends ProcedureTestBase {
  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }

  private static String metadataFile(String name) {
    return ((HasTableOperations) icebergTable(name)).operations().current().metadataFileLocation();
  }

  @Test
  void registersAnExistingTablesMetadataUnderANewName() throws java.io.IOException {
    createTable("db.original");
    append("db.original", 1, 2);
    long current = append("db.original", 3);
    String metadata = metadataFile("db.original");
    long files = 0;
    try (var tasks = icebergTable("db.original").newScan().planFiles()) {
      for (var ignored : tasks) {
        files++;
      }
    }
    sql("DROP TABLE IF EXISTS %s.db.registered", CATALOG);

    Dataset<Row> result =
        call("register_table(table => 'db.registered', metadata_file => '%s')", metadata);

    assertSchema(
        result.schema(),
        column("current_snapshot_id", DataTypes.LongType, true),
        column("total_records_count", DataTypes.LongType, true),
        column("total_data_files_count", DataTypes.LongType, true));
    assertThat(result.collectAsList()).containsExactly(row(current, 3L, files));
    Table registered = icebergTable("db.registered");
    assertThat(registered.currentSnapshot().snapshotId()).isEqualTo(current);
    assertThat(ids("db.registered")).containsExactly(1L, 2L, 3L);
  }

  @Test
  void registeringATableWithoutSnapshotsReturnsNulls() {
    createTable("db.empty_original");
    String metadata = metadataFile("db.empty_original");
    sql("DROP TABLE IF EXISTS %s.db.empty_registered", CATALOG);
    assertThat(call("register_table('db.empty_registered', '%s')", metadata).collectAsList())
        .containsExactly(row(null, null, null));
  }

  @Test
  void registeringOverAnExistingTableOrWithoutAFileFails() {
    createTable("db.taken");
    long current = append("db.taken", 7);
    createTable("db.other");
    String metadata = metadataFile("db.other");
    assertThatThrownBy(() -> call("register_table('db.taken', '%s')", metadata).collectAsList())
        .hasMessageContaining("Table already exists: db.taken");
    assertThatThrownBy(() -> call("register_table('db.new_one', '')").collectAsList())
        .hasMessage("Cannot call floe.system.register_table: argument 'metadata_file' is empty");
    assertThat(icebergTable("db.taken").currentSnapshot().snapshotId()).isEqualTo(current);
    assertThat(ids("db.taken")).containsExactly(7L);
  }
}
