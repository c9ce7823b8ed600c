package io.floe.spark.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.s3.InProcessS3;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfoImpl;
import org.apache.spark.sql.connector.write.PhysicalWriteInfoImpl;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.execution.ui.SQLAppStatusStore;
import org.apache.spark.sql.execution.ui.SQLExecutionUIData;
import org.apache.spark.sql.execution.ui.SparkPlanGraphNode;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.util.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The secret sweep: distinctive secret values are planted in every credential option a Floe
 * catalog can carry (S3 access key, secret key and session token; an OAuth2 client secret and a
 * static token; a JDBC password) and come back from the REST server as issued tokens and vended S3
 * credentials. DDL, writes, reads, metadata tables, EXPLAIN in every mode and failing operations
 * run with Floe logging at TRACE and Iceberg at DEBUG; then the log lines, the SQL UI's execution
 * data and plan graphs, Spark's environment listing (redacted with the regex of the spark-conf
 * examples), the toString of Floe's catalog, table and plan objects and the stack traces of the
 * failures are searched for every planted and issued value.
 */
class SecretSweepTest {
  private static final String MARK = "PLNT7Q3Z";
  private static final String S3_ACCESS_KEY = MARK + "ACCESSKEY";
  private static final String S3_SECRET = MARK + "-s3-secret-key";
  private static final String S3_SESSION_TOKEN = MARK + "-s3-session-token";
  private static final String CLIENT_SECRET = MARK + "-oauth-client-secret";
  private static final String WRONG_CLIENT_SECRET = MARK + "-wrong-client-secret";
  private static final String WRONG_S3_SECRET = MARK + "-wrong-s3-secret";
  private static final String STATIC_TOKEN = MARK + "-static-bearer-token";
  private static final String JDBC_PASSWORD = MARK + "-jdbc-password";
  private static final String BUCKET = "floe-sweep";

  private static SparkSession spark;
  private static InProcessS3 s3;
  private static RestCatalogServer server;
  private static Path folder;
  private static String redactionRegex;

  private final List<String> failures = new ArrayList<>();
  private final List<String> texts = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    folder = Files.createTempDirectory("floe-sweep");
    s3 = InProcessS3.start(S3_ACCESS_KEY, S3_SECRET);
    s3.createBucket(BUCKET);
    server =
        RestCatalogServer.builder(folder, "s3://" + BUCKET + "/rest")
            .backendStorage(s3.fileIoOptions(true))
            .clientStorage(s3.fileIoOptions(false))
            .client("floe-sweep", CLIENT_SECRET)
            .valuePrefix(MARK + "-issued-")
            .tokenLifetime(Duration.ofSeconds(30))
            .vendCredentials(s3, Duration.ofMinutes(10))
            .start();
    server.tokens().acceptStaticToken(STATIC_TOKEN);
    redactionRegex = exampleRedactionRegex();

    SparkConf conf =
        new SparkConf(false)
            .setMaster("local[2]")
            .setAppName("floe-secret-sweep")
            .set("spark.ui.enabled", "false")
            .set("spark.driver.host", "127.0.0.1")
            .set("spark.sql.shuffle.partitions", "2")
            .set("spark.redaction.regex", redactionRegex);
    catalog(conf, "vended", server.catalogOptions());
    Map<String, String> tokened = new LinkedHashMap<>(server.catalogOptions());
    tokened.remove("credential");
    tokened.put("token", STATIC_TOKEN);
    catalog(conf, "tokened", tokened);
    catalog(conf, "s3jdbc", jdbcOptions("s3jdbc", "s3://" + BUCKET + "/jdbc", S3_SECRET, Map.of()));
    catalog(
        conf,
        "wrongkey",
        jdbcOptions("wrongkey", "s3://" + BUCKET + "/wrongkey", WRONG_S3_SECRET, Map.of()));
    catalog(
        conf,
        "badendpoint",
        jdbcOptions("badendpoint", "s3://" + BUCKET + "/bad", S3_SECRET, Map.of("s3.endpoint", "http://127.0.0.1:1")));
    catalog(conf, "nobucket", jdbcOptions("nobucket", "s3://floe-sweep-missing/tables", S3_SECRET, Map.of()));
    Map<String, String> badClient = new LinkedHashMap<>(server.catalogOptions());
    badClient.put("credential", "floe-sweep:" + WRONG_CLIENT_SECRET);
    catalog(conf, "badclient", badClient);
    catalog(
        conf,
        "badjdbc",
        Map.of(
            "type", "jdbc",
            "uri", "jdbc:sqlite:" + folder.resolve("no-such-folder").resolve("catalog.db"),
            "jdbc.user", "floe",
            "jdbc.password", JDBC_PASSWORD,
            "warehouse", "s3://" + BUCKET + "/badjdbc"));
    spark = SparkSession.builder().config(conf).getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
  }

  private static Map<String, String> jdbcOptions(
      String name, String warehouse, String s3Secret, Map<String, String> overrides) {
    Map<String, String> options = new LinkedHashMap<>(s3.fileIoOptions(true));
    options.put("type", "jdbc");
    options.put("uri", "jdbc:sqlite:" + folder.resolve(name + ".db"));
    options.put("jdbc.schema-version", "V1");
    options.put("jdbc.user", "floe");
    options.put("jdbc.password", JDBC_PASSWORD);
    options.put("warehouse", warehouse);
    options.put("s3.secret-access-key", s3Secret);
    options.put("s3.session-token", S3_SESSION_TOKEN);
    options.put("s3.retry.num-retries", "0");
    options.putAll(overrides);
    return options;
  }

  private static void catalog(SparkConf conf, String name, Map<String, String> options) {
    conf.set("spark.sql.catalog." + name, FloeCatalog.class.getName());
    options.forEach((key, value) -> conf.set("spark.sql.catalog." + name + "." + key, value));
  }

  /** The spark.redaction.regex the spark-conf examples give, the same in each. */
  private static String exampleRedactionRegex() throws IOException {
    List<String> regexes = new ArrayList<>();
    for (String example : List.of("s3-jdbc.conf", "s3-rest.conf", "rest-oauth2.conf")) {
      Properties properties = new Properties();
      try (var reader = Files.newBufferedReader(Paths.get("spark-conf", example))) {
        properties.load(reader);
      }
      regexes.add(properties.getProperty("spark.redaction.regex"));
    }
    assertThat(regexes).doesNotContainNull().containsOnly(regexes.get(0));
    return regexes.get(0);
  }

  @AfterAll
  static void stop() throws IOException {
    if (spark != null) {
      for (String catalog : List.of("vended", "tokened")) {
        RestCatalogServer.closeCatalog(spark, catalog);
      }
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    if (server != null) {
      server.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (folder != null) {
      try (Stream<Path> files = Files.walk(folder)) {
        files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
      }
    }
  }

  @Test
  void noPlantedOrIssuedSecretAppearsInLogsPlansUiObjectsOrErrors() throws Exception {
    List<String> logs;
    List<String> otherLogs;
    try (OutputCapture capture =
        new OutputCapture(Map.of("io.floe", Level.TRACE, "org.apache.iceberg", Level.DEBUG))) {
      for (String catalog : List.of("vended", "tokened", "s3jdbc")) {
        useTables(catalog);
      }
      expectFailure("CREATE NAMESPACE wrongkey.db", "CREATE TABLE wrongkey.db.t (id BIGINT) USING iceberg",
          "INSERT INTO wrongkey.db.t VALUES (1)");
      expectFailure("CREATE NAMESPACE badendpoint.db", "CREATE TABLE badendpoint.db.t (id BIGINT) USING iceberg",
          "INSERT INTO badendpoint.db.t VALUES (1)");
      expectFailure("CREATE NAMESPACE nobucket.db", "CREATE TABLE nobucket.db.t (id BIGINT) USING iceberg",
          "INSERT INTO nobucket.db.t VALUES (1)");
      expectFailure("SHOW NAMESPACES IN badclient");
      expectFailure("SHOW NAMESPACES IN badjdbc");
      expectFailure("SELECT * FROM vended.db_vended.no_such_table");
      spark.sparkContext().listenerBus().waitUntilEmpty();
      logs = capture.linesOf("io.floe.spark.", "org.apache.iceberg.");
      // the test servers (S3Proxy, Jetty, Iceberg's servlet) are not Floe: their lines are not swept
      otherLogs =
          capture.lines().stream()
              .filter(line -> !line.startsWith("org.gaul") && !line.startsWith("org.eclipse.jetty")
                  && !line.startsWith("org.apache.iceberg.rest.RESTCatalogServlet")
                  && !line.startsWith("io.floe.spark.rest") && !line.startsWith("io.floe.spark.s3"))
              .toList();
    }

    List<String> ui = sqlUiTexts();
    List<String> environment = environmentTexts();
    List<String> secrets = secrets();

    assertThat(failures).as("failing operations").hasSize(6);
    assertThat(logs).as("Floe and Iceberg log lines").anyMatch(line -> line.startsWith("io.floe.spark.commit"));
    assertThat(logs).anyMatch(line -> line.startsWith("io.floe.spark.catalog.CatalogBuilder DEBUG"));
    assertThat(ui).as("SQL UI texts").anyMatch(text -> text.contains("Floe"));
    assertThat(environment).anyMatch(text -> text.contains("spark.sql.catalog.vended.credential"));
    assertThat(server.tokens().issuedTokens()).isNotEmpty();
    assertThat(server.vendor().vendedValues()).isNotEmpty();
    assertThat(s3.usedKeys()).contains(S3_ACCESS_KEY);

    for (String secret : secrets) {
      assertThat(logs).as("log lines").noneMatch(line -> line.contains(secret));
      assertThat(otherLogs).as("other log lines").noneMatch(line -> line.contains(secret));
      assertThat(ui).as("SQL UI").noneMatch(text -> text.contains(secret));
      assertThat(environment).as("Spark environment").noneMatch(text -> text.contains(secret));
      assertThat(texts).as("plans and toString").noneMatch(text -> text.contains(secret));
      assertThat(failures).as("error messages").noneMatch(text -> text.contains(secret));
    }
  }

  private void useTables(String catalog) throws Exception {
    String namespace = "db_" + catalog;
    String table = catalog + "." + namespace + ".t";
    run("CREATE NAMESPACE " + catalog + "." + namespace);
    run("CREATE TABLE " + table + " (id BIGINT, kind STRING) USING iceberg PARTITIONED BY (kind)");
    run("INSERT INTO " + table + " VALUES (1, 'a'), (2, 'b')");
    run("SELECT * FROM " + table + " WHERE id > 1");
    run("SELECT file_path FROM " + table + ".files");
    run("SELECT * FROM " + table + ".snapshots");
    for (String mode : List.of("", "EXTENDED ", "CODEGEN ", "COST ", "FORMATTED ")) {
      run("EXPLAIN " + mode + "SELECT * FROM " + table + " WHERE kind = 'a'");
      run("EXPLAIN " + mode + "INSERT INTO " + table + " SELECT id + 10, kind FROM " + table);
    }
    run("DESCRIBE TABLE EXTENDED " + table);
    run("SHOW TBLPROPERTIES " + table);
    run("DESCRIBE NAMESPACE EXTENDED " + catalog + "." + namespace);
    texts.add(spark.sql("SELECT * FROM " + table).queryExecution().toString());
    planObjects(catalog);
    run("DROP TABLE " + table + " PURGE");
  }

  private void run(String statement) {
    spark.sql(statement).collectAsList().forEach(row -> texts.add(row.toString()));
  }

  /** Runs the statements until one fails, as one of them must, and keeps that failure. */
  private void expectFailure(String... statements) {
    for (String statement : statements) {
      try {
        run(statement);
      } catch (Exception e) {
        failures.add(stackTrace(e));
        return;
      }
    }
    throw new AssertionError("Expected one of " + List.of(statements) + " to fail");
  }

  /** toString and descriptions of Floe's catalog, table, loader and plan pieces. */
  private void planObjects(String catalogName) throws Exception {
    FloeCatalog catalog =
        (FloeCatalog) spark.sessionState().catalogManager().catalog(catalogName);
    FloeTable table = (FloeTable) catalog.loadTable(Identifier.of(new String[] {"db_" + catalogName}, "t"));
    texts.add(catalog.toString());
    texts.add(table.toString());
    texts.add(String.valueOf(table.loader()));
    texts.add(table.properties().toString());
    Scan scan = table.newScanBuilder(CaseInsensitiveStringMap.empty()).build();
    texts.add(scan.toString());
    texts.add(scan.description());
    Batch batch = scan.toBatch();
    texts.add(batch.toString());
    for (InputPartition partition : batch.planInputPartitions()) {
      texts.add(partition.toString());
    }
    texts.add(batch.createReaderFactory().toString());
    Write write =
        table
            .newWriteBuilder(
                new LogicalWriteInfoImpl(
                    "sweep", table.schema(), CaseInsensitiveStringMap.empty(), Optional.empty(), Optional.empty()))
            .build();
    texts.add(write.toString());
    texts.add(write.description());
    BatchWrite batchWrite = write.toBatch();
    texts.add(batchWrite.toString());
    texts.add(batchWrite.createBatchWriterFactory(new PhysicalWriteInfoImpl(2)).toString());
  }

  private static List<String> sqlUiTexts() {
    SQLAppStatusStore store = spark.sharedState().statusStore();
    List<String> ui = new ArrayList<>();
    for (SQLExecutionUIData execution : CollectionConverters.asJava(store.executionsList())) {
      ui.add(execution.description());
      ui.add(execution.details());
      ui.add(execution.physicalPlanDescription());
      ui.add(execution.modifiedConfigs().toString());
      ui.add(execution.errorMessage().toString());
      for (SparkPlanGraphNode node :
          CollectionConverters.asJava(store.planGraph(execution.executionId()).allNodes())) {
        ui.add(node.name() + " " + node.desc());
      }
    }
    return ui;
  }

  /** Spark's environment listing as its UI and event log show it: redacted by spark.redaction.regex. */
  private static List<String> environmentTexts() {
    List<String> environment = new ArrayList<>();
    CollectionConverters.asJava(
            Utils.redact(
                spark.sparkContext().getConf(),
                spark.sparkContext().statusStore().environmentInfo().sparkProperties()))
        .forEach(entry -> environment.add(entry._1() + "=" + entry._2()));
    return environment;
  }

  /** Every planted value and every value the servers issued. */
  private static List<String> secrets() {
    List<String> secrets = new ArrayList<>();
    secrets.addAll(
        List.of(
            S3_ACCESS_KEY, S3_SECRET, S3_SESSION_TOKEN, CLIENT_SECRET, WRONG_CLIENT_SECRET,
            WRONG_S3_SECRET, STATIC_TOKEN, JDBC_PASSWORD));
    secrets.addAll(server.tokens().issuedTokens());
    secrets.addAll(server.vendor().vendedValues());
    return secrets;
  }

  static String stackTrace(Throwable error) {
    StringWriter text = new StringWriter();
    error.printStackTrace(new PrintWriter(text));
    return text.toString();
  }
}
