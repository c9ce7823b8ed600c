package io.floe.spark.write;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.hadoop.io.compress.zlib.ZlibCompressor;
import org.apache.iceberg.TableProperties;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The official runtime's per-write compression options, checked on the driver and turned into the
 * table properties Iceberg's Parquet writer reads, for this write's files only: {@code
 * compression-codec} becomes {@code write.parquet.compression-codec} and {@code compression-level}
 * becomes {@code write.parquet.compression-level}. {@code compression-strategy} ({@code speed} or
 * {@code compression}) becomes {@code write.orc.compression-strategy}, as in the official runtime;
 * it applies to ORC files only, and Floe writes Parquet.
 */
final class FileCompression {
  private FileCompression() {}

  /**
   * @param action what fails on a bad value, such as {@code "Cannot write to db.t"}
   * @param given the value given for an option (write option or session conf), or null
   * @param tableProperties the table's properties: the codec a level is checked against when no
   *     {@code compression-codec} is given
   * @throws IllegalArgumentException naming the option for an unknown codec, a level that is not a
   *     whole number or is out of the codec's range, or an unknown strategy
   */
  static Map<String, String> resolve(
      String action, UnaryOperator<String> given, Map<String, String> tableProperties) {
    Map<String, String> properties = new HashMap<>();
    String codec = given.apply(WriteOptions.COMPRESSION_CODEC);
    if (codec != null) {
      parseCodec(action, WriteOptions.COMPRESSION_CODEC, codec);
      properties.put(TableProperties.PARQUET_COMPRESSION, codec.trim().toLowerCase(Locale.ROOT));
    }
    String level = given.apply(WriteOptions.COMPRESSION_LEVEL);
    if (level != null) {
      String effectiveCodec =
          codec != null
              ? codec
              : tableProperties.getOrDefault(
                  TableProperties.PARQUET_COMPRESSION, TableProperties.PARQUET_COMPRESSION_DEFAULT);
      properties.put(
          TableProperties.PARQUET_COMPRESSION_LEVEL,
          level(action, level.trim(), effectiveCodec.trim().toLowerCase(Locale.ROOT)));
    }
    String strategy = given.apply(WriteOptions.COMPRESSION_STRATEGY);
    if (strategy != null) {
      String normalized = strategy.trim().toLowerCase(Locale.ROOT);
      if (!normalized.equals("speed") && !normalized.equals("compression")) {
        throw new IllegalArgumentException(
            action + ": option '" + WriteOptions.COMPRESSION_STRATEGY
                + "' must be speed or compression, not '" + strategy + "'");
      }
      properties.put(TableProperties.ORC_COMPRESSION_STRATEGY, normalized);
    }
    return properties;
  }

  private static void parseCodec(String action, String option, String codec) {
    try {
      CompressionCodecName.valueOf(codec.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          action + ": option '" + option + "' names no Parquet codec: '" + codec + "' (codecs: "
              + Arrays.toString(CompressionCodecName.values()).toLowerCase(Locale.ROOT)
              + ")",
          e);
    }
  }

  /**
   * The level as the Parquet writer takes it. Only gzip and zstd take a level in Iceberg's Parquet
   * writer; other codecs ignore it. zstd takes 1 to 22. gzip goes through Hadoop's zlib, which
   * takes the name of a {@link ZlibCompressor.CompressionLevel} ({@code BEST_COMPRESSION}, ...):
   * such a name is passed on, and a number from 0 to 9 is turned into the name of that level.
   */
  private static String level(String action, String level, String codec) {
    if (codec.equals("gzip")) {
      // Hadoop declares the levels 0 to 9 in order, then DEFAULT_COMPRESSION
      for (ZlibCompressor.CompressionLevel named : ZlibCompressor.CompressionLevel.values()) {
        if (named.name().equalsIgnoreCase(level)
            || (named != ZlibCompressor.CompressionLevel.DEFAULT_COMPRESSION
                && String.valueOf(named.ordinal()).equals(level))) {
          return named.name();
        }
      }
      throw new IllegalArgumentException(
          action + ": option '" + WriteOptions.COMPRESSION_LEVEL + "' must be 0 to 9 or one of "
              + Arrays.toString(ZlibCompressor.CompressionLevel.values()) + " for codec gzip, not '"
              + level + "'");
    }
    int parsed;
    try {
      parsed = Integer.parseInt(level);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          action + ": option '" + WriteOptions.COMPRESSION_LEVEL + "' must be a whole number, not '"
              + level + "'",
          e);
    }
    if (codec.equals("zstd") && (parsed < 1 || parsed > 22)) {
      throw new IllegalArgumentException(
          action + ": option '" + WriteOptions.COMPRESSION_LEVEL
              + "' must be between 1 and 22 for codec zstd, not " + parsed);
    }
    return level;
  }
}
