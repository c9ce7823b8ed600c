package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code remove_orphan_files} on a real table whose every file (referenced or not) is made old on
 * disk: the orphans found and deleted, every referenced file kept, {@code dry_run}, {@code
 * older_than}, {@code file_list_view} and prefix mismatches, and bad input.
 */
class RemoveOrphanFilesTest extends ProcedureTestBase {
  private static final String TABLE = "db.orphans";

  private Path root;
  private Path oldOrphan;
  private Path deepOrphan;
  private Path metadataOrphan;
  private Path fiveDayOrphan;
  private Path youngOrphan;
  private Path hiddenOld;
  private Set<Path> referenced;

  @BeforeEach
  void createTableWithOrphans() throws IOException {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql("CREATE TABLE %s.%s (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat)",
        CATALOG, TABLE);
    sql("INSERT INTO %s.%s VALUES (1, 'a'), (2, 'b')", CATALOG, TABLE);
    sql("INSERT INTO %s.%s VALUES (3, 'a'), (4, 'c')", CATALOG, TABLE);
    Table table = icebergTable(TABLE);
    // the file of partition c stays referenced by the older snapshots only
    table.newDelete().deleteFromRowFilter(Expressions.equal("cat", "c")).commit();
    root = Paths.get(URI.create(withScheme(table.location())));
    referenced = allFiles();
    ageAll(referenced, 10);
    oldOrphan = orphan("data/cat=a/orphan-old.parquet", 10);
    deepOrphan = orphan("data/cat=b/x/y/z/orphan-deep.parquet", 10);
    metadataOrphan = orphan("metadata/orphan.avro", 10);
    fiveDayOrphan = orphan("data/orphan-five-days.parquet", 5);
    youngOrphan = orphan("data/orphan-young.parquet", 0);
    hiddenOld = orphan("data/.hidden-old.parquet", 10);
    Dataset<Row> rows = spark.table(CATALOG + "." + TABLE);
    spark.createDataFrame(rows.collectAsList(), rows.schema()).createOrReplaceTempView("expected");
  }

  private static String withScheme(String location) {
    return location.startsWith("file:") ? location : "file:" + location;
  }

  private Set<Path> allFiles() throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static void ageAll(Set<Path> files, int days) {
    files.forEach(file -> age(file, days));
  }

  private static void age(Path file, int days) {
    try {
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(days, ChronoUnit.DAYS)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path orphan(String relative, int days) throws IOException {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "not referenced");
    age(file, days);
    return file;
  }

  private static Set<String> locations(List<Row> rows) {
    return rows.stream()
        .map(row -> Paths.get(URI.create(row.getString(0))).toString())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static Set<String> names(Path... files) {
    return Stream.of(files).map(Path::toString).collect(Collectors.toCollection(TreeSet::new));
  }

  private void assertReferencedFilesAndRowsKept() {
    assertThat(referenced).allMatch(Files::exists);
    assertThat(sql("SELECT * FROM %s.%s EXCEPT ALL SELECT * FROM expected", CATALOG, TABLE))
        .isEmpty();
    assertThat(sql("SELECT * FROM expected EXCEPT ALL SELECT * FROM %s.%s", CATALOG, TABLE))
        .isEmpty();
  }

  @Test
  void deletesOldOrphansOnlyAndKeepsEveryReferencedFile() {
    Dataset<Row> result = call("remove_orphan_files(table => '%s')", TABLE);

    assertSchema(result.schema(), column("orphan_file_location", DataTypes.StringType, false));
    assertThat(locations(result.collectAsList()))
        .isEqualTo(names(oldOrphan, deepOrphan, metadataOrphan, fiveDayOrphan));
    assertThat(List.of(oldOrphan, deepOrphan, metadataOrphan, fiveDayOrphan))
        .noneMatch(Files::exists);
    assertThat(List.of(youngOrphan, hiddenOld)).allMatch(Files::exists);
    assertReferencedFilesAndRowsKept();
    // the table still commits and reads after the cleanup
    sql("INSERT INTO %s.%s VALUES (5, 'd')", CATALOG, TABLE);
    assertThat(sql("SELECT count(*) FROM %s.%s", CATALOG, TABLE).get(0).getLong(0)).isEqualTo(
        sql("SELECT count(*) + 1 FROM expected").get(0).getLong(0));
  }

  @Test
  void dryRunReportsTheOrphansAndDeletesNothing() {
    List<Row> result =
        call("remove_orphan_files(table => '%s', dry_run => true)", TABLE).collectAsList();

    assertThat(locations(result))
        .isEqualTo(names(oldOrphan, deepOrphan, metadataOrphan, fiveDayOrphan));
    assertThat(List.of(oldOrphan, deepOrphan, metadataOrphan, fiveDayOrphan, youngOrphan))
        .allMatch(Files::exists);
    assertReferencedFilesAndRowsKept();
  }

  @Test
  void olderThanKeepsYoungerOrphans() {
    Timestamp sevenDaysAgo = Timestamp.from(Instant.now().minus(7, ChronoUnit.DAYS));
    List<Row> result =
        call(
                "remove_orphan_files(table => '%s', older_than => TIMESTAMP '%s', "
                    + "max_concurrent_deletes => 2)",
                TABLE, sevenDaysAgo)
            .collectAsList();

    assertThat(locations(result)).isEqualTo(names(oldOrphan, deepOrphan, metadataOrphan));
    assertThat(fiveDayOrphan).exists();
    assertReferencedFilesAndRowsKept();
  }

  @Test
  void locationLimitsTheListing() {
    List<Row> result =
        call("remove_orphan_files(table => '%s', location => '%s', dry_run => true)",
                TABLE, root.resolve("metadata").toUri())
            .collectAsList();

    assertThat(locations(result)).isEqualTo(names(metadataOrphan));
  }

  @Test
  void prefixListingThroughTheFileIoFindsTheSameOrphans() {
    List<Row> result =
        call("remove_orphan_files(table => '%s', prefix_listing => true, dry_run => true)", TABLE)
            .collectAsList();

    assertThat(locations(result))
        .isEqualTo(names(oldOrphan, deepOrphan, metadataOrphan, fiveDayOrphan));
  }

  @Test
  void fileListViewReplacesTheListingAndPrefixMismatchesFollowTheMode() {
    String referencedFile =
        referenced.stream()
            .filter(file -> file.getFileName().toString().endsWith(".parquet"))
            .filter(file -> !file.getFileName().toString().startsWith("."))
            .findFirst()
            .orElseThrow()
            .toUri()
            .getPath();
    Timestamp old = Timestamp.from(Instant.now().minus(10, ChronoUnit.DAYS));
    StructType schema =
        new StructType()
            .add("file_path", DataTypes.StringType)
            .add("last_modified", DataTypes.TimestampType);
    spark
        .createDataFrame(
            List.of(
                RowFactory.create(oldOrphan.toUri().toString(), old),
                RowFactory.create("hdfs://nn" + referencedFile, old)),
            schema)
        .createOrReplaceTempView("listed_files");

    assertThatThrownBy(
            () ->
                call("remove_orphan_files(table => '%s', file_list_view => 'listed_files', "
                        + "dry_run => true)", TABLE)
                    .collectAsList())
        .hasMessageContaining("cannot tell whether some files of floe.db.orphans are orphans")
        .hasMessageContaining("hdfs://nn" + referencedFile);
    assertThat(
            locations(
                call("remove_orphan_files(table => '%s', file_list_view => 'listed_files', "
                        + "prefix_mismatch_mode => 'ignore', dry_run => true)", TABLE)
                    .collectAsList()))
        .isEqualTo(names(oldOrphan));
    List<String> deleteMode =
        call("remove_orphan_files(table => '%s', file_list_view => 'listed_files', "
                + "prefix_mismatch_mode => 'DELETE', dry_run => true)", TABLE)
            .collectAsList().stream().map(row -> row.getString(0)).collect(Collectors.toList());
    assertThat(deleteMode).containsExactlyInAnyOrder(
        oldOrphan.toUri().toString(), "hdfs://nn" + referencedFile);
    assertThat(
            locations(
                call("remove_orphan_files(table => '%s', file_list_view => 'listed_files', "
                        + "equal_schemes => map('hdfs', 'file'), equal_authorities => "
                        + "map('nn', ''), dry_run => true)", TABLE)
                    .collectAsList()))
        .isEqualTo(names(oldOrphan));
    assertThat(oldOrphan).exists();
  }

  @Test
  void badInputFailsNamingItAndDeletesNothing() {
    assertThatThrownBy(
            () ->
                call("remove_orphan_files(table => '%s', older_than => current_timestamp())",
                        TABLE)
                    .collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.remove_orphan_files: argument 'older_than' must be at least "
                + "24 hours ago");
    assertThatThrownBy(
            () ->
                call("remove_orphan_files(table => '%s', prefix_mismatch_mode => 'maybe')", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.remove_orphan_files: argument 'prefix_mismatch_mode' must be "
                + "'error', 'ignore' or 'delete', not 'maybe'");
    assertThatThrownBy(
            () ->
                call("remove_orphan_files(table => '%s', max_concurrent_deletes => 0)", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.remove_orphan_files: argument 'max_concurrent_deletes' must "
                + "be at least 1, got 0");
    assertThatThrownBy(
            () ->
                call("remove_orphan_files(table => '%s', file_list_view => 'no_such_view')", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.remove_orphan_files: argument 'file_list_view' names no "
                + "table or view: no_such_view");
    sql("ALTER TABLE %s.%s SET TBLPROPERTIES ('gc.enabled' = 'false')", CATALOG, TABLE);
    assertThatThrownBy(() -> call("remove_orphan_files(table => '%s')", TABLE).collectAsList())
        .hasMessageContaining("has gc.enabled=false");
    assertThat(List.of(oldOrphan, deepOrphan, metadataOrphan, fiveDayOrphan)).allMatch(Files::exists);
    assertThat(referenced).allMatch(Files::exists);
  }
}
