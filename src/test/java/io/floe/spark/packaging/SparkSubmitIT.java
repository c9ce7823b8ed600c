package io.floe.spark.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Floe as users install it: Spark's real {@code SparkSubmit} main class, in its own JVM on a
 * classpath of Spark's jars only ({@link SparkDistribution}), gets Floe either with {@code
 * --packages} (the thin jar and its POM, installed into a throwaway Maven repository; the other
 * libraries come from the local Maven repository as a cache, or Maven Central) or with {@code
 * --jars} (the shaded runtime jar), and runs SQL that creates a partitioned table, inserts into it
 * and reads it back, does the same with tables of ORC and Avro data files, and imports Spark-written
 * ORC files with {@code add_files}, in local mode and on a standalone cluster whose executors are
 * separate JVMs.
 */
@Tag("packaging")
class SparkSubmitIT {
  private static final Duration SUBMIT_TIMEOUT = Duration.ofMinutes(8);

  private static final List<String> STATEMENTS = List.of(
      "CREATE NAMESPACE IF NOT EXISTS cat.db",
      "CREATE TABLE cat.db.events (id BIGINT, kind STRING, ts TIMESTAMP) USING iceberg"
          + " PARTITIONED BY (days(ts))",
      "INSERT INTO cat.db.events VALUES (1, 'click', TIMESTAMP '2024-01-01 10:00:00'),"
          + " (2, 'view', TIMESTAMP '2024-01-02 11:00:00'), (3, 'click', TIMESTAMP '2024-01-02 12:00:00')",
      "SELECT id, kind, CAST(ts AS DATE) FROM cat.db.events ORDER BY id",
      "SELECT kind, count(*) FROM cat.db.events WHERE ts >= TIMESTAMP '2024-01-02 00:00:00'"
          + " GROUP BY kind ORDER BY kind",
      "SELECT operation, summary['added-records'] FROM cat.db.events.snapshots",
      // ORC and Avro data files: written through Iceberg's writers and read back, ORC beside the
      // different orc-core Spark ships
      "CREATE TABLE cat.db.orc_events (id BIGINT, kind STRING) USING iceberg PARTITIONED BY (kind)"
          + " TBLPROPERTIES ('write.format.default' = 'orc')",
      "INSERT INTO cat.db.orc_events VALUES (1, 'click'), (2, 'view'), (3, 'click')",
      "DELETE FROM cat.db.orc_events WHERE id = 3",
      "SELECT id, kind FROM cat.db.orc_events WHERE kind = 'click' OR id = 2 ORDER BY id",
      "SELECT file_format, sum(record_count) FROM cat.db.orc_events.files GROUP BY file_format",
      "CREATE TABLE cat.db.avro_events (id BIGINT, kind STRING) USING iceberg"
          + " TBLPROPERTIES ('write.format.default' = 'avro')",
      "INSERT INTO cat.db.avro_events VALUES (4, 'view'), (5, 'click')",
      "SELECT id, kind FROM cat.db.avro_events WHERE id > 4",
      "SELECT file_format, sum(record_count) FROM cat.db.avro_events.files GROUP BY file_format",
      // an import of Spark-written ORC files: their TIMESTAMP holds the writer's local time, which
      // Floe reads through the relocated ORC classes of the jar under test (the driver runs in
      // America/Los_Angeles, a cluster's executors in the machine's zone)
      "CREATE TABLE spark_catalog.default.orc_src (id BIGINT, ts TIMESTAMP, ntz TIMESTAMP_NTZ) USING orc",
      "INSERT INTO spark_catalog.default.orc_src SELECT /*+ REPARTITION(1) */ * FROM VALUES"
          + " (1, TIMESTAMP '2024-03-10 01:30:00', TIMESTAMP_NTZ '2024-03-10 02:30:00'),"
          + " (2, TIMESTAMP '2024-07-01 12:00:00', TIMESTAMP_NTZ '2024-07-01 12:00:00'),"
          + " (3, CAST(NULL AS TIMESTAMP), CAST(NULL AS TIMESTAMP_NTZ)) AS v(id, ts, ntz)",
      "CREATE TABLE cat.db.imported (id BIGINT, ts TIMESTAMP, ntz TIMESTAMP_NTZ) USING iceberg",
      "CALL cat.system.add_files(table => 'db.imported', source_table => 'spark_catalog.default.orc_src')",
      "SELECT id, CAST(ts AS STRING), CAST(ntz AS STRING) FROM cat.db.imported ORDER BY id",
      "SELECT id FROM cat.db.imported WHERE ts > TIMESTAMP '2024-03-10 01:00:00' ORDER BY id",
      // Spark's own ORC reader of the same files, row for row, both ways
      "SELECT count(*) FROM (SELECT * FROM cat.db.imported EXCEPT ALL SELECT * FROM spark_catalog.default.orc_src)",
      "SELECT count(*) FROM (SELECT * FROM spark_catalog.default.orc_src EXCEPT ALL SELECT * FROM cat.db.imported)");

  private static final List<String> EXPECTED_ROWS = List.of(
      "1|click|2024-01-01",
      "2|view|2024-01-02",
      "3|click|2024-01-02",
      "click|1",
      "view|1",
      "append|3",
      "1|click",
      "2|view",
      "ORC|2",
      "5|click",
      "AVRO|2",
      "1|1",
      "1|2024-03-10 01:30:00|2024-03-10 02:30:00",
      "2|2024-07-01 12:00:00|2024-07-01 12:00:00",
      "3|null|null",
      "1",
      "2",
      "0",
      "0");

  private static Path root;
  private static SparkDistribution spark;
  private static Path ivySettings;
  private static Path appJar;
  private static StandaloneCluster cluster;

  @BeforeAll
  static void installFloeAndStartCluster() throws IOException, InterruptedException {
    Files.createDirectories(Settings.buildDir());
    root = Files.createTempDirectory(Settings.buildDir(), "spark-submit-it-");
    spark = SparkDistribution.shared();
    Path repository = installThinArtifact(root.resolve("repository"));
    ivySettings = writeIvySettings(root.resolve("ivysettings.xml"), repository);
    appJar = writeAppJar(root.resolve("floe-packaging-app.jar"));
    cluster = StandaloneCluster.start(spark, root.resolve("cluster"), Duration.ofMinutes(2));
  }

  @AfterAll
  static void stopCluster() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    SparkDistribution.deleteRecursively(root);
  }

  @Test
  void packagesResolveFloeWithoutSparksOwnLibrariesAndRunSqlLocally() throws Exception {
    Path ivyHome = root.resolve("ivy");
    String output = submit("packages-local", "local[2]", packages(ivyHome));

    assertThat(rows(output)).containsExactlyElementsOf(EXPECTED_ROWS);
    assertThat(output).contains(SqlApp.DONE_PREFIX + "master=local[2] executors=0");
    assertThat(dataFolders("packages-local")).containsExactly("ts_day=2024-01-01", "ts_day=2024-01-02");

    List<String> resolved = resolvedJars(ivyHome);
    assertThat(resolved)
        .contains(
            Settings.groupId() + "_" + Settings.artifactId() + "-" + Settings.version() + ".jar",
            "org.apache.iceberg_iceberg-core-1.11.0.jar",
            "org.apache.iceberg_iceberg-parquet-1.11.0.jar");
    // every jar --packages adds is one Spark does not ship: no second Parquet, Avro, Jackson, ...
    for (String module : spark.modules()) {
      String prefix = module.replace(':', '_') + "-";
      assertThat(resolved)
          .as("jars resolved by --packages that Spark ships as %s", module)
          .noneMatch(jar -> jar.startsWith(prefix) && Character.isDigit(jar.charAt(prefix.length())));
    }
  }

  @Test
  void packagesRunSqlOnStandaloneCluster() throws Exception {
    // the same Ivy home as the local run, if that ran first: its cache spares copying jars again
    String output = submit("packages-cluster", cluster.url(), packages(root.resolve("ivy")));

    assertThat(rows(output)).containsExactlyElementsOf(EXPECTED_ROWS);
    assertThat(output).contains(SqlApp.DONE_PREFIX + "master=" + cluster.url() + " executors=1");
    assertThat(dataFolders("packages-cluster")).containsExactly("ts_day=2024-01-01", "ts_day=2024-01-02");
  }

  @Test
  void runtimeJarRunsSqlLocally() throws Exception {
    String output = submit("jars-local", "local[2]", List.of("--jars", Settings.runtimeJar().toString()));

    assertThat(rows(output)).containsExactlyElementsOf(EXPECTED_ROWS);
    assertThat(output).contains(SqlApp.DONE_PREFIX + "master=local[2] executors=0");
    assertThat(dataFolders("jars-local")).containsExactly("ts_day=2024-01-01", "ts_day=2024-01-02");
  }

  @Test
  void runtimeJarRunsSqlOnStandaloneCluster() throws Exception {
    String output = submit("jars-cluster", cluster.url(), List.of("--jars", Settings.runtimeJar().toString()));

    assertThat(rows(output)).containsExactlyElementsOf(EXPECTED_ROWS);
    assertThat(output).contains(SqlApp.DONE_PREFIX + "master=" + cluster.url() + " executors=1");
    assertThat(dataFolders("jars-cluster")).containsExactly("ts_day=2024-01-01", "ts_day=2024-01-02");
  }

  // helpers

  private static List<String> packages(Path ivyHome) {
    return List.of(
        "--packages", Settings.groupId() + ":" + Settings.artifactId() + ":" + Settings.version(),
        "--conf", "spark.jars.ivySettings=" + ivySettings,
        "--conf", "spark.jars.ivy=" + ivyHome);
  }

  /** Runs SqlApp through SparkSubmit with a Floe catalog {@code cat} over a warehouse of its own. */
  private static String submit(String name, String master, List<String> floe)
      throws IOException, InterruptedException {
    Path warehouse = root.resolve(name).resolve("warehouse");
    List<String> args = new ArrayList<>(List.of("--master", master, "--name", "floe-" + name));
    args.addAll(floe);
    args.addAll(List.of(
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.shuffle.partitions=2",
        "--conf", "spark.executor.memory=768m",
        "--conf", "spark.cores.max=2",
        "--conf", "spark.serializer=org.apache.spark.serializer.KryoSerializer",
        "--conf", "spark.kryo.registrator=io.floe.spark.FloeKryoRegistrator",
        "--conf", "spark.sql.catalog.cat=io.floe.spark.FloeCatalog",
        "--conf", "spark.sql.catalog.cat.type=hadoop",
        "--conf", "spark.sql.catalog.cat.warehouse=" + warehouse.toUri(),
        "--class", SqlApp.class.getName(),
        appJar.toString()));
    args.addAll(STATEMENTS);
    return spark.run(
        "org.apache.spark.deploy.SparkSubmit",
        List.of("-Xmx1g", "-Duser.timezone=America/Los_Angeles"),
        args,
        root.resolve(name + ".log"),
        root.resolve(name),
        SUBMIT_TIMEOUT);
  }

  private static List<String> rows(String output) {
    return output.lines()
        .filter(line -> line.startsWith(SqlApp.ROW_PREFIX))
        .map(line -> line.substring(SqlApp.ROW_PREFIX.length()))
        .collect(Collectors.toList());
  }

  /** The partition folders holding Parquet data files of the run's table. */
  private static List<String> dataFolders(String name) throws IOException {
    Path data = root.resolve(name).resolve("warehouse").resolve("db").resolve("events").resolve("data");
    try (Stream<Path> files = Files.walk(data)) {
      return files.filter(file -> file.getFileName().toString().endsWith(".parquet"))
          .map(file -> file.getParent().getFileName().toString())
          .distinct()
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /** The jars Spark's Ivy resolution retrieved ({@code <ivy home>/jars}, org_artifact-version.jar). */
  private static List<String> resolvedJars(Path ivyHome) throws IOException {
    try (Stream<Path> jars = Files.list(ivyHome.resolve("jars"))) {
      return jars.map(jar -> jar.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  /** Installs the thin jar and its POM the way {@code mvn install} lays them out. */
  private static Path installThinArtifact(Path repository) throws IOException {
    Path folder =
        repository
            .resolve(Settings.groupId().replace('.', '/'))
            .resolve(Settings.artifactId())
            .resolve(Settings.version());
    Files.createDirectories(folder);
    String base = Settings.artifactId() + "-" + Settings.version();
    Files.copy(Settings.thinJar(), folder.resolve(base + ".jar"));
    Files.copy(Settings.pom(), folder.resolve(base + ".pom"));
    return repository;
  }

  /**
   * Ivy settings for {@code spark.jars.ivySettings}: the just-built artifact first, then the local
   * Maven repository (as a download cache), then Maven Central. Spark's default chain would look in
   * {@code ~/.m2} first, where an older install of Floe could shadow the jar under test.
   */
  private static Path writeIvySettings(Path file, Path repository) throws IOException {
    String settings =
        "<ivysettings>\n"
            + "  <settings defaultResolver=\"floe-it\"/>\n"
            + "  <resolvers>\n"
            + "    <chain name=\"floe-it\" returnFirst=\"true\">\n"
            + "      <ibiblio name=\"just-built\" m2compatible=\"true\" usepoms=\"true\" root=\""
            + repository.toUri() + "\"/>\n"
            + "      <ibiblio name=\"maven-cache\" m2compatible=\"true\" usepoms=\"true\" root=\""
            + Path.of(Settings.localRepository()).toUri() + "\"/>\n"
            + "      <ibiblio name=\"central\" m2compatible=\"true\" usepoms=\"true\""
            + " root=\"https://repo1.maven.org/maven2/\"/>\n"
            + "    </chain>\n"
            + "  </resolvers>\n"
            + "</ivysettings>\n";
    Files.writeString(file, settings);
    return file;
  }

  /** A jar holding only {@link SqlApp}: the user's application, which knows nothing of Floe. */
  private static Path writeAppJar(Path jar) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    String entry = SqlApp.class.getName().replace('.', '/') + ".class";
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
      jarOut.putNextEntry(new JarEntry(entry));
      try (var in = SqlApp.class.getClassLoader().getResourceAsStream(entry)) {
        in.transferTo(jarOut);
      }
      jarOut.closeEntry();
    }
    return jar;
  }
}
