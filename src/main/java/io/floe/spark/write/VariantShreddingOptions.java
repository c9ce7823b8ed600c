package io.floe.spark.write;

import io.floe.spark.util.OptionValues;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.TableProperties;

/**
 * The official runtime's variant shredding options of one write, checked on the driver and turned
 * into the table properties the writer tasks read over the table's: {@code shred-variants} (write
 * option, then session conf {@code spark.sql.iceberg.shred-variants}) becomes {@code
 * write.parquet.shred-variants}, and {@code variant-inference-buffer-size} (then {@code
 * spark.sql.iceberg.variant-inference-buffer-size}) becomes {@code
 * write.parquet.variant-inference-buffer-size}. Unset options leave the table's properties (off and
 * 100 rows by default) in force; only Parquet data files shred.
 */
final class VariantShreddingOptions {
  /** The write option (and, after {@code spark.sql.iceberg.}, session conf) that turns shredding on. */
  static final String SHRED_VARIANTS = "shred-variants";
  /** The write option of how many rows of each file the shredded layout is inferred from. */
  static final String VARIANT_INFERENCE_BUFFER_SIZE = "variant-inference-buffer-size";

  private VariantShreddingOptions() {}

  /**
   * @param action what fails on a bad value, such as {@code "Cannot write to db.t"}
   * @param given the value given for an option (write option or session conf), or null
   * @throws IllegalArgumentException naming the option for a value that is not a boolean, or a
   *     buffer size that is not a positive whole number
   */
  static Map<String, String> resolve(String action, UnaryOperator<String> given) {
    Map<String, String> properties = new HashMap<>();
    String shred = given.apply(SHRED_VARIANTS);
    if (shred != null) {
      properties.put(
          TableProperties.PARQUET_SHRED_VARIANTS,
          String.valueOf(OptionValues.parseBoolean(action, SHRED_VARIANTS, shred)));
    }
    String buffer = given.apply(VARIANT_INFERENCE_BUFFER_SIZE);
    if (buffer != null) {
      long rows =
          OptionValues.parseLong(
              action, VARIANT_INFERENCE_BUFFER_SIZE, buffer, "a positive whole number");
      if (rows <= 0 || rows > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            action + ": option '" + VARIANT_INFERENCE_BUFFER_SIZE
                + "' must be a positive whole number, not '" + buffer + "'");
      }
      properties.put(TableProperties.PARQUET_VARIANT_BUFFER_SIZE, String.valueOf(rows));
    }
    return properties;
  }
}
