package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.FloeSessionCatalog;
import io.floe.spark.commit.Committer;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.junit.jupiter.api.Test;

/**
 * {@code snapshot} and {@code migrate} in a session whose {@code spark_catalog} is {@link
 * FloeSessionCatalog} over a JDBC catalog, beside a FloeCatalog {@code floe}: the Iceberg table
 * reads the source's rows (Spark's own Parquet reader is the oracle) from the source's files, the
 * files are counted, a snapshot leaves the source as it was, a migration keeps (or drops) an
 * external backup without ever deleting a file, and bad input or a failure midway leaves the
 * source as it was and no Iceberg table behind.
 */
class SnapshotAndMigrateTest extends ImportTestBase {
  @Override
  protected String name() {
    return "floe-snapshot-migrate-tests";
  }

  /**
   * Creates {@code db.<name>} USING parquet, partitioned by cat, written by Spark in a few
   * inserts, and keeps its rows, as Spark's own reader returns them, in the view {@code expected}.
   */
  private void createParquetSource(String name) {
    sql("CREATE TABLE db.%s (id BIGINT, data STRING, cat STRING) USING parquet PARTITIONED BY (cat)", name);
    for (int i = 0; i < 3; i++) {
      sql(
          "INSERT INTO db.%s SELECT id, CASE WHEN id %% 7 = 0 THEN NULL ELSE concat('v', id) END, "
              + "CASE WHEN id %% 3 = 0 THEN 'a' WHEN id %% 3 = 1 THEN 'b' ELSE NULL END "
              + "FROM range(%d, %d)",
          name, i * 40, i * 40 + 40);
    }
    Dataset<Row> rows = spark.sql("SELECT id, data, cat FROM db." + name);
    spark.createDataFrame(rows.collectAsList(), rows.schema()).createOrReplaceTempView("expected");
  }

  private void assertRowsEqualExpected(String table) {
    assertThat(sql("SELECT id, data, cat FROM %s EXCEPT ALL SELECT * FROM expected", table)).isEmpty();
    assertThat(sql("SELECT * FROM expected EXCEPT ALL SELECT id, data, cat FROM %s", table)).isEmpty();
    assertThat(sql("SELECT count(*) FROM %s", table).get(0).getLong(0)).isEqualTo(120L);
  }

  private static StructField column(String name) {
    return new StructField(name, DataTypes.LongType, false, Metadata.empty());
  }

  @Test
  void aSnapshotReadsTheSourcesRowsFromItsFilesAndLeavesTheSourceUnchanged() throws IOException {
    createParquetSource("src");
    URI sourceLocation = builtIn("src").location();
    Set<Path> sourceFiles = dataFiles(sourceLocation, "parquet");

    Dataset<Row> result = spark.sql("CALL spark_catalog.system.snapshot('db.src', 'db.snap')");

    assertThat(result.schema().fields()).containsExactly(column("imported_files_count"));
    assertThat(result.collectAsList()).containsExactly(RowFactory.create((long) sourceFiles.size()));
    assertRowsEqualExpected("db.snap");
    Table snap = sessionIceberg().loadTable(TableIdentifier.of("db", "snap"));
    assertThat(snap.properties())
        .containsEntry(TableProperties.GC_ENABLED, "false")
        .containsEntry("snapshot", "true")
        .containsKey(TableProperties.DEFAULT_NAME_MAPPING);
    assertThat(snap.currentSnapshot().summary()).containsKey(Committer.COMMIT_ID_KEY);
    assertThat(snap.spec().fields()).singleElement()
        .satisfies(field -> assertThat(field.name()).isEqualTo("cat"));

    // a write to the snapshot goes to its own folder; the source keeps its files and rows
    sql("INSERT INTO db.snap VALUES (1000, 'new', 'a')");
    assertThat(sql("SELECT count(*) FROM db.snap").get(0).getLong(0)).isEqualTo(121L);
    assertThat(dataFiles(sourceLocation, "parquet")).isEqualTo(sourceFiles);
    assertThat(builtIn("src").provider().get()).isEqualTo("parquet");
    assertRowsEqualExpected("db.src");
    assertThat(Files.exists(Path.of(sourceLocation).resolve("metadata"))).isFalse();

    // from a FloeCatalog too, naming the source in spark_catalog
    assertThat(sql("CALL floe.system.snapshot(source_table => 'spark_catalog.db.src', table => 'db.snap2', "
            + "properties => map('k', 'v'), parallelism => 1)"))
        .containsExactly(RowFactory.create((long) sourceFiles.size()));
    assertRowsEqualExpected("floe.db.snap2");
    assertThat(((FloeCatalog) spark.sessionState().catalogManager().catalog("floe")).icebergCatalog()
            .loadTable(TableIdentifier.of("db", "snap2")).properties())
        .containsEntry("k", "v")
        .containsEntry(TableProperties.GC_ENABLED, "false");
  }

  @Test
  void badSnapshotInputNamesTheCauseAndCreatesNothing() throws IOException {
    createParquetSource("src");
    sql("CREATE TABLE db.ice (id BIGINT) USING iceberg");
    sql("CREATE TABLE db.taken (id BIGINT) USING iceberg");
    String location = builtIn("src").location().toString();

    assertThatThrownBy(() -> sql("CALL spark_catalog.system.snapshot('db.missing', 'db.s1')"))
        .hasMessage(
            "Cannot call spark_catalog.system.snapshot: argument 'source_table' 'db.missing' names "
                + "no table of the session catalog (spark_catalog)");
    assertThatThrownBy(() -> sql("CALL spark_catalog.system.snapshot('db.ice', 'db.s1')"))
        .hasMessageContaining("argument 'source_table' 'db.ice' is already an Iceberg table");
    assertThatThrownBy(() -> sql("CALL spark_catalog.system.snapshot('db.src', 'db.taken')"))
        .hasMessageContaining("table spark_catalog.db.taken already exists");
    assertThatThrownBy(() -> sql("CALL spark_catalog.system.snapshot('db.src', 'db.src')"))
        .hasMessageContaining("cannot create a snapshot with the same name as its source");
    assertThatThrownBy(
            () -> sql("CALL spark_catalog.system.snapshot('db.src', 'db.s1', '%s')", location))
        .hasMessageContaining("argument 'location' is the location of the source table");
    assertThatThrownBy(
            () -> sql("CALL spark_catalog.system.snapshot('db.src', 'db.s1', parallelism => 0)"))
        .hasMessageContaining("argument 'parallelism' must be at least 1, got 0");

    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", "s1"))).isFalse();
    assertThat(sql("SELECT count(*) FROM db.taken").get(0).getLong(0)).isEqualTo(0L);
    assertRowsEqualExpected("db.src");
    assertThat(Files.exists(Path.of(URI.create(location)).resolve("metadata"))).isFalse();
  }

  @Test
  void migrateReplacesTheTableAndKeepsAnExternalBackupThatNeverDeletesFiles() throws IOException {
    createParquetSource("m");
    URI location = builtIn("m").location();
    assertThat(builtIn("m").tableType()).isEqualTo(CatalogTableType.MANAGED());
    Set<Path> files = dataFiles(location, "parquet");

    Dataset<Row> result = spark.sql("CALL spark_catalog.system.migrate('db.m')");

    assertThat(result.schema().fields()).containsExactly(column("migrated_files_count"));
    assertThat(result.collectAsList()).containsExactly(RowFactory.create((long) files.size()));
    Table migrated = sessionIceberg().loadTable(TableIdentifier.of("db", "m"));
    assertThat(migrated.properties()).containsEntry("migrated", "true")
        .doesNotContainKey(TableProperties.GC_ENABLED);
    assertThat(Path.of(URI.create(migrated.location().replaceFirst("^file:/+", "file:///"))))
        .isEqualTo(Path.of(location));
    assertRowsEqualExpected("db.m");
    assertThat(builtInHas("m")).isFalse();
    assertThat(builtInHas("m_BACKUP_")).isTrue();
    assertThat(builtIn("m_BACKUP_").tableType()).isEqualTo(CatalogTableType.EXTERNAL());
    assertThat(builtIn("m_BACKUP_").location()).isEqualTo(location);

    // dropping the backup keeps every file the Iceberg table reads
    sql("DROP TABLE db.m_BACKUP_");
    assertThat(dataFiles(location, "parquet")).containsAll(files);
    assertRowsEqualExpected("db.m");
    sql("INSERT INTO db.m VALUES (1000, 'new', 'a')");
    assertThat(sql("SELECT count(*) FROM db.m").get(0).getLong(0)).isEqualTo(121L);
  }

  @Test
  void migrateWithDropBackupAndABackupName() throws IOException {
    createParquetSource("d");
    URI location = builtIn("d").location();
    Set<Path> files = dataFiles(location, "parquet");
    sql("USE db");

    assertThat(sql("CALL spark_catalog.system.migrate(table => 'd', drop_backup => true, "
            + "backup_table_name => 'd_old', properties => map('k', 'v'))"))
        .containsExactly(RowFactory.create((long) files.size()));

    assertThat(builtInHas("d_old")).isFalse();
    assertThat(builtInHas("d_BACKUP_")).isFalse();
    assertThat(sessionIceberg().loadTable(TableIdentifier.of("db", "d")).properties())
        .containsEntry("k", "v");
    assertThat(dataFiles(location, "parquet")).containsAll(files);
    assertRowsEqualExpected("db.d");
  }

  @Test
  void aFailedMigrationRestoresTheSourceAndLeavesNoIcebergTable() throws IOException {
    createParquetSource("f");
    CatalogTable before = builtIn("f");
    Path partition = Path.of(before.location()).resolve("cat=a");
    Path junk = partition.resolve("junk.parquet");
    Files.writeString(junk, "not a parquet file");

    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.f')"))
        .hasStackTraceContaining("it is not a readable Parquet file");

    Files.delete(junk);
    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", "f"))).isFalse();
    assertThat(builtInHas("f_BACKUP_")).isFalse();
    CatalogTable after = builtIn("f");
    assertThat(after.tableType()).isEqualTo(CatalogTableType.MANAGED());
    assertThat(after.location()).isEqualTo(before.location());
    assertThat(after.provider().get()).isEqualTo("parquet");
    assertThat(Files.exists(Path.of(before.location()).resolve("metadata"))).isFalse();
    spark.catalog().refreshTable("db.f");
    assertRowsEqualExpected("db.f");
  }

  @Test
  void badMigrateInputNamesTheCauseAndChangesNothing() {
    createParquetSource("b");
    sql("CREATE TABLE db.b_BACKUP_ (id BIGINT) USING parquet");
    sql("CREATE TABLE db.ice (id BIGINT) USING iceberg");

    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.b')"))
        .hasMessageContaining("the backup table `db`.`b_BACKUP_` already exists");
    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.ice')"))
        .hasMessageContaining("argument 'table' 'db.ice' is already an Iceberg table");
    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('db.nope')"))
        .hasMessageContaining("argument 'table' 'db.nope' names no table of the session catalog");
    assertThatThrownBy(() -> sql("CALL spark_catalog.system.migrate('floe.db.x')"))
        .hasMessageContaining("must name a table of the session catalog (spark_catalog)");

    assertThat(sessionIceberg().tableExists(TableIdentifier.of("db", "b"))).isFalse();
    assertThat(builtIn("b").tableType()).isEqualTo(CatalogTableType.MANAGED());
    assertRowsEqualExpected("db.b");
  }

  @Test
  void aSnapshotOfAnEmptyPartitionedTableIsAnEmptyIcebergTable() {
    sql("CREATE TABLE db.empty_src (id BIGINT, cat STRING) USING parquet PARTITIONED BY (cat)");

    assertThat(sql("CALL spark_catalog.system.snapshot('db.empty_src', 'db.empty_snap')"))
        .containsExactly(RowFactory.create(0L));

    Table snap = sessionIceberg().loadTable(TableIdentifier.of("db", "empty_snap"));
    assertThat(snap.currentSnapshot()).isNull();
    assertThat(snap.spec().fields()).hasSize(1);
    assertThat(sql("SELECT count(*) FROM db.empty_snap").get(0).getLong(0)).isEqualTo(0L);
  }
}
