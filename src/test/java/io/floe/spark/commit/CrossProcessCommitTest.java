package io.floe.spark.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two driver JVMs write the same rows with the same commit id to one table of a JDBC catalog (SQLite)
 * at the same moment: the table gets exactly one snapshot with the id, and every row once.
 */
class CrossProcessCommitTest {
  private static final String CATALOG = "floe";

  @TempDir Path dir;
  private JdbcCatalog catalog;
  private String uri;
  private String warehouse;

  @BeforeEach
  void createTable() {
    uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
    warehouse = dir.resolve("warehouse").toUri().toString();
    catalog = new JdbcCatalog();
    catalog.setConf(new Configuration());
    catalog.initialize(
        CATALOG,
        Map.of(
            CatalogProperties.URI, uri,
            "jdbc.schema-version", "V1",
            CatalogProperties.WAREHOUSE_LOCATION, warehouse));
    catalog.createNamespace(Namespace.of("db"));
    catalog.createTable(
        TableIdentifier.of("db", "shared"),
        new Schema(
            Types.NestedField.optional(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "data", Types.StringType.get())));
  }

  @AfterEach
  void closeCatalog() throws IOException {
    catalog.close();
  }

  @Test
  void twoDriversWithSameCommitIdAddOneSnapshot() throws Exception {
    Path go = dir.resolve("go");
    List<Process> drivers = new ArrayList<>();
    List<Path> logs = new ArrayList<>();
    List<Path> ready = new ArrayList<>();
    for (int i = 0; i < 2; i += 1) {
      Path log = dir.resolve("driver-" + i + ".log");
      Path readyFile = dir.resolve("ready-" + i);
      logs.add(log);
      ready.add(readyFile);
      drivers.add(startDriver("db.shared", "nightly-42", 0, 50, readyFile, go, log));
    }
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (!ready.stream().allMatch(Files::exists)) {
        assertThat(System.nanoTime()).as("drivers ready in time\n%s", tails(logs)).isLessThan(deadline);
        assertThat(drivers).as("drivers still running\n%s", tails(logs)).allMatch(Process::isAlive);
        Thread.sleep(50);
      }
      Files.createFile(go);
      for (Process driver : drivers) {
        assertThat(driver.waitFor(3, TimeUnit.MINUTES)).as("driver finished\n%s", tails(logs)).isTrue();
        assertThat(driver.exitValue()).as("driver exit code\n%s", tails(logs)).isZero();
      }
    } finally {
      drivers.forEach(Process::destroyForcibly);
    }

    Table table = catalog.loadTable(TableIdentifier.of("db", "shared"));
    assertThat(TableFiles.snapshotsWithId(table, "nightly-42")).hasSize(1);
    assertThat(TableFiles.snapshotCount(table)).isEqualTo(1);
    assertThat(ids(table)).isEqualTo(LongStream.range(0, 50).boxed().collect(Collectors.toList()));
    assertThat(TableFiles.missingDataFiles(table)).isEmpty();
    assertThat(TableFiles.unreferencedDataFiles(table)).as("files of the skipped driver").isEmpty();
  }

  private Process startDriver(
      String table, String commitId, long from, long to, Path ready, Path go, Path log)
      throws IOException {
    return ChildJvm.start(
        SameIdWriter.class,
        List.of(uri, warehouse, table, commitId, Long.toString(from), Long.toString(to),
            ready.toString(), go.toString()),
        log);
  }

  private static List<Long> ids(Table table) throws IOException {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        ids.add((Long) record.getField("id"));
      }
    }
    ids.sort(null);
    return ids;
  }

  private static String tails(List<Path> logs) {
    StringBuilder text = new StringBuilder();
    for (Path log : logs) {
      text.append("--- ").append(log.getFileName()).append('\n');
      try {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.UTF_8) : List.of();
        lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(line -> text.append(line).append('\n'));
      } catch (IOException e) {
        text.append("(unreadable: ").append(e.getMessage()).append(")\n");
      }
    }
    return text.toString();
  }
}
