package io.floe.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliArgumentsTest {

  @Test
  void readsEveryOptionInBothSpellings() {
    CliArguments args =
        CliArguments.parse(
            "--master=local[4]", "--warehouse", "wh", "--conf", "spark.a=1=2", "--conf=spark.b=x",
            "--max-rows", "5", "-s", "-f", "script.sql");

    assertThat(args.master()).isEqualTo("local[4]");
    assertThat(args.warehouse()).isEqualTo("wh");
    assertThat(args.conf()).containsOnly(entry("spark.a", "1=2"), entry("spark.b", "x"));
    assertThat(args.maxRows()).isEqualTo(5);
    assertThat(args.silent()).isTrue();
    assertThat(args.file()).isEqualTo(Path.of("script.sql"));
    assertThat(args.sql()).isNull();
  }

  @Test
  void withoutOptionsReadsStandardInputWithDefaults() {
    CliArguments args = CliArguments.parse();

    assertThat(args.sql()).isNull();
    assertThat(args.file()).isNull();
    assertThat(args.maxRows()).isEqualTo(CliArguments.DEFAULT_MAX_ROWS);
    assertThat(args.silent()).isFalse();
  }

  @Test
  void rejectsBadCommandLinesWithAMessageNamingTheProblem() {
    assertThatThrownBy(() -> CliArguments.parse("--bogus"))
        .hasMessage("Cannot parse the command line: unknown option --bogus (see --help)");
    assertThatThrownBy(() -> CliArguments.parse("SELECT 1"))
        .hasMessage("Cannot parse the command line: unexpected argument SELECT 1 (see --help)");
    assertThatThrownBy(() -> CliArguments.parse("-e"))
        .hasMessage("Cannot parse the command line: option -e needs a value");
    assertThatThrownBy(() -> CliArguments.parse("-e", "SELECT 1", "-f", "x.sql"))
        .hasMessage("Cannot parse the command line: give either -e or -f, not both");
    assertThatThrownBy(() -> CliArguments.parse("--conf", "novalue"))
        .hasMessage("Cannot parse the command line: --conf needs KEY=VALUE, not 'novalue'");
    assertThatThrownBy(() -> CliArguments.parse("--max-rows", "0"))
        .hasMessage("Cannot parse the command line: --max-rows needs a positive whole number, not '0'");
  }

  @Test
  void toStringHidesSecretSettings() {
    CliArguments args = CliArguments.parse("--conf", "spark.sql.catalog.floe.token=abc123");

    assertThat(args.toString()).doesNotContain("abc123").contains("spark.sql.catalog.floe.token");
  }

  @Test
  void defaultSettingsMakeFloeTheCurrentCatalogOnALocalSession() {
    Map<String, String> settings = SessionSettings.of(CliArguments.parse(), new Properties());

    assertThat(settings)
        .contains(
            entry("spark.master", "local[2]"),
            entry("spark.sql.catalog.floe", "io.floe.spark.FloeCatalog"),
            entry("spark.sql.defaultCatalog", "floe"),
            entry("spark.driver.host", "127.0.0.1"))
        .doesNotContainKey(SessionSettings.WAREHOUSE);
  }

  @Test
  void laterSourcesOverrideEarlierOnes(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("spark-defaults.conf");
    Files.writeString(
        file,
        "# comment\nspark.master   local[3]\nspark.sql.catalog.floe.type hadoop\nspark.x = from-file\n");
    Properties system = new Properties();
    system.setProperty("spark.ui.enabled", "true");

    Map<String, String> settings =
        SessionSettings.of(
            CliArguments.parse(
                "--properties-file", file.toString(), "--warehouse", "wh", "--conf", "spark.x=from-conf"),
            system);

    assertThat(settings)
        .contains(
            entry("spark.master", "local[3]"),
            entry("spark.sql.catalog.floe.type", "hadoop"),
            entry("spark.x", "from-conf"),
            entry(SessionSettings.WAREHOUSE, Path.of("wh").toAbsolutePath().toUri().toString()))
        .doesNotContainKey("spark.ui.enabled");
  }

  @Test
  void aWarehouseWithASchemeIsKeptAsGiven() {
    assertThat(SessionSettings.warehouseLocation("s3://bucket/wh")).isEqualTo("s3://bucket/wh");
    assertThat(SessionSettings.warehouseLocation("/tmp/floe-no-such-dir/wh"))
        .isEqualTo("file:///tmp/floe-no-such-dir/wh");
  }

  @Test
  void aMissingPropertiesFileIsReported(@TempDir Path dir) {
    Path missing = dir.resolve("missing.conf");

    assertThatThrownBy(
            () -> SessionSettings.of(CliArguments.parse("--properties-file", missing.toString()), new Properties()))
        .hasMessage("Cannot read properties file " + missing + ": no such file");
  }
}
