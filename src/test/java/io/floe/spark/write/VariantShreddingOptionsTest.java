package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.spark.sql.internal.SQLConf;
import org.junit.jupiter.api.Test;

/**
 * The official runtime's variant shredding options as the table properties a write's files are
 * written with: the write option wins over the session conf {@code spark.sql.iceberg.<option>};
 * unset options leave the table's properties in force; bad values fail naming the option.
 */
class VariantShreddingOptionsTest {
  private static Map<String, String> properties(
      Map<String, String> options, Map<String, String> session, Map<String, String> table) {
    SQLConf conf = new SQLConf();
    session.forEach(conf::setConfString);
    return WriteOptions.resolve("db.t", options, conf, table).fileWriteProperties();
  }

  @Test
  void theWriteOptionWinsOverTheSessionConfAndUnsetOptionsLeaveTheTablesProperties() {
    Map<String, String> session =
        Map.of(
            "spark.sql.iceberg.shred-variants", "true",
            "spark.sql.iceberg.variant-inference-buffer-size", "7");
    Map<String, String> table = Map.of("write.parquet.shred-variants", "true");

    assertThat(properties(Map.of("shred-variants", " FALSE "), session, table))
        .containsEntry("write.parquet.shred-variants", "false")
        .containsEntry("write.parquet.variant-inference-buffer-size", "7");
    assertThat(properties(Map.of(), session, Map.of()))
        .containsEntry("write.parquet.shred-variants", "true");
    assertThat(properties(Map.of("variant-inference-buffer-size", "250"), Map.of(), table))
        .containsEntry("write.parquet.variant-inference-buffer-size", "250")
        .doesNotContainKey("write.parquet.shred-variants");
    assertThat(properties(Map.of(), Map.of(), table))
        .doesNotContainKeys(
            "write.parquet.shred-variants", "write.parquet.variant-inference-buffer-size");
  }

  @Test
  void badValuesFailNamingTheTableTheOptionAndTheValue() {
    assertThatThrownBy(() -> properties(Map.of("shred-variants", "yes"), Map.of(), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write to db.t: option 'shred-variants' must be true or false, not 'yes'");
    for (String bad : new String[] {"0", "-5", "ten", "3000000000"}) {
      assertThatThrownBy(
              () ->
                  properties(
                      Map.of(),
                      Map.of("spark.sql.iceberg.variant-inference-buffer-size", bad),
                      Map.of()))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Cannot write to db.t: option 'variant-inference-buffer-size'"
              + " must be a positive whole number, not '" + bad + "'");
    }
  }
}
