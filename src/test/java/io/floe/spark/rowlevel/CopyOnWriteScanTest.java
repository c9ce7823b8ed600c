package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.read.FloeInputPartition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ScanTask;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.RowLevelOperationInfoImpl;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The copy-on-write scan's run-time filter on {@code _file}, called as Spark calls it for both
 * sides of a rewritten UPDATE: from several threads at once. Every reader must read the same files
 * and the commit must remove exactly those.
 */
class CopyOnWriteScanTest extends RowLevelTestBase {

  private static CopyOnWriteScan scan() throws Exception {
    create(
        "id BIGINT, data INT",
        "TBLPROPERTIES ('format-version'='2')",
        "(1, 10), (2, 20)",
        "(3, 30), (4, 40)",
        "(5, 50), (6, 60)");
    TableCatalog catalog = (TableCatalog) spark.sessionState().catalogManager().catalog("floe");
    SupportsRowLevelOperations table =
        (SupportsRowLevelOperations) catalog.loadTable(Identifier.of(new String[] {"db"}, "t"));
    RowLevelOperation operation =
        table
            .newRowLevelOperationBuilder(
                new RowLevelOperationInfoImpl(Command.UPDATE, CaseInsensitiveStringMap.empty()))
            .build();
    return (CopyOnWriteScan) operation.newScanBuilder(CaseInsensitiveStringMap.empty()).build();
  }

  private static Predicate fileIn(List<String> locations) {
    List<Expression> children = new ArrayList<>();
    children.add(Expressions.column("_file"));
    for (String location : locations) {
      children.add(new LiteralValue<>(UTF8String.fromString(location), DataTypes.StringType));
    }
    return new Predicate("IN", children.toArray(new Expression[0]));
  }

  private static Set<String> batchFiles(CopyOnWriteScan scan) {
    Set<String> files = new HashSet<>();
    for (InputPartition partition : scan.toBatch().planInputPartitions()) {
      for (ScanTask task : ((FloeInputPartition) partition).tasks()) {
        files.add(task.asFileScanTask().file().location());
      }
    }
    return files;
  }

  private static Set<String> locations(List<DataFile> files) {
    Set<String> result = new HashSet<>();
    files.forEach(file -> result.add(file.location()));
    return result;
  }

  @Test
  void filtersCalledFromManyThreadsAllReadTheFilesTheCommitRemoves() throws Exception {
    CopyOnWriteScan scan = scan();
    Set<String> all = batchFiles(scan);
    assertThat(all.size()).isGreaterThan(2);
    List<String> chosen = new ArrayList<>(all).subList(0, 2);
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Set<String>>> reads = new ArrayList<>();
      for (int i = 0; i < threads; i += 1) {
        reads.add(
            pool.submit(
                () -> {
                  start.await();
                  scan.filter(new Predicate[] {fileIn(chosen)});
                  return batchFiles(scan);
                }));
      }
      start.countDown();
      for (Future<Set<String>> read : reads) {
        assertThat(read.get(1, TimeUnit.MINUTES)).isEqualTo(Set.copyOf(chosen));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(locations(scan.readFiles())).isEqualTo(Set.copyOf(chosen));
  }

  @Test
  void aSecondFilterNamingOtherFilesFailsInsteadOfChangingWhatIsRead() throws Exception {
    CopyOnWriteScan scan = scan();
    List<String> all = new ArrayList<>(batchFiles(scan));
    scan.filter(new Predicate[] {fileIn(all.subList(0, 1))});

    assertThatThrownBy(() -> scan.filter(new Predicate[] {fileIn(all.subList(0, 2))}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot filter the copy-on-write scan of floe.db.t to 2 files")
        .hasMessageContaining("its readers must all read the same files");
    assertThat(batchFiles(scan)).containsExactly(all.get(0));
    assertThat(locations(scan.readFiles())).containsExactly(all.get(0));
  }

  @Test
  void withoutARuntimeFilterEveryPlannedFileIsReadAndRemoved() throws Exception {
    CopyOnWriteScan scan = scan();
    assertThat(locations(scan.readFiles())).isEqualTo(batchFiles(scan));
    assertThat(scan.readFiles()).hasSameSizeAs(liveDataFiles());
  }
}
