package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code expire_snapshots} on real tables: snapshots removed from the metadata, exactly the
 * unreferenced files deleted from disk and counted per kind, every file a retained snapshot, branch
 * or tag references kept, rows unchanged.
 */
class ExpireSnapshotsTest extends ProcedureTestBase {
  static final String TABLE = "db.expiring";

  private long first;
  private long second;
  private long third;
  private long fourth;

  /** Four snapshots: appends of 1 and 2, a delete of the file of 1, an append of 3. */
  @BeforeEach
  void createExpiring() {
    createTable(TABLE);
    first = append(TABLE, 1);
    second = append(TABLE, 2);
    // Floe has no DELETE yet: remove the file of 1 through Iceberg's core API
    Table table = icebergTable(TABLE);
    table.newDelete().deleteFile(fileOf(table, first)).commit();
    third = icebergTable(TABLE).currentSnapshot().snapshotId();
    fourth = append(TABLE, 3);
  }

  static boolean exists(String location) {
    return Files.exists(
        Paths.get(URI.create(location.startsWith("file:") ? location : "file:" + location)));
  }

  static String fileOf(Table table, long snapshotId) {
    DataFile file = table.snapshot(snapshotId).addedDataFiles(table.io()).iterator().next();
    return file.location();
  }

  static Set<String> manifests(Table table, long snapshotId) {
    return table.snapshot(snapshotId).allManifests(table.io()).stream()
        .map(ManifestFile::path)
        .collect(Collectors.toSet());
  }

  static Set<Long> snapshotIds(String name) {
    return snapshots(name).stream().map(Snapshot::snapshotId).collect(Collectors.toSet());
  }

  @Test
  void expiresOldSnapshotsAndDeletesOnlyUnreferencedFiles() {
    Table table = icebergTable(TABLE);
    String fileOfOne = fileOf(table, first);
    String fileOfTwo = fileOf(table, second);
    String fileOfThree = fileOf(table, fourth);
    Set<String> expiredManifests = new HashSet<>();
    for (long id : new long[] {first, second, third}) {
      expiredManifests.addAll(manifests(table, id));
    }
    expiredManifests.removeAll(manifests(table, fourth));
    List<String> expiredLists =
        List.of(first, second, third).stream()
            .map(id -> table.snapshot(id).manifestListLocation())
            .collect(Collectors.toList());

    Dataset<Row> result =
        call(
            "expire_snapshots(table => '%s', older_than => current_timestamp(), retain_last => 1)",
            TABLE);

    assertSchema(
        result.schema(),
        column("deleted_data_files_count", DataTypes.LongType, true),
        column("deleted_position_delete_files_count", DataTypes.LongType, true),
        column("deleted_equality_delete_files_count", DataTypes.LongType, true),
        column("deleted_manifest_files_count", DataTypes.LongType, true),
        column("deleted_manifest_lists_count", DataTypes.LongType, true),
        column("deleted_statistics_files_count", DataTypes.LongType, true));
    assertThat(result.collectAsList())
        .containsExactly(row(1L, 0L, 0L, (long) expiredManifests.size(), 3L, 0L));
    assertThat(snapshotIds(TABLE)).containsExactly(fourth);
    assertThat(exists(fileOfOne)).isFalse();
    assertThat(exists(fileOfTwo)).isTrue();
    assertThat(exists(fileOfThree)).isTrue();
    expiredLists.forEach(list -> assertThat(exists(list)).as(list).isFalse());
    expiredManifests.forEach(manifest -> assertThat(exists(manifest)).as(manifest).isFalse());
    manifests(icebergTable(TABLE), fourth)
        .forEach(manifest -> assertThat(exists(manifest)).as(manifest).isTrue());
    assertThat(ids(TABLE)).containsExactly(2L, 3L);
  }

  /** A delete file of the table, registered through Iceberg's core API over a small real file. */
  private static DeleteFile deleteFile(Table table, String name, boolean equality)
      throws IOException {
    Path path = Paths.get(URI.create(withScheme(table.location()))).resolve("data").resolve(name);
    Files.createDirectories(path.getParent());
    Files.write(path, new byte[] {1, 2, 3});
    FileMetadata.Builder builder = FileMetadata.deleteFileBuilder(table.spec());
    if (equality) {
      builder.ofEqualityDeletes(table.schema().findField("id").fieldId());
    } else {
      builder.ofPositionDeletes();
    }
    return builder
        .withPath(path.toUri().toString())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(3)
        .withRecordCount(1)
        .build();
  }

  private static String withScheme(String location) {
    return location.startsWith("file:") ? location : "file:" + location;
  }

  @Test
  void countsDeletedPositionAndEqualityDeleteFilesApart() throws IOException {
    Table table = icebergTable(TABLE);
    DeleteFile positions = deleteFile(table, "positions.parquet", false);
    DeleteFile equalities = deleteFile(table, "equalities.parquet", true);
    table.newRowDelta().addDeletes(positions).addDeletes(equalities).commit();
    table.newRowDelta().removeDeletes(positions).removeDeletes(equalities).commit();
    long last = append(TABLE, 4);

    List<Row> result =
        call(
                "expire_snapshots(table => '%s', older_than => current_timestamp(), "
                    + "retain_last => 1)",
                TABLE)
            .collectAsList();

    assertThat(result.get(0).getLong(0)).isEqualTo(1L);
    assertThat(result.get(0).getLong(1)).isEqualTo(1L);
    assertThat(result.get(0).getLong(2)).isEqualTo(1L);
    assertThat(result.get(0).getLong(4)).isEqualTo(6L);
    assertThat(exists(positions.location())).isFalse();
    assertThat(exists(equalities.location())).isFalse();
    assertThat(snapshotIds(TABLE)).containsExactly(last);
    assertThat(ids(TABLE)).containsExactly(2L, 3L, 4L);
  }

  @Test
  void keepsEverythingATagOrBranchStillReferences() {
    Table table = icebergTable(TABLE);
    table.manageSnapshots().createTag("first", first).createBranch("audit", second).commit();
    String fileOfOne = fileOf(table, first);

    List<Row> result =
        call(
                "expire_snapshots(table => '%s', older_than => current_timestamp(), retain_last =>"
                    + " 1)",
                TABLE)
            .collectAsList();

    assertThat(result.get(0).getLong(0)).isZero();
    assertThat(snapshotIds(TABLE)).containsExactlyInAnyOrder(first, second, fourth);
    assertThat(exists(fileOfOne)).isTrue();
    assertThat(exists(icebergTable(TABLE).snapshot(first).manifestListLocation())).isTrue();
    assertThat(sql("SELECT id FROM %s.%s VERSION AS OF 'first'", CATALOG, TABLE))
        .containsExactly(row(1L));
  }

  @Test
  void snapshotIdsExpiresThoseSnapshots() {
    String listOfSecond = icebergTable(TABLE).snapshot(second).manifestListLocation();
    List<Row> result =
        call("expire_snapshots(table => '%s', snapshot_ids => array(%d))", TABLE, second)
            .collectAsList();
    assertThat(result.get(0).getLong(4)).isEqualTo(1L);
    assertThat(snapshotIds(TABLE)).containsExactlyInAnyOrder(first, third, fourth);
    assertThat(exists(listOfSecond)).isFalse();
    assertThat(ids(TABLE)).containsExactly(2L, 3L);
  }

  @Test
  void withoutArgumentsTheTablesDefaultAgeKeepsRecentSnapshots() {
    assertThat(call("expire_snapshots('%s')", TABLE).collectAsList())
        .containsExactly(row(0L, 0L, 0L, 0L, 0L, 0L));
    assertThat(snapshotIds(TABLE)).hasSize(4);
  }

  @Test
  void retainLastKeepsThatManyAncestors() {
    call(
            "expire_snapshots(table => '%s', older_than => current_timestamp(), retain_last => 2)",
            TABLE)
        .collectAsList();
    assertThat(snapshotIds(TABLE)).containsExactlyInAnyOrder(third, fourth);
    assertThat(ids(TABLE)).containsExactly(2L, 3L);
  }

  @Test
  void cleanExpiredMetadataRemovesSchemasNoSnapshotUses() {
    sql("ALTER TABLE %s.%s ADD COLUMN extra INT", CATALOG, TABLE);
    sql("INSERT INTO %s.%s VALUES (4, 'v4', 4)", CATALOG, TABLE);
    assertThat(icebergTable(TABLE).schemas()).hasSize(2);

    call(
            "expire_snapshots(table => '%s', older_than => current_timestamp(), retain_last => 1, "
                + "clean_expired_metadata => true)",
            TABLE)
        .collectAsList();

    assertThat(icebergTable(TABLE).schemas()).hasSize(1);
    assertThat(snapshotIds(TABLE)).hasSize(1);
    assertThat(ids(TABLE)).containsExactly(2L, 3L, 4L);
  }

  @Test
  void badArgumentsFailNamingThemAndChangeNothing() {
    assertThatThrownBy(
            () -> call("expire_snapshots(table => '%s', retain_last => 0)", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.expire_snapshots: argument 'retain_last' must be at least 1, "
                + "got 0");
    assertThatThrownBy(
            () ->
                call("expire_snapshots(table => '%s', max_concurrent_deletes => 0)", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.expire_snapshots: argument 'max_concurrent_deletes' must be "
                + "at least 1, got 0");
    assertThatThrownBy(
            () ->
                call("expire_snapshots(table => '%s', snapshot_ids => array('x'))", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.expire_snapshots: argument 'snapshot_ids' must be "
                + "ARRAY<BIGINT>, not ARRAY<STRING>");
    assertThatThrownBy(
            () ->
                call("expire_snapshots(table => '%s', older => current_timestamp())", TABLE)
                    .collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.expire_snapshots: unknown argument 'older'; its arguments "
                + "are table, older_than, retain_last, max_concurrent_deletes, stream_results, "
                + "snapshot_ids, clean_expired_metadata");
    assertThat(snapshotIds(TABLE)).hasSize(4);
  }

  @Test
  void streamResultsIsAccepted() {
    call(
            "expire_snapshots(table => '%s', older_than => current_timestamp(), retain_last => 1, "
                + "stream_results => true)",
            TABLE)
        .collectAsList();
    assertThat(snapshotIds(TABLE)).containsExactly(fourth);
  }
}
