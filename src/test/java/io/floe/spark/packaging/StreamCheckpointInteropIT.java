package io.floe.spark.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One stream checkpoint used by the official Iceberg runtime and by Floe, each in its own
 * {@code spark-submit} JVM on a plain Spark installation: the first runtime commits epochs 0 and
 * 1, the checkpoint then loses epoch 1's commit log entry (a crash between the table commit and
 * the checkpoint commit), and the other runtime restarts from it. The replayed epoch adds nothing,
 * the next epoch is written once; both ways.
 */
class StreamCheckpointInteropIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(4);
  private static final String QUERY_ID_KEY = "spark.sql.streaming.queryId";
  private static final String EPOCH_ID_KEY = "spark.sql.streaming.epochId";

  private static Path root;
  private static SparkDistribution spark;
  private static Path appJar;
  private static Path warehouse;

  @BeforeAll
  static void install() throws IOException, InterruptedException {
    Files.createDirectories(Settings.buildDir());
    root = Files.createTempDirectory(Settings.buildDir(), "stream-interop-it-");
    spark = SparkDistribution.shared();
    appJar = writeAppJar(root.resolve("stream-app.jar"));
    warehouse = root.resolve("warehouse");
  }

  @AfterAll
  static void cleanUp() throws IOException {
    SparkDistribution.deleteRecursively(root);
  }

  /** The official runtime jar, copied into the build folder by the build. */
  static Path officialRuntimeJar() {
    Path jar = Paths.get(Settings.required("floe.officialRuntimeJar"));
    if (!Files.exists(jar)) {
      throw new IllegalStateException("The official runtime jar the build copies is missing: " + jar);
    }
    return jar;
  }

  private static String stream(boolean official, String table, Path checkpoint, int preload, int total)
      throws IOException, InterruptedException {
    String name = (official ? "official-" : "floe-") + table.replace('.', '-') + "-" + total;
    return runStream(spark, root, appJar, official, table, checkpoint, preload, total, 10, name);
  }

  /** Runs {@link StreamApp} with one runtime's catalog {@code cat} over {@code <root>/warehouse}. */
  static String runStream(
      SparkDistribution spark, Path root, Path appJar, boolean official, String table,
      Path checkpoint, int preload, int total, int perBatch, String name)
      throws IOException, InterruptedException {
    Path warehouse = root.resolve("warehouse");
    List<String> args = new ArrayList<>(List.of("--master", "local[2]", "--name", name));
    args.addAll(List.of(
        "--jars", (official ? officialRuntimeJar() : Settings.runtimeJar()).toString(),
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.shuffle.partitions=2",
        "--conf", "spark.sql.catalog.cat="
            + (official ? "org.apache.iceberg.spark.SparkCatalog" : "io.floe.spark.FloeCatalog"),
        "--conf", "spark.sql.catalog.cat.type=hadoop",
        "--conf", "spark.sql.catalog.cat.warehouse=" + warehouse.toUri(),
        "--class", StreamApp.class.getName(),
        appJar.toString(),
        "cat." + table, checkpoint.toString(), String.valueOf(preload), String.valueOf(total),
        String.valueOf(perBatch)));
    String output = spark.run("org.apache.spark.deploy.SparkSubmit", List.of("-Xmx2g"), args,
        root.resolve(name + ".log"), root.resolve(name), TIMEOUT);
    assertThat(output).contains(StreamApp.DONE_PREFIX);
    return output;
  }

  private static void loseCommit(Path checkpoint, int epoch) throws IOException {
    Path commits = checkpoint.resolve("commits");
    assertThat(commits.resolve(String.valueOf(epoch))).exists();
    Files.delete(commits.resolve(String.valueOf(epoch)));
    Files.deleteIfExists(commits.resolve("." + epoch + ".crc"));
  }

  private static Table table(String name) {
    HadoopCatalog catalog = new HadoopCatalog(new Configuration(), warehouse.toUri().toString());
    return catalog.loadTable(TableIdentifier.parse(name));
  }

  private static List<Long> ids(Table table) throws IOException {
    List<Long> ids = new ArrayList<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      records.forEach(record -> ids.add((Long) record.getField("id")));
    }
    ids.sort(null);
    return ids;
  }

  private static List<Snapshot> ancestry(Table table) {
    List<Snapshot> snapshots = new ArrayList<>();
    SnapshotUtil.ancestorsOf(table.currentSnapshot().snapshotId(), table::snapshot)
        .forEach(snapshot -> snapshots.add(0, snapshot));
    return snapshots;
  }

  private static List<Long> range(long from, long to) {
    List<Long> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add(id);
    }
    return ids;
  }

  private void movesWithoutDuplicates(boolean firstOfficial, String table) throws Exception {
    Path checkpoint = root.resolve("checkpoint-" + table);
    stream(firstOfficial, table, checkpoint, 0, 2);
    loseCommit(checkpoint, 1);
    stream(!firstOfficial, table, checkpoint, 2, 3);

    Table written = table(table);
    assertThat(ids(written)).isEqualTo(range(0, 30));
    List<Snapshot> ancestry = ancestry(written);
    assertThat(ancestry).hasSize(3);
    String query = ancestry.get(0).summary().get(QUERY_ID_KEY);
    assertThat(query).isNotNull();
    for (int epoch = 0; epoch < 3; epoch++) {
      assertThat(ancestry.get(epoch).summary())
          .containsEntry(QUERY_ID_KEY, query)
          .containsEntry(EPOCH_ID_KEY, String.valueOf(epoch));
    }
    // Floe's epochs carry floe.commit-id, the official runtime's do not
    assertThat(ancestry.get(1).summary().containsKey("floe.commit-id")).isEqualTo(!firstOfficial);
    assertThat(ancestry.get(2).summary().containsKey("floe.commit-id")).isEqualTo(firstOfficial);
  }

  @Test
  void checkpointMovesFromTheOfficialRuntimeToFloeWithoutDuplicates() throws Exception {
    movesWithoutDuplicates(true, "s.official_first");
  }

  @Test
  void checkpointMovesFromFloeToTheOfficialRuntimeWithoutDuplicates() throws Exception {
    movesWithoutDuplicates(false, "s.floe_first");
  }

  /** A jar holding only {@link StreamApp}, which knows nothing of either runtime. */
  static Path writeAppJar(Path jar) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    String entry = StreamApp.class.getName().replace('.', '/') + ".class";
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
      jarOut.putNextEntry(new JarEntry(entry));
      try (var in = StreamApp.class.getClassLoader().getResourceAsStream(entry)) {
        in.transferTo(jarOut);
      }
      jarOut.closeEntry();
    }
    return jar;
  }
}
