package io.floe.spark.write;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.TableProperties;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The shuffle partition size a distributed write asks Spark for, with the official runtime's
 * defaults: the size given ({@code advisory-partition-size}, then the session confs {@code
 * spark.floe.write.advisory-partition-size} and {@code spark.sql.iceberg.advisory-partition-size},
 * then the table property {@code write.spark.advisory-partition-size-bytes}; see {@link
 * WriteOptions}), else the size of shuffle data that makes a file of the expected size (128 MB for
 * data files, 32 MB for a merge-on-read DELETE's delete files), but never less than Spark's own
 * {@code spark.sql.adaptive.advisoryPartitionSizeInBytes}.
 *
 * <p>Shuffle data and written files compress differently: the expected file size is scaled by how
 * much more the file's format and codec compress than Spark's shuffle codec ({@code
 * spark.io.compression.codec}, or none when {@code spark.shuffle.compress} is false), with the
 * official runtime's estimates (a zstd Parquet file holds about three times what the same rows
 * take in an LZ4 shuffle). Deletion vectors (format v3) are taken as incompressible.
 */
public final class AdvisoryPartitionSize {
  /** The data file a data-writing task is expected to produce. */
  static final long DATA_FILE_SIZE = 128L * 1024 * 1024;
  /** The delete file a task of a merge-on-read DELETE is expected to produce. */
  static final long DELETE_FILE_SIZE = 32L * 1024 * 1024;

  private static final Map<String, Double> COLUMNAR = ratios(
      "none", "zstd", 4.0, "none", "gzip", 4.0, "none", "zlib", 4.0, "none", "snappy", 3.0,
      "none", "lz4", 3.0,
      "zstd", "zstd", 2.0, "zstd", "gzip", 2.0, "zstd", "zlib", 2.0, "zstd", "snappy", 1.5,
      "zstd", "lz4", 1.5,
      "snappy", "zstd", 3.0, "snappy", "gzip", 3.0, "snappy", "zlib", 3.0, "snappy", "snappy", 2.0,
      "snappy", "lz4", 2.0,
      "lz4", "zstd", 3.0, "lz4", "gzip", 3.0, "lz4", "zlib", 3.0, "lz4", "snappy", 2.0,
      "lz4", "lz4", 2.0);
  private static final double COLUMNAR_DEFAULT = 2.0;
  private static final Map<String, Double> ROW_BASED = ratios(
      "none", "zstd", 2.0, "none", "gzip", 2.0, "none", "zlib", 2.0,
      "zstd", "snappy", 0.5, "zstd", "lz4", 0.5,
      "snappy", "zstd", 1.5, "snappy", "gzip", 1.5, "snappy", "zlib", 1.5,
      "lz4", "zstd", 1.5, "lz4", "gzip", 1.5, "lz4", "zlib", 1.5);
  private static final double ROW_BASED_DEFAULT = 1.0;

  private AdvisoryPartitionSize() {}

  /**
   * The size for a write of data files (an insert, a copy-on-write rewrite, the new rows of a
   * merge-on-read UPDATE or MERGE).
   *
   * @param tableProperties the table's properties; the write's own file settings ({@link
   *     WriteOptions#fileWriteProperties()}) come first
   */
  public static long forData(
      WriteOptions options, Map<String, String> tableProperties, SQLConf session) {
    Objects.requireNonNull(options, "options is null");
    if (options.advisoryPartitionSizeBytes() > 0) {
      return options.advisoryPartitionSizeBytes();
    }
    Map<String, String> properties = effective(options, tableProperties);
    FileFormat format = dataFormat(properties);
    return atLeastSparks(
        (long) (DATA_FILE_SIZE * ratio(session, format, codec(properties, format, false))),
        session);
  }

  /**
   * The size for a merge-on-read DELETE, which writes only delete files: position-delete files
   * in the table's delete format, or deletion vectors on a format v3 table.
   */
  public static long forDeletes(
      WriteOptions options,
      Map<String, String> tableProperties,
      int formatVersion,
      SQLConf session) {
    Objects.requireNonNull(options, "options is null");
    if (options.advisoryPartitionSizeBytes() > 0) {
      return options.advisoryPartitionSizeBytes();
    }
    double ratio;
    if (formatVersion >= 3) {
      ratio = 1.0;
    } else {
      Map<String, String> properties = effective(options, tableProperties);
      String deleteFormat = properties.get(TableProperties.DELETE_DEFAULT_FILE_FORMAT);
      FileFormat format =
          deleteFormat == null ? dataFormat(properties) : FileFormat.fromString(deleteFormat);
      ratio = ratio(session, format, codec(properties, format, true));
    }
    return atLeastSparks((long) (DELETE_FILE_SIZE * ratio), session);
  }

  private static Map<String, String> effective(
      WriteOptions options, Map<String, String> tableProperties) {
    Map<String, String> properties =
        new HashMap<>(Objects.requireNonNull(tableProperties, "tableProperties is null"));
    properties.putAll(options.fileWriteProperties());
    return properties;
  }

  private static FileFormat dataFormat(Map<String, String> properties) {
    return FileFormat.fromString(
        properties.getOrDefault(
            TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
  }

  /**
   * The codec files of the format are written with: for delete files the table's delete codec
   * property, unless the write's own {@code compression-codec} was given (which Floe records as
   * the format's data codec property), then the data codec; else the format's default.
   */
  private static String codec(Map<String, String> properties, FileFormat format, boolean deletes) {
    String dataKey;
    String deleteKey;
    String fallback;
    switch (format) {
      case PARQUET -> {
        dataKey = TableProperties.PARQUET_COMPRESSION;
        deleteKey = TableProperties.DELETE_PARQUET_COMPRESSION;
        fallback = TableProperties.PARQUET_COMPRESSION_DEFAULT;
      }
      case AVRO -> {
        dataKey = TableProperties.AVRO_COMPRESSION;
        deleteKey = TableProperties.DELETE_AVRO_COMPRESSION;
        fallback = TableProperties.AVRO_COMPRESSION_DEFAULT;
      }
      case ORC -> {
        dataKey = TableProperties.ORC_COMPRESSION;
        deleteKey = TableProperties.DELETE_ORC_COMPRESSION;
        fallback = TableProperties.ORC_COMPRESSION_DEFAULT;
      }
      default -> {
        return null;
      }
    }
    String data = properties.getOrDefault(dataKey, fallback);
    return deletes ? properties.getOrDefault(deleteKey, data) : data;
  }

  private static double ratio(SQLConf session, FileFormat format, String codec) {
    if (codec == null) {
      return 1.0;
    }
    String key = shuffleCodec(session) + "/" + codec.trim().toLowerCase(Locale.ROOT);
    return switch (format) {
      case PARQUET, ORC -> COLUMNAR.getOrDefault(key, COLUMNAR_DEFAULT);
      case AVRO -> ROW_BASED.getOrDefault(key, ROW_BASED_DEFAULT);
      default -> 1.0;
    };
  }

  /** Spark's shuffle codec; Spark copies its core settings into every session's conf. */
  private static String shuffleCodec(SQLConf session) {
    boolean compressed =
        Boolean.parseBoolean(session.getConfString("spark.shuffle.compress", "true").trim());
    return compressed
        ? session.getConfString("spark.io.compression.codec", "lz4").trim().toLowerCase(Locale.ROOT)
        : "none";
  }

  private static long atLeastSparks(long suggested, SQLConf session) {
    long spark = (Long) session.getConf(SQLConf.ADVISORY_PARTITION_SIZE_IN_BYTES());
    return Math.max(suggested, spark);
  }

  private static Map<String, Double> ratios(Object... entries) {
    Map<String, Double> ratios = new HashMap<>();
    for (int i = 0; i < entries.length; i += 3) {
      ratios.put(entries[i] + "/" + entries[i + 1], (Double) entries[i + 2]);
    }
    return Map.copyOf(ratios);
  }
}
