package io.floe.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole command as {@code main} runs it: arguments, its own session, exit code. (The test
 * classpath's log4j2-test.properties keeps the command from reconfiguring logging.)
 */
class FloeSqlMainTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @AfterEach
  void forgetTheSession() {
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  private int execute(InputStream stdin, String... args) {
    try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      return FloeSql.execute(args, stdin, outStream, errStream);
    }
  }

  private static InputStream stdin(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void readsStandardInputWithFloeAsTheCurrentCatalogOnANewWarehouse(@TempDir Path dir) {
    Path warehouse = dir.resolve("wh");

    int code =
        execute(
            stdin(
                "SHOW NAMESPACES;\n"
                    + "CREATE NAMESPACE db;\n"
                    + "CREATE TABLE db.t (id INT, name STRING) USING iceberg;\n"
                    + "INSERT INTO db.t VALUES (1, 'one'), (2, 'two');\n"
                    + "SELECT name FROM floe.db.t WHERE id = 2;\n"
                    + "SET spark.sql.shuffle.partitions\n"),
            "--warehouse", warehouse.toString(),
            "--conf", "spark.sql.shuffle.partitions=3",
            "-s");

    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    assertThat(code).isEqualTo(FloeSql.SUCCESS);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            String.join(
                "\n",
                "namespace",
                "---------",
                "(0 rows)",
                "name",
                "----",
                "two",
                "(1 row)",
                "key                          | value",
                "-----------------------------+------",
                "spark.sql.shuffle.partitions | 3",
                "(1 row)",
                ""));
    assertThat(warehouse.resolve("db").resolve("t").resolve("metadata")).isDirectory();
    assertThat(Files.exists(Path.of("floe-warehouse", "db", "t"))).isFalse();
  }

  @Test
  void aCommandLineThatDoesNotParseExitsWithTwoBeforeStartingSpark() {
    int code = execute(stdin(""), "-e", "SELECT 1", "--bogus");

    assertThat(code).isEqualTo(FloeSql.USAGE_ERROR);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("floe-sql: Cannot parse the command line: unknown option --bogus (see --help)\n");
    assertThat(SparkSession.getActiveSession().isDefined()).isFalse();
  }

  @Test
  void aMissingScriptFailsBeforeStartingSpark(@TempDir Path dir) {
    Path missing = dir.resolve("missing.sql");

    int code = execute(stdin(""), "-f", missing.toString());

    assertThat(code).isEqualTo(FloeSql.STATEMENT_FAILED);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("floe-sql: Cannot read " + missing + ": no such file\n");
    assertThat(SparkSession.getActiveSession().isDefined()).isFalse();
  }

  @Test
  void helpPrintsUsage() {
    int code = execute(stdin(""), "--help");

    assertThat(code).isEqualTo(FloeSql.SUCCESS);
    assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("Usage: floe-sql [options]");
  }
}
