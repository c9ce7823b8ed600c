package io.floe.spark.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeScan;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A scan planned on S3 whose S3 client, FileIO or catalog is closed before it runs: it fails with
 * an error that names the file it could not read, or it reads every row; it never returns no rows
 * or some of them quietly. Each test uses its own catalog (JDBC, warehouse in a bucket of the test
 * S3 server), since closing one breaks it for whatever comes next.
 */
class S3ClosedClientTest extends SparkTestBase {
  private static final String BUCKET = "floe-s3-closed";
  private static final List<Long> IDS = List.of(1L, 2L, 3L, 4L, 5L, 6L);
  private static S3Server s3;
  private static Path catalogFolder;

  @BeforeAll
  static void startS3() throws IOException {
    s3 = S3Server.start("floe-closed-access", "floe-closed-secret-key");
    s3.createBucket(BUCKET);
    catalogFolder = Files.createTempDirectory("floe-s3-closed-catalog");
  }

  @AfterAll
  static void stopS3() throws IOException {
    if (s3 != null) {
      s3.close();
    }
    deleteRecursively(catalogFolder);
  }

  @Test
  void plannedScanWhoseS3ClientIsClosedReadsEveryRow() throws Exception {
    String catalog = catalogWithTable("client_closed");
    for (boolean vectorized : List.of(true, false)) {
      for (String prefetch : List.of("0", "2")) {
        FloeBatch batch = batch(catalog, oneGroup(vectorized, prefetch));
        S3FileIO io = (S3FileIO) batch.readerFactory().settings().io();
        // one partition of every file: with prefetching, files are opened ahead of the one read
        assertThat(batch.partitions())
            .singleElement()
            .satisfies(partition -> assertThat(partition.tasks()).hasSizeGreaterThan(2));
        io.client().close();
        // the SDK client does not close the HTTP client Iceberg hands it, so it keeps working;
        // what matters is that the read is complete, never empty or partial
        assertThat(readAll(batch))
            .as("vectorized=%s prefetch=%s", vectorized, prefetch)
            .isEqualTo(IDS);
        io.close();
      }
    }
  }

  @Test
  void plannedScanWhoseS3ServerIsGoneFailsNamingTheFile() throws Exception {
    S3Server gone = S3Server.start("floe-gone-access", "floe-gone-secret-key");
    String catalog = "server_gone";
    List<FloeBatch> batches = new ArrayList<>();
    try {
      gone.createBucket(BUCKET);
      configureCatalog(catalog, gone);
      // no retries: each read fails at once instead of after Iceberg's backoff
      spark.conf().set("spark.sql.catalog." + catalog + ".s3.retry.num-retries", "0");
      createTable(catalog);
      for (boolean vectorized : List.of(true, false)) {
        for (String prefetch : List.of("0", "2")) {
          batches.add(batch(catalog, oneGroup(vectorized, prefetch)));
        }
      }
    } finally {
      gone.close();
    }
    for (FloeBatch batch : batches) {
      String what = batch.readerFactory().toString();
      assertThatThrownBy(() -> readAll(batch))
          .as(what)
          .satisfies(
              error ->
                  assertThat(messages(error))
                      .as(what)
                      .contains("s3://" + BUCKET + "/warehouse/" + catalog + "/db/t/data/"));
    }
  }

  @Test
  void plannedScanWhoseFileIoIsClosedReadsEveryRow() throws Exception {
    String catalog = catalogWithTable("io_closed");
    FloeBatch batch = batch(catalog, Map.of("split-size", "1", "prefetch-files", "2"));
    batch.readerFactory().settings().io().close();
    // Iceberg's S3FileIO builds a new client when it is used after close(): every row is read
    assertThat(readAll(batch)).isEqualTo(IDS);
  }

  @Test
  void plannedQueryRunAfterItsCatalogIsClosedReadsEveryRow() throws Exception {
    String catalog = catalogWithTable("catalog_closed");
    Dataset<Row> query = spark.sql("SELECT id FROM " + catalog + ".db.t");
    query.queryExecution().executedPlan();
    ((Closeable) floeCatalog(catalog).icebergCatalog()).close();

    List<Long> ids = new ArrayList<>();
    query.collectAsList().forEach(row -> ids.add(row.getLong(0)));
    assertThat(ids).containsExactlyInAnyOrderElementsOf(IDS);
  }

  // helpers

  /** A new catalog over the test's bucket and JDBC database, holding {@code db.t}. */
  private static String catalogWithTable(String name) {
    configureCatalog(name, s3);
    createTable(name);
    return name;
  }

  /** {@code db.t} holding {@link #IDS} in several files. */
  private static void createTable(String catalog) {
    sql("CREATE NAMESPACE %s.db", catalog);
    sql("CREATE TABLE %s.db.t (id BIGINT, data STRING) USING iceberg", catalog);
    sql("INSERT INTO %s.db.t VALUES (1, 'a'), (2, 'b')", catalog);
    sql("INSERT INTO %s.db.t VALUES (3, 'c'), (4, 'd')", catalog);
    sql("INSERT INTO %s.db.t VALUES (5, 'e'), (6, 'f')", catalog);
  }

  /**
   * A catalog over a bucket of the server and the test's JDBC database (the JDBC catalog keeps
   * tables per catalog name, so each name has its own).
   */
  private static void configureCatalog(String name, S3Server server) {
    String prefix = "spark.sql.catalog." + name;
    spark.conf().set(prefix, FloeCatalog.class.getName());
    spark.conf().set(prefix + ".type", "jdbc");
    spark.conf().set(prefix + ".uri", "jdbc:sqlite:" + catalogFolder.resolve("catalog.db"));
    spark.conf().set(prefix + ".jdbc.schema-version", "V1");
    spark.conf().set(prefix + ".warehouse", "s3://" + BUCKET + "/warehouse/" + name);
    server.fileIoOptions(true).forEach((key, value) -> spark.conf().set(prefix + "." + key, value));
  }

  /** Read options that put every file in one partition. */
  private static Map<String, String> oneGroup(boolean vectorized, String prefetch) {
    return Map.of(
        "vectorization-enabled", String.valueOf(vectorized),
        "prefetch-files", prefetch,
        "split-size", String.valueOf(128L << 20));
  }

  private static FloeCatalog floeCatalog(String name) {
    return (FloeCatalog) ((SparkSession) spark).sessionState().catalogManager().catalog(name);
  }

  private static FloeBatch batch(String catalog, Map<String, String> options) throws Exception {
    FloeTable table =
        (FloeTable) floeCatalog(catalog).loadTable(Identifier.of(new String[] {"db"}, "t"));
    FloeScan scan =
        (FloeScan) table.newScanBuilder(new CaseInsensitiveStringMap(options)).build();
    return (FloeBatch) scan.toBatch();
  }

  /** The ids every partition of the batch reads, sorted, as executors would read them. */
  private static List<Long> readAll(FloeBatch batch) throws IOException {
    List<Long> ids = new ArrayList<>();
    for (FloeInputPartition partition : batch.partitions()) {
      ids.addAll(read(batch, partition));
    }
    ids.sort(Long::compare);
    return ids;
  }

  private static List<Long> read(FloeBatch batch, FloeInputPartition partition)
      throws IOException {
    PartitionReaderFactory factory = batch.createReaderFactory();
    List<Long> ids = new ArrayList<>();
    if (factory.supportColumnarReads(partition)) {
      try (PartitionReader<ColumnarBatch> reader = factory.createColumnarReader(partition)) {
        while (reader.next()) {
          ColumnarBatch columns = reader.get();
          for (int row = 0; row < columns.numRows(); row++) {
            ids.add(columns.column(0).getLong(row));
          }
        }
      }
    } else {
      try (PartitionReader<InternalRow> reader = factory.createReader(partition)) {
        while (reader.next()) {
          ids.add(reader.get().getLong(0));
        }
      }
    }
    return ids;
  }

  /** The messages of an error and its causes, one a line. */
  private static String messages(Throwable error) {
    StringBuilder text = new StringBuilder();
    for (Throwable cause = error; cause != null; cause = cause.getCause()) {
      text.append(cause.getClass().getName()).append(": ").append(cause.getMessage()).append('\n');
    }
    return text.toString();
  }
}
