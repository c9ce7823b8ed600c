package io.floe.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.cli.UserCommand.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/floe-sql} as the README shows it, run as a child process from a fresh folder, with the
 * classpath the script builds for itself: the demo, a failing statement, standard input, the
 * JDBC-catalog properties file, and the classpath itself.
 */
class FloeSqlCommandIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private static Result floeSql(Path dir, String stdin, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(UserCommand.script("floe-sql").toString());
    command.addAll(Arrays.asList(args));
    return UserCommand.run(dir, stdin, Map.of(), TIMEOUT, command.toArray(String[]::new));
  }

  @Test
  void theDemoRunsFromAnotherFolderAndPrintsItsRows(@TempDir Path dir) throws Exception {
    Path demo = UserCommand.projectDir().resolve("demo/demo.sql");

    Result result = floeSql(dir, "", "-f", demo.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    // the filtered read: ids 3, 4 and 5, in order
    assertThat(result.stdout())
        .as(result.toString())
        .containsPattern("(?m)^\\s*3 \\| purchase \\|\\s+42\\.00 \\| 2024-05-02 11:05:00\\s*$")
        .containsPattern("(?m)^\\s*4 \\| click\\s+\\|\\s+2\\.25 \\| 2024-05-02 12:00:00\\s*$")
        .containsPattern("(?m)^\\s*5 \\| purchase \\|\\s+17\\.99 \\| 2024-05-03 08:30:00\\s*$")
        // the aggregate
        .containsPattern("(?m)^click\\s+\\|\\s+2 \\|\\s+3\\.75\\s*$")
        .containsPattern("(?m)^purchase\\s+\\|\\s+2 \\|\\s+59\\.99\\s*$")
        .containsPattern("(?m)^view\\s+\\|\\s+1 \\|\\s+0\\.00\\s*$")
        // two writes, two snapshots
        .containsPattern("(?m)^\\s*-?\\d+ \\| append\\s*$")
        .contains("(2 rows)");
    assertThat(countMatches(result.stdout(), "(?m)^\\s*-?\\d+ \\| append\\s*$")).isEqualTo(2);
    assertThat(dir.resolve("floe-warehouse/demo/events/metadata")).isDirectory();
    assertThat(result.stderr()).as(result.toString()).doesNotContain("Exception", "WARNING");
  }

  @Test
  void aFailingStatementExitsOneWithOneLine(@TempDir Path dir) throws Exception {
    Result result = floeSql(dir, "", "-e", "SELECT 1; SELECT * FROM floe.nope.missing");

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.stderr().strip().lines().toList())
        .as(result.toString())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("floe-sql: Cannot run statement 2 (line 1 of the command line): ")
        .contains("TABLE_OR_VIEW_NOT_FOUND");
  }

  @Test
  void readsStatementsFromStandardInput(@TempDir Path dir) throws Exception {
    Result result =
        floeSql(
            dir,
            "CREATE NAMESPACE db;\n"
                + "CREATE TABLE db.t (id BIGINT) USING iceberg;\n"
                + "INSERT INTO db.t VALUES (40), (2);\n"
                + "SELECT sum(id) AS total FROM db.t;\n",
            "-s");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.stdout()).containsPattern("(?m)^total\\s*$").containsPattern("(?m)^\\s*42\\s*$");
    assertThat(dir.resolve("floe-warehouse/db/t/metadata")).isDirectory();
  }

  @Test
  void runsOnTheJdbcCatalogOfTheSqlitePropertiesFile(@TempDir Path dir) throws Exception {
    // the example file keeps its catalog under /tmp; a copy points it at this test's folder
    String conf =
        Files.readString(UserCommand.projectDir().resolve("spark-conf/jdbc-sqlite.conf"))
            .replace("jdbc:sqlite:/tmp/floe-jdbc-catalog.db", "jdbc:sqlite:" + dir.resolve("catalog.db"))
            .replace("file:///tmp/floe-jdbc-warehouse", dir.resolve("wh").toUri().toString());
    assertThat(conf).contains(dir.toString());
    Path properties = dir.resolve("jdbc-sqlite.conf");
    Files.writeString(properties, conf);

    Result result =
        floeSql(
            dir,
            "",
            "--properties-file", properties.toString(),
            "-e", "CREATE NAMESPACE jdbc_ns; SHOW NAMESPACES");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.stdout()).as(result.toString()).containsPattern("(?m)^jdbc_ns\\s*$");
    assertThat(dir.resolve("catalog.db")).isRegularFile();
  }

  @Test
  void theClasspathHoldsNoTestDependencyOfTheProject(@TempDir Path dir) throws Exception {
    Result result = floeSql(dir, "", "-s", "-e", "SELECT 1");
    assertThat(result.exitCode()).as(result.toString()).isZero();

    List<String> classpath =
        Arrays.asList(
            Files.readString(UserCommand.buildDir().resolve("launcher/classpath.txt")).strip().split(":"));
    assertThat(classpath).noneMatch(entry -> entry.contains("test-classes"));
    List<String> testArtifacts = testScopeArtifacts(Files.readString(UserCommand.projectDir().resolve("pom.xml")));
    assertThat(testArtifacts)
        .anyMatch(artifact -> artifact.startsWith("org/eclipse/jetty/jetty-server/"))
        .anyMatch(artifact -> artifact.startsWith("jakarta/servlet/jakarta.servlet-api/6"));
    // what the launcher names itself (the SQLite driver) is meant to be there
    String launcher = Files.readString(UserCommand.projectDir().resolve("launcher/pom.xml"));
    testArtifacts.removeIf(
        artifact -> {
          String[] parts = artifact.split("/");
          return launcher.contains("<artifactId>" + parts[parts.length - 3] + "</artifactId>");
        });
    assertThat(testArtifacts).isNotEmpty();
    for (String artifact : testArtifacts) {
      assertThat(classpath).as("test dependency %s", artifact).noneMatch(entry -> entry.endsWith("/" + artifact));
    }
  }

  /**
   * The repository paths ({@code group/as/folders/artifact/version/file.jar}) of the test-scope jars
   * that pom.xml declares, its properties substituted.
   */
  private static List<String> testScopeArtifacts(String pom) {
    Pattern property = Pattern.compile("<([\\w.]+)>([^<]*)</\\1>");
    String properties = pom.substring(pom.indexOf("<properties>"), pom.indexOf("</properties>"));
    Map<String, String> values =
        property.matcher(properties).results()
            .collect(Collectors.toMap(m -> m.group(1), m -> m.group(2), (a, b) -> a));
    Pattern dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
    List<String> artifacts = new ArrayList<>();
    Matcher matcher = dependency.matcher(pom);
    while (matcher.find()) {
      String body = matcher.group(1);
      if (!body.contains("<scope>test</scope>")) {
        continue;
      }
      String group = tag(body, "groupId", values);
      String artifact = tag(body, "artifactId", values);
      String version = tag(body, "version", values);
      String classifier = body.contains("<classifier>") ? "-" + tag(body, "classifier", values) : "";
      artifacts.add(
          group.replace('.', '/') + "/" + artifact + "/" + version + "/" + artifact + "-" + version
              + classifier + ".jar");
    }
    return artifacts;
  }

  private static String tag(String body, String name, Map<String, String> values) {
    Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(body);
    if (!m.find()) {
      throw new AssertionError("a test dependency of pom.xml has no " + name + ": " + body);
    }
    String value = m.group(1);
    Matcher ref = Pattern.compile("\\$\\{([\\w.]+)}").matcher(value);
    return ref.replaceAll(r -> Matcher.quoteReplacement(values.getOrDefault(r.group(1), r.group())));
  }

  private static int countMatches(String text, String regex) {
    return (int) Pattern.compile(regex).matcher(text).results().count();
  }
}
