package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.catalog.TestCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code rewrite_table_path} on a JDBC catalog: the staged metadata names only paths under the
 * target prefix, the file list names every file of the table (or of the versions asked for), and a
 * table copied by that list and registered at the target reads the source's rows, deletes
 * included. Bad input leaves the table and the staging folder as they were.
 */
class RewriteTablePathTest extends ProcedureTestBase {
  private static final String TABLE = "db.moved";

  private Path target;
  private Path staging;

  @Override
  protected TestCatalog testCatalog() {
    return TestCatalog.JDBC;
  }

  @BeforeEach
  void createTableWithDeletes() throws IOException {
    target = Files.createTempDirectory("floe-rewrite-path-target");
    staging = Files.createTempDirectory("floe-rewrite-path-staging");
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql("DROP TABLE IF EXISTS %s.db.copied", CATALOG);
    sql(
        "CREATE TABLE %s.%s (id BIGINT, cat STRING) USING iceberg PARTITIONED BY (cat) "
            + "TBLPROPERTIES ('format-version' = '2', 'write.delete.mode' = 'merge-on-read')",
        CATALOG, TABLE);
  }

  @AfterEach
  void deleteFolders() throws IOException {
    deleteRecursively(target);
    deleteRecursively(staging);
  }

  private static void insert(int from, int to) {
    sql(
        "INSERT INTO %s.%s SELECT id, CASE WHEN id %% 2 = 0 THEN 'even' ELSE 'odd' END "
            + "FROM range(%d, %d)",
        CATALOG, TABLE, from, to);
  }

  /**
   * The folder every file of the table is under, as its files spell it ({@code file:/...}; the
   * catalog keeps the location as the warehouse was given, {@code file:///...}).
   */
  private static String location() {
    return prefixOf(TABLE);
  }

  private static String prefixOf(String name) {
    String metadata = metadataFile(name);
    return metadata.substring(0, metadata.lastIndexOf("/metadata/"));
  }

  private static String metadataFile(String name) {
    return ((HasTableOperations) icebergTable(name)).operations().current().metadataFileLocation();
  }

  private String targetPrefix() {
    return target.toUri().toString().replaceAll("/$", "");
  }

  /** source,target lines of the file list. */
  private static List<String[]> fileList(String location) throws IOException {
    return Files.readAllLines(Path.of(URI.create(normalize(location)))).stream()
        .map(line -> line.split(","))
        .collect(Collectors.toList());
  }

  private static String normalize(String location) {
    return location.startsWith("file:/") && !location.startsWith("file:///")
        ? "file://" + location.substring("file:".length())
        : location;
  }

  private static Path local(String location) {
    return Path.of(URI.create(normalize(location)));
  }

  /** Every file the table references now: metadata, manifest lists, manifests, data and deletes. */
  private static Set<String> referencedFiles(Table table) throws IOException {
    Set<String> files = new HashSet<>();
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    files.add(metadata.metadataFileLocation());
    metadata.previousFiles().forEach(entry -> files.add(entry.file()));
    for (Snapshot snapshot : table.snapshots()) {
      files.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        files.add(manifest.path());
      }
      try (CloseableIterable<FileScanTask> tasks =
          table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        for (FileScanTask task : tasks) {
          files.add(task.file().location());
          task.deletes().forEach(delete -> files.add(delete.location()));
        }
      }
    }
    return files.stream().map(RewriteTablePathTest::withoutScheme).collect(Collectors.toSet());
  }

  private static String withoutScheme(String location) {
    return URI.create(normalize(location)).getPath();
  }

  private static void copyAll(List<String[]> lines) throws IOException {
    for (String[] line : lines) {
      Path to = local(line[1]);
      Files.createDirectories(to.getParent());
      Files.copy(local(line[0]), to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @Test
  void aFullRewriteStagesMetadataUnderTheTargetAndListsEveryFileToCopy() throws IOException {
    insert(0, 20);
    insert(20, 40);
    sql("DELETE FROM %s.%s WHERE id %% 5 = 0", CATALOG, TABLE);
    Table source = icebergTable(TABLE);
    String sourceMetadata = metadataFile(TABLE);
    List<Row> sourceRows = sql("SELECT id, cat FROM %s.%s ORDER BY id", CATALOG, TABLE);
    long deleteFiles = countDeleteFiles(source);
    assertThat(deleteFiles).isGreaterThan(0L);

    Dataset<Row> result =
        call(
            "rewrite_table_path(table => '%s', source_prefix => '%s', target_prefix => '%s')",
            TABLE, location(), targetPrefix());

    assertSchema(
        result.schema(),
        column("latest_version", DataTypes.StringType, true),
        column("file_list_location", DataTypes.StringType, true),
        column("rewritten_manifest_file_paths_count", DataTypes.IntegerType, true),
        column("rewritten_delete_file_paths_count", DataTypes.IntegerType, true));
    Row row = result.collectAsList().get(0);
    int slash = sourceMetadata.lastIndexOf('/');
    assertThat(row.getString(0)).isEqualTo(sourceMetadata.substring(slash + 1));
    assertThat(row.getString(1))
        .startsWith(sourceMetadata.substring(0, slash) + "/copy-table-staging-");
    Set<String> manifests = new HashSet<>();
    for (Snapshot snapshot : source.snapshots()) {
      snapshot.allManifests(source.io()).forEach(m -> manifests.add(m.path()));
    }
    assertThat(row.getInt(2)).isEqualTo(manifests.size());
    assertThat((long) row.getInt(3)).isEqualTo(deleteFiles);
    // the source table is unchanged
    assertThat(metadataFile(TABLE)).isEqualTo(sourceMetadata);

    List<String[]> lines = fileList(row.getString(1));
    Set<String> targets = new HashSet<>();
    for (String[] line : lines) {
      assertThat(line).hasSize(2);
      assertThat(line[1]).startsWith(targetPrefix() + "/");
      targets.add(withoutScheme(line[1]));
    }
    String sourcePath = withoutScheme(location());
    Set<String> expected =
        referencedFiles(source).stream()
            .map(path -> withoutScheme(targetPrefix()) + path.substring(sourcePath.length()))
            .collect(Collectors.toSet());
    assertThat(targets).isEqualTo(expected);

    // every staged metadata file names only paths under the target prefix
    for (String[] line : lines) {
      if (line[0].endsWith(".metadata.json")) {
        TableMetadata staged = TableMetadataParser.read(source.io(), line[0]);
        assertThat(staged.location()).startsWith(targetPrefix());
        staged.snapshots().forEach(s -> assertThat(s.manifestListLocation()).startsWith(targetPrefix()));
        staged.previousFiles().forEach(e -> assertThat(e.file()).startsWith(targetPrefix()));
      }
    }

    // copied by the list and registered, the table at the target reads the same rows
    copyAll(lines);
    call("register_table('db.copied', '%s')", targetPrefix() + sourceMetadata.substring(location().length()))
        .collectAsList();
    Table copied = icebergTable("db.copied");
    assertThat(copied.location()).isEqualTo(targetPrefix());
    assertThat(icebergTable(TABLE).location()).startsWith("file:///");
    for (String file : referencedFiles(copied)) {
      assertThat(file).startsWith(withoutScheme(targetPrefix()));
      assertThat(Files.exists(Path.of(file))).as(file).isTrue();
    }
    assertThat(sql("SELECT id, cat FROM %s.db.copied ORDER BY id", CATALOG)).isEqualTo(sourceRows);
  }

  @Test
  void anIncrementalRewriteListsOnlyTheFilesAddedAfterTheStartVersion() throws IOException {
    insert(0, 10);
    String start = metadataFile(TABLE);
    Set<String> before = referencedFiles(icebergTable(TABLE));
    insert(10, 20);
    insert(20, 30);
    Table source = icebergTable(TABLE);

    Row row =
        call(
                "rewrite_table_path('%s', '%s', '%s', start_version => '%s', staging_location => '%s')",
                TABLE, location(), targetPrefix(), start.substring(start.lastIndexOf('/') + 1),
                staging.toUri())
            .collectAsList()
            .get(0);

    assertThat(row.getString(1)).isEqualTo(staging.toUri() + "file-list");
    Set<String> listed =
        fileList(row.getString(1)).stream().map(l -> withoutScheme(l[1])).collect(Collectors.toSet());
    String sourcePath = withoutScheme(location());
    Set<String> added = new HashSet<>(referencedFiles(source));
    added.removeAll(before);
    Set<String> expected =
        added.stream()
            .map(path -> withoutScheme(targetPrefix()) + path.substring(sourcePath.length()))
            .collect(Collectors.toSet());
    assertThat(listed).isEqualTo(expected).isNotEmpty();
    // the list copies data files from the table and rewritten metadata from the staging folder
    String stagingPath = withoutScheme(staging.toUri().toString());
    for (String[] line : fileList(row.getString(1))) {
      assertThat(withoutScheme(line[0])).satisfiesAnyOf(
          path -> assertThat(path).startsWith(sourcePath + "/data/"),
          path -> assertThat(path).startsWith(stagingPath));
    }
    // create_file_list => false stages the metadata and writes no list
    Row noList =
        call(
                "rewrite_table_path('%s', '%s', '%s', staging_location => '%s', create_file_list => false)",
                TABLE, location(), targetPrefix(), staging.resolve("second").toUri())
            .collectAsList()
            .get(0);
    assertThat(noList.getString(1)).isEqualTo("N/A");
    assertThat(Files.exists(staging.resolve("second").resolve("file-list"))).isFalse();
  }

  @Test
  void aWrongPrefixOrVersionFailsAndStagesNothing() throws IOException {
    insert(0, 10);
    String metadata = metadataFile(TABLE);

    assertThatThrownBy(
            () -> call("rewrite_table_path('%s', '%s', '%s', staging_location => '%s')",
                    TABLE, "file:/no/such/prefix", targetPrefix(), staging.toUri())
                .collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.rewrite_table_path: argument 'source_prefix' is not a prefix "
                + "of the location of table floe.db.moved");
    assertThatThrownBy(
            () -> call("rewrite_table_path('%s', '%s', '%s', end_version => 'v999.metadata.json')",
                    TABLE, location(), targetPrefix())
                .collectAsList())
        .hasMessageContaining("argument 'end_version' names no metadata file in the metadata log")
        .hasMessageContaining("v999.metadata.json");
    assertThatThrownBy(
            () -> call("rewrite_table_path('%s', '%s', '%s')", TABLE, location(), location())
                .collectAsList())
        .hasMessageContaining("argument 'target_prefix' is the same as source_prefix");
    // a data file outside the source prefix is found before anything is staged
    Path outside = Files.createTempDirectory("floe-rewrite-path-outside");
    try {
      spark.sql("SELECT 100L AS id, 'odd' AS cat").coalesce(1).write().parquet(outside.resolve("p").toString());
      sql("CREATE TABLE %s.db.outside (id BIGINT, cat STRING) USING iceberg", CATALOG);
      sql("INSERT INTO %s.db.outside VALUES (1, 'odd')", CATALOG);
      call("add_files('db.outside', '`parquet`.`%s`')", outside.resolve("p").toUri()).collectAsList();
      String outsideLocation = prefixOf("db.outside");
      String outsideMetadata = metadataFile("db.outside");
      assertThatThrownBy(
              () -> call("rewrite_table_path('db.outside', '%s', '%s', staging_location => '%s')",
                      outsideLocation, targetPrefix(), staging.resolve("failed").toUri())
                  .collectAsList())
          .hasMessageContaining("has files that are not under source_prefix")
          .hasMessageContaining(outside.resolve("p").toUri().getPath());
      try (Stream<Path> left = Files.walk(staging)) {
        assertThat(left.filter(Files::isRegularFile).map(Path::toString)
                .collect(Collectors.toList()))
            .isEmpty();
      }
      assertThat(metadataFile("db.outside")).isEqualTo(outsideMetadata);
    } finally {
      sql("DROP TABLE IF EXISTS %s.db.outside", CATALOG);
      deleteRecursively(outside);
    }
    assertThat(metadataFile(TABLE)).isEqualTo(metadata);
    try (Stream<Path> left = Files.walk(staging)) {
      assertThat(left.filter(Files::isRegularFile).collect(Collectors.toList())).isEmpty();
    }
  }

  private static long countDeleteFiles(Table table) throws IOException {
    Set<String> deletes = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        for (DeleteFile delete : task.deletes()) {
          deletes.add(delete.location());
        }
      }
    }
    return deletes.size();
  }
}
