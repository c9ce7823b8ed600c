package io.floe.spark.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Commits whose answer is lost, or that conflict, or that race a writer with the same commit id
 * between two attempts, on real hadoop and JDBC catalogs whose table operations are wrapped by
 * {@link FaultInjectingCatalog}. After each write the table holds the rows exactly once and every
 * data file it references is on disk.
 */
class CommitFaultTest extends SparkTestBase {
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static ExecutorService otherWriter;
  // a fresh table per test, so files left by one test never show up in another
  private static String TABLE;

  @BeforeAll
  static void configureCatalogs() {
    Path hadoop = warehouse.resolve("hadoop");
    spark.conf().set("spark.sql.catalog.faulty_hadoop", FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.faulty_hadoop.catalog-impl", FaultInjectingCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.faulty_hadoop.delegate-type", "hadoop");
    spark.conf().set("spark.sql.catalog.faulty_hadoop.warehouse", hadoop.toUri().toString());

    Path jdbc = warehouse.resolve("jdbc");
    spark.conf().set("spark.sql.catalog.faulty_jdbc", FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.faulty_jdbc.catalog-impl", FaultInjectingCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.faulty_jdbc.delegate-type", "jdbc");
    spark.conf().set("spark.sql.catalog.faulty_jdbc.uri", "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
    spark.conf().set("spark.sql.catalog.faulty_jdbc.jdbc.schema-version", "V1");
    spark.conf().set("spark.sql.catalog.faulty_jdbc.warehouse", jdbc.toUri().toString());

    // a thread created before any write, so it does not inherit a running query's properties
    otherWriter = Executors.newSingleThreadExecutor();
    otherWriter.submit(() -> null);
  }

  @AfterAll
  static void stopOtherWriter() {
    otherWriter.shutdownNow();
  }

  @BeforeEach
  void nameTable() {
    FaultInjectingCatalog.clear();
    TABLE = "db.t" + TABLES.incrementAndGet();
  }

  @ParameterizedTest
  @ValueSource(strings = {"faulty_hadoop", "faulty_jdbc"})
  void commitThatLandedButLostItsAnswerCountsAsCommitted(String catalog) {
    createTable(catalog);
    FaultInjectingCatalog.inject(catalog, TABLE, FaultInjectingCatalog.COMMIT_THEN_UNKNOWN);

    append(catalog, 0, 5, null);

    Table table = table(catalog);
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(1);
    assertThat(table.currentSnapshot().summary()).containsKey(Committer.COMMIT_ID_KEY);
    assertThat(ids(catalog)).isEqualTo(range(0, 5));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
    assertThat(TableFiles.unreferencedDataFiles(table)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"faulty_hadoop", "faulty_jdbc"})
  void commitThatLandedButLostItsAnswerIsNotRepeatedByARerun(String catalog) {
    createTable(catalog);
    FaultInjectingCatalog.inject(catalog, TABLE, FaultInjectingCatalog.COMMIT_THEN_UNKNOWN);

    append(catalog, 0, 5, "lost-answer");
    append(catalog, 0, 5, "lost-answer");

    Table table = table(catalog);
    assertThat(TableFiles.snapshotsWithId(table, "lost-answer")).hasSize(1);
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(1);
    assertThat(ids(catalog)).isEqualTo(range(0, 5));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
    assertThat(TableFiles.unreferencedDataFiles(table)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"faulty_hadoop", "faulty_jdbc"})
  void conflictBeforeCommitIsRetriedAndCommitsOnce(String catalog) {
    createTable(catalog);
    append(catalog, 0, 3, "first");
    FaultInjectingCatalog.inject(catalog, TABLE, FaultInjectingCatalog.CONFLICT_BEFORE_COMMIT);

    append(catalog, 3, 6, "second");

    Table table = table(catalog);
    assertThat(TableFiles.snapshotsWithId(table, "second")).hasSize(1);
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(2);
    assertThat(ids(catalog)).isEqualTo(range(0, 6));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
    assertThat(TableFiles.unreferencedDataFiles(table)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"faulty_hadoop", "faulty_jdbc"})
  void tableUnreadableAfterASuccessfulCommitDoesNotFailTheWrite(String catalog) {
    createTable(catalog);
    FaultInjectingCatalog.inject(
        catalog, TABLE, FaultInjectingCatalog.commitThenFailRefreshes(catalog, TABLE, 2));

    append(catalog, 0, 5, "unreadable-after");

    Table table = table(catalog);
    assertThat(TableFiles.snapshotsWithId(table, "unreadable-after")).hasSize(1);
    assertThat(ids(catalog)).isEqualTo(range(0, 5));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"faulty_hadoop", "faulty_jdbc"})
  void unknownOutcomeKeepsTheFilesAndNamesTheIdToRerunWith(String catalog) {
    createTable(catalog);
    FaultInjectingCatalog.inject(catalog, TABLE, FaultInjectingCatalog.UNKNOWN_WITHOUT_COMMIT);

    Throwable failure = catchFailure(() -> append(catalog, 0, 5, null));

    CommitStateUnknownError unknown = causeOf(failure, CommitStateUnknownError.class);
    String commitId = unknown.commitId();
    assertThat(unknown)
        .hasMessage(
            "Cannot tell whether commit %s to table %s.%s succeeded: the catalog did not answer and"
                + " the table does not show the commit yet. No data file was deleted; rerunning the"
                + " write with write option commit-id=%s is safe and adds the data at most once.",
            commitId, catalog, TABLE, commitId);
    Table table = table(catalog);
    assertThat(TableFiles.snapshotCount(table)).isZero();
    Set<Path> kept = TableFiles.unreferencedDataFiles(table);
    assertThat(kept).as("files of the write whose outcome is unknown").isNotEmpty();

    append(catalog, 0, 5, commitId);
    append(catalog, 0, 5, commitId);

    table = table(catalog);
    assertThat(TableFiles.snapshotsWithId(table, commitId)).hasSize(1);
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(1);
    assertThat(ids(catalog)).isEqualTo(range(0, 5));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
    assertThat(TableFiles.dataFilesOnDisk(table)).containsAll(kept);
  }

  @ParameterizedTest
  @ValueSource(strings = {"faulty_hadoop", "faulty_jdbc"})
  void sameIdCommittedBetweenTwoAttemptsIsSkippedByTheRetry(String catalog) {
    createTable(catalog);
    append(catalog, 0, 2, "load");
    // just before this write's first attempt reaches the catalog, another run commits the same id;
    // the attempt then conflicts, and the retry finds the id in the refreshed table
    FaultInjectingCatalog.inject(
        catalog,
        TABLE,
        (real, base, metadata) -> {
          try {
            otherWriter.submit(() -> append(catalog, 50, 55, "between")).get(2, TimeUnit.MINUTES);
          } catch (Exception e) {
            throw new IllegalStateException("the other writer failed", e);
          }
          real.commit(base, metadata);
        });

    append(catalog, 100, 105, "between");

    Table table = table(catalog);
    assertThat(TableFiles.snapshotsWithId(table, "between")).hasSize(1);
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(2);
    List<Long> expected = range(0, 2);
    expected.addAll(range(50, 55));
    assertThat(ids(catalog)).isEqualTo(expected);
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
    assertThat(TableFiles.unreferencedDataFiles(table)).as("files of the skipped run").isEmpty();
  }

  // helpers

  private static void createTable(String catalog) {
    sql("CREATE NAMESPACE IF NOT EXISTS %s.db", catalog);
    sql("CREATE TABLE %s.%s (id BIGINT, data STRING) USING iceberg", catalog, TABLE);
  }

  private static void append(String catalog, long from, long to, String commitId) {
    var writer =
        spark.range(from, to, 1, 1).selectExpr("id", "CAST(id AS STRING) AS data").writeTo(catalog + "." + TABLE);
    if (commitId != null) {
      writer = writer.option("commit-id", commitId);
    }
    try {
      writer.append();
    } catch (org.apache.spark.sql.catalyst.analysis.NoSuchTableException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Table table(String catalog) {
    FloeCatalog floe = (FloeCatalog) spark.sessionState().catalogManager().catalog(catalog);
    return floe.icebergCatalog().loadTable(TableIdentifier.parse(TABLE));
  }

  private static List<Long> ids(String catalog) {
    return sql("SELECT id FROM %s.%s ORDER BY id", catalog, TABLE).stream()
        .map((Row row) -> row.getLong(0))
        .collect(Collectors.toList());
  }

  private static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().collect(Collectors.toList());
  }

  private static Throwable catchFailure(Runnable action) {
    try {
      action.run();
    } catch (Throwable t) {
      return t;
    }
    throw new AssertionError("the write was expected to fail");
  }

  private static <T extends Throwable> T causeOf(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
    }
    throw new AssertionError("no " + type.getSimpleName() + " in " + failure, failure);
  }
}
