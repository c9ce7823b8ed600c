package io.floe.spark.write;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.hadoop.io.compress.zlib.ZlibCompressor;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.TableProperties;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The official runtime's per-write compression options, checked on the driver and turned into the
 * table properties Iceberg's writers read, for this write's files only, in the format of the
 * write's data files: {@code compression-codec} becomes {@code write.<format>.compression-codec},
 * {@code compression-level} becomes {@code write.parquet.compression-level} or {@code
 * write.avro.compression-level} (ORC takes no level), and {@code compression-strategy} ({@code
 * speed} or {@code compression}) becomes {@code write.orc.compression-strategy}, which only ORC
 * files read. Position-delete files of the same format fall back to these, as Iceberg's delete
 * writers do; delete files of another format keep the table's settings.
 */
final class FileCompression {
  /** The codecs Iceberg's Avro writer knows. */
  private static final List<String> AVRO_CODECS = List.of("uncompressed", "snappy", "gzip", "zstd");
  /** The codecs (ORC compression kinds) Iceberg's ORC writer takes. */
  private static final List<String> ORC_CODECS =
      List.of("none", "zlib", "snappy", "lzo", "lz4", "zstd");

  private FileCompression() {}

  /**
   * @param action what fails on a bad value, such as {@code "Cannot write to db.t"}
   * @param given the value given for an option (write option or session conf), or null
   * @param tableProperties the table's properties: the codec a level is checked against when no
   *     {@code compression-codec} is given
   * @param format the format of the write's data files
   * @throws IllegalArgumentException naming the option for an unknown codec, a level that is not a
   *     whole number or is out of the codec's range, or an unknown strategy
   */
  static Map<String, String> resolve(
      String action,
      UnaryOperator<String> given,
      Map<String, String> tableProperties,
      FileFormat format) {
    Map<String, String> properties = new HashMap<>();
    String codecKey = codecProperty(format);
    String codec = given.apply(WriteOptions.COMPRESSION_CODEC);
    if (codec != null) {
      parseCodec(action, WriteOptions.COMPRESSION_CODEC, codec, format);
      properties.put(codecKey, codec.trim().toLowerCase(Locale.ROOT));
    }
    String level = given.apply(WriteOptions.COMPRESSION_LEVEL);
    if (level != null && format != FileFormat.ORC) {
      String effectiveCodec =
          codec != null
              ? codec
              : tableProperties.getOrDefault(codecKey, defaultCodec(format));
      properties.put(
          format == FileFormat.AVRO
              ? TableProperties.AVRO_COMPRESSION_LEVEL
              : TableProperties.PARQUET_COMPRESSION_LEVEL,
          level(action, level.trim(), effectiveCodec.trim().toLowerCase(Locale.ROOT), format));
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

  private static String codecProperty(FileFormat format) {
    switch (format) {
      case ORC:
        return TableProperties.ORC_COMPRESSION;
      case AVRO:
        return TableProperties.AVRO_COMPRESSION;
      default:
        return TableProperties.PARQUET_COMPRESSION;
    }
  }

  private static String defaultCodec(FileFormat format) {
    return format == FileFormat.AVRO
        ? TableProperties.AVRO_COMPRESSION_DEFAULT
        : TableProperties.PARQUET_COMPRESSION_DEFAULT;
  }

  private static void parseCodec(String action, String option, String codec, FileFormat format) {
    String normalized = codec.trim().toLowerCase(Locale.ROOT);
    if (format == FileFormat.AVRO || format == FileFormat.ORC) {
      List<String> known = format == FileFormat.AVRO ? AVRO_CODECS : ORC_CODECS;
      if (!known.contains(normalized)) {
        throw new IllegalArgumentException(
            action + ": option '" + option + "' names no " + format.name().toLowerCase(Locale.ROOT)
                + " codec: '" + codec + "' (codecs: " + known + ")");
      }
      return;
    }
    parseCodec(action, option, codec);
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
  private static String level(String action, String level, String codec, FileFormat format) {
    if (format == FileFormat.AVRO) {
      return avroLevel(action, level, codec);
    }
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

  /**
   * The level as Iceberg's Avro writer takes it: a whole number, 1 to 9 for gzip (Avro's deflate)
   * and 1 to 22 for zstd; other codecs ignore it.
   */
  private static String avroLevel(String action, String level, String codec) {
    int parsed;
    try {
      parsed = Integer.parseInt(level);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          action + ": option '" + WriteOptions.COMPRESSION_LEVEL + "' must be a whole number, not '"
              + level + "'",
          e);
    }
    int max = codec.equals("gzip") ? 9 : codec.equals("zstd") ? 22 : Integer.MAX_VALUE;
    if (max != Integer.MAX_VALUE && (parsed < 1 || parsed > max)) {
      throw new IllegalArgumentException(
          action + ": option '" + WriteOptions.COMPRESSION_LEVEL + "' must be between 1 and " + max
              + " for codec " + codec + ", not " + parsed);
    }
    return level;
  }
}
