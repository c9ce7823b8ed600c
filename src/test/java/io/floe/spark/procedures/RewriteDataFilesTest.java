package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.commit.Committer;
import io.floe.spark.read.ReadTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code rewrite_data_files}: the files after the call (through Iceberg's core API), the snapshot
 * it commits, its output, and the rows, which must equal those of a temp view taken before the
 * call; concurrent commits between the rewrite and its commit; bad input.
 */
class RewriteDataFilesTest extends ProcedureTestBase {
  private static final String TABLE = "db.compact";

  @BeforeEach
  void createTable() {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", CATALOG);
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql(
        "CREATE TABLE %s.%s (id BIGINT, data STRING, cat STRING) USING iceberg "
            + "TBLPROPERTIES ('format-version' = '2')",
        CATALOG, TABLE);
  }

  private static void createPartitioned() {
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql(
        "CREATE TABLE %s.%s (id BIGINT, data STRING, cat STRING) USING iceberg "
            + "PARTITIONED BY (cat) TBLPROPERTIES ('format-version' = '2')",
        CATALOG, TABLE);
  }

  /** Appends {@code count} snapshots of a few rows each, one small file per snapshot (and cat). */
  private static void appendSmallFiles(int count) {
    for (int i = 0; i < count; i++) {
      long id = i * 10L;
      sql(
          "INSERT INTO %s.%s SELECT /*+ REPARTITION(1) */ * FROM VALUES (%d, 'd%d', 'a'), "
              + "(%d, NULL, 'b'), (%d, 'x%d', 'a')",
          CATALOG, TABLE, id, id, id + 1, id + 2, i % 3);
    }
  }

  /** Copies the table's rows, read now, into the temp view {@code expected}. */
  private static void snapshotRowsAsView() {
    Dataset<Row> now = spark.table(CATALOG + "." + TABLE);
    List<Row> rows = now.collectAsList();
    spark.createDataFrame(rows, now.schema()).createOrReplaceTempView("expected");
  }

  /** Asserts the table holds exactly the rows of the temp view {@code expected}, duplicates too. */
  private static void assertRowsEqualView() {
    String actual = CATALOG + "." + TABLE;
    assertThat(sql("SELECT * FROM %s EXCEPT ALL SELECT * FROM expected", actual)).isEmpty();
    assertThat(sql("SELECT * FROM expected EXCEPT ALL SELECT * FROM %s", actual)).isEmpty();
    assertThat(sql("SELECT count(*) FROM %s", actual).get(0).getLong(0))
        .isEqualTo(sql("SELECT count(*) FROM expected").get(0).getLong(0));
  }

  private static List<DataFile> dataFiles() {
    return ReadTestSupport.dataFiles(icebergTable(TABLE));
  }

  private static long bytes(List<DataFile> files) {
    return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
  }

  private static String metadataLocation() {
    return ((HasTableOperations) icebergTable(TABLE)).operations().current().metadataFileLocation();
  }

  @Test
  void binpackCompactsSmallFilesIntoOneReplaceSnapshotWithTheSameRows() {
    appendSmallFiles(6);
    snapshotRowsAsView();
    List<DataFile> before = dataFiles();
    assertThat(before).hasSize(6);
    int snapshotsBefore = snapshots(TABLE).size();

    Dataset<Row> result = call("rewrite_data_files('%s')", TABLE);

    assertSchema(
        result.schema(),
        column("rewritten_data_files_count", DataTypes.IntegerType, false),
        column("added_data_files_count", DataTypes.IntegerType, false),
        column("rewritten_bytes_count", DataTypes.LongType, false),
        column("failed_data_files_count", DataTypes.IntegerType, false),
        column("removed_delete_files_count", DataTypes.IntegerType, false));
    assertThat(result.collectAsList()).containsExactly(row(6, 1, bytes(before), 0, 0));
    List<DataFile> after = dataFiles();
    assertThat(after).hasSize(1);
    assertThat(after.get(0).recordCount()).isEqualTo(18L);
    assertThat(snapshots(TABLE)).hasSize(snapshotsBefore + 1);
    Snapshot replace = icebergTable(TABLE).currentSnapshot();
    assertThat(replace.operation()).isEqualTo("replace");
    assertThat(replace.summary()).containsKey(Committer.COMMIT_ID_KEY);
    for (DataFile old : before) {
      // the old files stay on disk until snapshot expiry, as with the official runtime
      assertThat(Files.exists(Paths.get(URI.create(old.location())))).isTrue();
    }
    assertRowsEqualView();
  }

  @Test
  void partitionedTableGetsOneFilePerPartition() {
    createPartitioned();
    appendSmallFiles(5);
    snapshotRowsAsView();
    assertThat(dataFiles()).hasSize(10);

    List<Row> result = call("rewrite_data_files(table => '%s')", TABLE).collectAsList();

    assertThat(result.get(0).getInt(0)).isEqualTo(10);
    assertThat(result.get(0).getInt(1)).isEqualTo(2);
    List<DataFile> after = dataFiles();
    assertThat(after).hasSize(2);
    assertThat(
            after.stream()
                .map(file -> file.partition().get(0, CharSequence.class).toString())
                .sorted()
                .collect(Collectors.toList()))
        .containsExactly("a", "b");
    assertRowsEqualView();
  }

  @Test
  void whereRewritesOnlyTheFilesThatMayMatch() {
    createPartitioned();
    appendSmallFiles(5);
    snapshotRowsAsView();
    List<DataFile> inB =
        dataFiles().stream()
            .filter(file -> "b".equals(file.partition().get(0, CharSequence.class).toString()))
            .collect(Collectors.toList());

    List<Row> result =
        call("rewrite_data_files(table => '%s', where => 'cat = \"a\"')", TABLE).collectAsList();

    assertThat(result.get(0).getInt(0)).isEqualTo(5);
    assertThat(result.get(0).getInt(1)).isEqualTo(1);
    List<String> after = dataFiles().stream().map(DataFile::location).collect(Collectors.toList());
    assertThat(after).hasSize(6);
    assertThat(after).containsAll(inB.stream().map(DataFile::location).collect(Collectors.toList()));
    assertRowsEqualView();
  }

  @Test
  void fewerFilesThanMinInputFilesAreLeftAloneUnlessTheOptionSaysOtherwise() {
    appendSmallFiles(3);
    int snapshotsBefore = snapshots(TABLE).size();

    assertThat(call("rewrite_data_files('%s')", TABLE).collectAsList())
        .containsExactly(row(0, 0, 0L, 0, 0));
    assertThat(snapshots(TABLE)).hasSize(snapshotsBefore);

    snapshotRowsAsView();
    assertThat(
            call(
                    "rewrite_data_files(table => '%s', options => map('min-input-files', '2'))",
                    TABLE)
                .collectAsList()
                .get(0)
                .getInt(0))
        .isEqualTo(3);
    assertThat(dataFiles()).hasSize(1);
    assertRowsEqualView();
  }

  @Test
  void targetFileSizeSplitsTheOutputAndRewriteAllTakesEveryFile() {
    sql(
        "INSERT INTO %s.%s SELECT id, concat('value-', CAST(id * 7919 %% 100003 AS STRING)), "
            + "'a' FROM range(0, 20000)",
        CATALOG, TABLE);
    snapshotRowsAsView();
    long size = dataFiles().get(0).fileSizeInBytes();

    call(
            "rewrite_data_files(table => '%s', options => map('rewrite-all', 'true', "
                + "'target-file-size-bytes', '%d'))",
            TABLE, size / 3)
        .collectAsList();

    List<DataFile> after = dataFiles();
    assertThat(after.size()).isGreaterThanOrEqualTo(2);
    assertThat(after.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(20000L);
    assertRowsEqualView();
  }

  @Test
  void sortOrderTextSortsTheNewFile() {
    appendSmallFiles(5);
    snapshotRowsAsView();

    List<Row> result =
        call(
                "rewrite_data_files(table => '%s', strategy => 'sort', "
                    + "sort_order => 'data DESC NULLS LAST, id')",
                TABLE)
            .collectAsList();

    assertThat(result.get(0).getInt(0)).isEqualTo(5);
    List<DataFile> after = dataFiles();
    assertThat(after).hasSize(1);
    List<String> fileOrder =
        ReadTestSupport.fileRecords(icebergTable(TABLE), after.get(0)).stream()
            .map(RewriteDataFilesTest::idAndData)
            .collect(Collectors.toList());
    List<String> expected =
        sql("SELECT id, data FROM expected ORDER BY data DESC NULLS LAST, id").stream()
            .map(row -> row.get(0) + "/" + row.get(1))
            .collect(Collectors.toList());
    assertThat(fileOrder).isEqualTo(expected);
    assertRowsEqualView();
  }

  @Test
  void sortOrderWithABucketTransformSortsByIcebergsBucketValues() {
    appendSmallFiles(5);
    snapshotRowsAsView();

    call("rewrite_data_files(table => '%s', sort_order => 'bucket(4, id) DESC, id')", TABLE)
        .collectAsList();

    List<DataFile> after = dataFiles();
    assertThat(after).hasSize(1);
    List<String> fileOrder =
        ReadTestSupport.fileRecords(icebergTable(TABLE), after.get(0)).stream()
            .map(RewriteDataFilesTest::idAndData)
            .collect(Collectors.toList());
    List<String> expected =
        sql("SELECT id, data FROM expected ORDER BY floe.system.bucket(4, id) DESC, id").stream()
            .map(row -> row.get(0) + "/" + row.get(1))
            .collect(Collectors.toList());
    assertThat(fileOrder).isEqualTo(expected);
    assertRowsEqualView();
  }

  @Test
  void branchArgumentRewritesThatBranchOnly() {
    appendSmallFiles(2);
    icebergTable(TABLE).manageSnapshots()
        .createBranch("audit", icebergTable(TABLE).currentSnapshot().snapshotId()).commit();
    for (int i = 0; i < 3; i++) {
      sql("INSERT INTO %s.%s.branch_audit SELECT /*+ REPARTITION(1) */ %d, 'b', 'x'",
          CATALOG, TABLE, 100 + i);
    }
    long mainHead = icebergTable(TABLE).currentSnapshot().snapshotId();
    Dataset<Row> branchRows = spark.table(CATALOG + "." + TABLE + ".branch_audit");
    spark.createDataFrame(branchRows.collectAsList(), branchRows.schema())
        .createOrReplaceTempView("expected_branch");

    List<Row> result =
        call("rewrite_data_files(table => '%s', branch => 'audit')", TABLE).collectAsList();

    assertThat(result.get(0).getInt(0)).isEqualTo(5);
    Table table = icebergTable(TABLE);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(mainHead);
    assertThat(table.snapshot("audit").operation()).isEqualTo("replace");
    String branch = CATALOG + "." + TABLE + ".branch_audit";
    assertThat(sql("SELECT * FROM %s EXCEPT ALL SELECT * FROM expected_branch", branch)).isEmpty();
    assertThat(sql("SELECT * FROM expected_branch EXCEPT ALL SELECT * FROM %s", branch)).isEmpty();
    assertThatThrownBy(
            () -> call("rewrite_data_files(table => '%s', branch => 'nope')", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_data_files: branch nope of floe.db.compact does not "
                + "exist");
  }

  @Test
  void outputSpecIdRewritesIntoAnotherPartitionSpec() {
    appendSmallFiles(5);
    Table table = icebergTable(TABLE);
    table.updateSpec().addField("cat").commit();
    int newSpec = icebergTable(TABLE).spec().specId();
    snapshotRowsAsView();

    call("rewrite_data_files(table => '%s', options => map('output-spec-id', '%d'))",
            TABLE, newSpec)
        .collectAsList();

    List<DataFile> after = dataFiles();
    assertThat(after).hasSize(2);
    assertThat(after).allMatch(file -> file.specId() == newSpec);
    assertThat(
            after.stream()
                .map(file -> file.partition().get(0, CharSequence.class).toString())
                .sorted()
                .collect(Collectors.toList()))
        .containsExactly("a", "b");
    assertRowsEqualView();
  }

  @Test
  void zorderInterleavesTheColumnsBits() {
    sql("DROP TABLE IF EXISTS %s.%s", CATALOG, TABLE);
    sql("CREATE TABLE %s.%s (x INT, y INT, label STRING) USING iceberg", CATALOG, TABLE);
    for (int part = 0; part < 4; part++) {
      sql(
          "INSERT INTO %s.%s SELECT /*+ REPARTITION(1) */ CAST(id %% 8 AS INT), "
              + "CAST(id DIV 8 AS INT), CAST(id AS STRING) FROM range(%d, %d)",
          CATALOG, TABLE, part * 16, part * 16 + 16);
    }
    snapshotRowsAsView();

    List<Row> result =
        call("rewrite_data_files(table => '%s', sort_order => 'zorder(x, y)', "
                + "options => map('min-input-files', '2'))", TABLE)
            .collectAsList();

    assertThat(result.get(0).getInt(0)).isEqualTo(4);
    List<DataFile> after = dataFiles();
    assertThat(after).hasSize(1);
    List<Long> fileOrder =
        ReadTestSupport.fileRecords(icebergTable(TABLE), after.get(0)).stream()
            .map(record -> morton((Integer) record.getField("x"), (Integer) record.getField("y")))
            .collect(Collectors.toList());
    assertThat(fileOrder).isSorted().doesNotHaveDuplicates().hasSize(64);
    assertRowsEqualView();
  }

  /** The Morton code of two small non-negative ints, x's bit above y's at every level. */
  private static long morton(int x, int y) {
    long key = 0;
    for (int bit = 30; bit >= 0; bit--) {
      key = (key << 2) | (((x >> bit) & 1L) << 1) | ((y >> bit) & 1L);
    }
    return key;
  }

  @Test
  void sortWithoutSortOrderUsesTheTablesOrderAndRecordsIt() {
    icebergTable(TABLE).replaceSortOrder().desc("id").commit();
    appendSmallFiles(5);
    snapshotRowsAsView();

    call("rewrite_data_files(table => '%s', strategy => 'sort')", TABLE).collectAsList();

    List<DataFile> after = dataFiles();
    assertThat(after).hasSize(1);
    Table table = icebergTable(TABLE);
    assertThat(after.get(0).sortOrderId()).isEqualTo(table.sortOrder().orderId());
    List<String> fileOrder =
        ReadTestSupport.fileRecords(table, after.get(0)).stream()
            .map(RewriteDataFilesTest::idAndData)
            .collect(Collectors.toList());
    List<String> expected =
        sql("SELECT id, data FROM expected ORDER BY id DESC").stream()
            .map(row -> row.get(0) + "/" + row.get(1))
            .collect(Collectors.toList());
    assertThat(fileOrder).isEqualTo(expected);
    assertRowsEqualView();
  }

  @Test
  void positionDeletedRowsStayDeleted() {
    appendSmallFiles(5);
    addPositionDeleteToFirstFile();
    snapshotRowsAsView();
    assertThat(sql("SELECT count(*) FROM expected").get(0).getLong(0)).isEqualTo(14L);

    assertThat(call("rewrite_data_files('%s')", TABLE).collectAsList().get(0).getInt(4))
        .isEqualTo(0);

    assertThat(dataFiles()).hasSize(1);
    assertRowsEqualView();
  }

  @Test
  void removeDanglingDeletesDropsTheDeleteFileOfARewrittenDataFile() {
    appendSmallFiles(5);
    addPositionDeleteToFirstFile();
    snapshotRowsAsView();

    List<Row> result =
        call(
                "rewrite_data_files(table => '%s', options => map('remove-dangling-deletes', "
                    + "'true'))",
                TABLE)
            .collectAsList();

    assertThat(result.get(0).getInt(0)).isEqualTo(5);
    assertThat(result.get(0).getInt(4)).isEqualTo(1);
    Table table = icebergTable(TABLE);
    assertThat(table.currentSnapshot().deleteManifests(table.io()))
        .allMatch(manifest -> !manifest.hasAddedFiles() && !manifest.hasExistingFiles());
    assertThat(operations(TABLE).subList(operations(TABLE).size() - 2, operations(TABLE).size()))
        .containsExactly("replace", "replace");
    assertRowsEqualView();
  }

  private static void addPositionDeleteToFirstFile() {
    Table table = icebergTable(TABLE);
    DataFile first = ReadTestSupport.dataFiles(table).get(0);
    DeleteFile deletes = ReadTestSupport.positionDeletes(table, first, List.of(0L));
    table.newRowDelta().addDeletes(deletes).commit();
  }

  @Test
  void anAppendDuringTheRewriteDoesNotFailItsCommit() {
    appendSmallFiles(5);
    DataFileRewrite rewrite = newRewrite();
    DataFileRewrite.Plan plan = rewrite.plan(Expressions.alwaysTrue(), false);
    List<DataFileRewrite.RewrittenGroup> written = rewrite.rewriteAll(plan);

    sql("INSERT INTO %s.%s VALUES (1000, 'late', 'c')", CATALOG, TABLE);
    snapshotRowsAsView();
    DataFileRewrite.Outcome outcome = rewrite.commit(plan, written);

    assertThat(outcome.rewrittenDataFiles()).isEqualTo(5);
    assertThat(dataFiles()).hasSize(2);
    assertThat(icebergTable(TABLE).currentSnapshot().operation()).isEqualTo("replace");
    assertRowsEqualView();
  }

  @Test
  void aDeleteOfARewrittenFileDuringTheRewriteFailsItAndItsFilesAreDeleted() {
    appendSmallFiles(5);
    DataFileRewrite rewrite = newRewrite();
    DataFileRewrite.Plan plan = rewrite.plan(Expressions.alwaysTrue(), false);
    List<DataFileRewrite.RewrittenGroup> written = rewrite.rewriteAll(plan);
    List<Path> newFiles =
        written.stream()
            .flatMap(group -> group.added().stream())
            .map(file -> Paths.get(URI.create(file.location())))
            .collect(Collectors.toList());
    assertThat(newFiles).isNotEmpty().allMatch(Files::exists);

    Table table = icebergTable(TABLE);
    DataFile victim = ReadTestSupport.dataFiles(table).get(0);
    table.newRowDelta()
        .addDeletes(ReadTestSupport.positionDeletes(table, victim, List.of(1L)))
        .commit();
    snapshotRowsAsView();
    long deleteSnapshot = icebergTable(TABLE).currentSnapshot().snapshotId();

    assertThatThrownBy(() -> rewrite.commit(plan, written))
        .hasMessageContaining("Cannot commit the rewrite of 5 data files of floe.db.compact")
        .hasMessageContaining("conflicts with a concurrent commit");

    assertThat(icebergTable(TABLE).currentSnapshot().snapshotId()).isEqualTo(deleteSnapshot);
    assertThat(newFiles).noneMatch(Files::exists);
    assertThat(dataFiles()).hasSize(5);
    assertRowsEqualView();
  }

  @Test
  void partialProgressCommitsGroupsInSeveralSnapshots() {
    createPartitioned();
    appendSmallFiles(5);
    snapshotRowsAsView();
    int snapshotsBefore = snapshots(TABLE).size();

    List<Row> result =
        call(
                "rewrite_data_files(table => '%s', options => map('partial-progress.enabled', "
                    + "'true', 'partial-progress.max-commits', '2', "
                    + "'max-concurrent-file-group-rewrites', '1'))",
                TABLE)
            .collectAsList();

    assertThat(result).containsExactly(row(10, 2, result.get(0).getLong(2), 0, 0));
    assertThat(snapshots(TABLE)).hasSize(snapshotsBefore + 2);
    assertThat(operations(TABLE).subList(snapshotsBefore, snapshotsBefore + 2))
        .containsExactly("replace", "replace");
    assertRowsEqualView();
  }

  @Test
  void badInputFailsNamingItAndLeavesTheTableUnchanged() {
    appendSmallFiles(5);
    String metadata = metadataLocation();
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', options => map('nope', '1'))", TABLE)
                    .collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.rewrite_data_files: argument 'options' has an unknown key "
                + "'nope'; known keys: ");
    assertThatThrownBy(
            () -> call("rewrite_data_files(table => '%s', strategy => 'zip')", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_data_files: argument 'strategy' must be 'binpack' or "
                + "'sort', not 'zip'");
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', sort_order => 'id DESC NULLS', "
                        + "strategy => 'sort')", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_data_files: argument 'sort_order' Cannot parse sort "
                + "order 'id DESC NULLS': expected FIRST or LAST after NULLS");
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', sort_order => 'nope')", TABLE)
                    .collectAsList())
        .hasMessageContaining("argument 'sort_order' Cannot use sort order 'nope'");
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', where => 'nope > 1')", TABLE)
                    .collectAsList())
        .hasMessageStartingWith(
            "Cannot call floe.system.rewrite_data_files: argument 'where' cannot be parsed or "
                + "resolved as a filter: nope > 1");
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', where => 'length(data) > 1')", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_data_files: argument 'where' cannot be converted to "
                + "an Iceberg filter: length(data) > 1");
    assertThatThrownBy(
            () ->
                call(
                        "rewrite_data_files(table => '%s', options => map('min-input-files', '0'))",
                        TABLE)
                    .collectAsList())
        .hasMessageContaining("argument 'options' is invalid: 'min-input-files' is set to 0 but "
            + "must be > 0");
    assertThatThrownBy(
            () -> call("rewrite_data_files(table => '%s', strategy => 'sort')", TABLE).collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_data_files: argument 'sort_order' is required for "
                + "strategy 'sort': table floe.db.compact has no sort order");
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', sort_order => 'zorder(id, nope)')", TABLE)
                    .collectAsList())
        .hasMessage(
            "Cannot call floe.system.rewrite_data_files: argument 'sort_order' names 'nope', not "
                + "a top-level column of floe.db.compact");
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', sort_order => 'zorder(id)', "
                        + "options => map('compression-factor', '2', 'max-output-size', '0'))",
                        TABLE)
                    .collectAsList())
        .hasMessageContaining("option 'max-output-size' is set to 0 but must be > 0");
    assertThatThrownBy(
            () ->
                call("rewrite_data_files(table => '%s', options => map('max-output-size', '4'))",
                        TABLE)
                    .collectAsList())
        .hasMessageContaining("argument 'options' has an unknown key 'max-output-size'");
    assertThat(metadataLocation()).isEqualTo(metadata);
  }

  private static DataFileRewrite newRewrite() {
    SparkSession session = (SparkSession) spark;
    FunctionCatalog functions =
        (FunctionCatalog) session.sessionState().catalogManager().catalog(CATALOG);
    Table table = icebergTable(TABLE);
    return new DataFileRewrite(
        "floe.system.rewrite_data_files",
        table,
        null,
        new RewriteDataFilesOptions(Map.of(), false, "BIN-PACK"),
        (live, start) -> new FileGroupRewriter(session, functions, live, start, null));
  }

  private static String idAndData(Record record) {
    return record.getField("id") + "/" + record.getField("data");
  }
}
