package io.floe.spark.procedures;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTablePartition;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The files {@code add_files}, {@code snapshot} and {@code migrate} import, found on the driver:
 * from a directory named {@code `parquet`.`/path`}, {@code `orc`.`/path`} or {@code `avro`.`/path`}
 * (partition directories {@code col=value} below it, as Spark and Hive write them), or from a
 * Parquet, ORC or Avro table of Spark's session catalog (its partitions' locations as the catalog
 * lists them). Hidden files ({@code .}, {@code _} prefixes) are skipped; every other file is taken
 * to be of the source's format, and one that is not fails the import naming it.
 *
 * <p>Carries the source's partition columns and the files with their partition values in the
 * order of the table's spec, after the partition filter. A source whose partitions do not match
 * the table's spec (identity fields of the same columns) is refused.
 */
final class ImportSource {
  private static final String HIVE_DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__";

  private final List<FooterMetricsTask.Source> files;
  private final int partitions;

  private ImportSource(List<FooterMetricsTask.Source> files, int partitions) {
    this.files = List.copyOf(files);
    this.partitions = partitions;
  }

  List<FooterMetricsTask.Source> files() {
    return files;
  }

  /** How many source partitions matched the filter (1 for an unpartitioned source). */
  int partitions() {
    return partitions;
  }

  /**
   * Resolves the source and lists its files.
   *
   * @param fail makes the procedure's failure from a reason
   */
  static ImportSource resolve(
      SparkSession spark,
      String text,
      Schema schema,
      PartitionSpec spec,
      Map<String, String> partitionFilter,
      Function<String, RuntimeException> fail) {
    List<String> parts;
    try {
      parts =
          CollectionConverters.asJava(
              spark.sessionState().sqlParser().parseMultipartIdentifier(text));
    } catch (Exception e) {
      throw fail.apply("cannot be parsed as a table name or `format`.`path`: " + text);
    }
    Configuration conf = spark.sessionState().newHadoopConf();
    Map<List<String>, String> locations = new LinkedHashMap<>();
    List<String> columns;
    FileFormat format;
    if (parts.size() == 2 && isFormat(parts.get(0))) {
      format = FileFormat.fromString(parts.get(0));
      columns = new ArrayList<>();
      discover(new Path(parts.get(1)), conf, List.of(), List.of(), columns, locations, fail, text);
    } else {
      CatalogTable table = catalogTable(spark, parts, fail, text);
      format =
          formatOf(table)
              .orElseThrow(
                  () ->
                      fail.apply(
                          "is a " + describeFormat(table) + " table; Floe imports Parquet, ORC "
                              + "and Avro tables only: " + text));
      columns = catalogPartitions(spark, table, locations);
    }
    if (format == FileFormat.ORC) {
      refuseNanosecondTimestamps(schema, fail);
    }
    List<String> specColumns = specColumns(schema, spec, columns, fail);
    for (String key : partitionFilter.keySet()) {
      if (columns.stream().noneMatch(column -> column.equalsIgnoreCase(key))) {
        throw fail.apply(
            "partition_filter names '" + key + "', not a partition column of the source "
                + columns);
      }
    }
    List<FooterMetricsTask.Source> files = new ArrayList<>();
    int matched = 0;
    for (Map.Entry<List<String>, String> partition : locations.entrySet()) {
      Map<String, String> values = new LinkedHashMap<>();
      for (int i = 0; i < columns.size(); i++) {
        values.put(columns.get(i).toLowerCase(Locale.ROOT), partition.getKey().get(i));
      }
      boolean selected =
          partitionFilter.entrySet().stream()
              .allMatch(e -> Objects.equals(values.get(e.getKey().toLowerCase(Locale.ROOT)), e.getValue()));
      if (!selected) {
        continue;
      }
      matched++;
      List<String> ordered = new ArrayList<>();
      for (String column : specColumns) {
        String value = values.get(column.toLowerCase(Locale.ROOT));
        ordered.add(HIVE_DEFAULT_PARTITION.equals(value) ? null : value);
      }
      listFiles(new Path(partition.getValue()), conf, format, ordered, files);
    }
    if (!columns.isEmpty() && matched == 0 && !partitionFilter.isEmpty()) {
      throw fail.apply("has no partition that matches the partition filter " + partitionFilter);
    }
    return new ImportSource(files, matched);
  }

  /**
   * Refuses an ORC import into a table with a nanosecond timestamp column: Spark has no such type
   * and Floe reads an ORC {@code timestamp} of a Spark-written file only into a microsecond column
   * (a {@code timestamptz} as the instant it stands for in the writer's zone). Spark's {@code
   * TIMESTAMP} and {@code TIMESTAMP_NTZ} columns import.
   */
  private static void refuseNanosecondTimestamps(
      Schema schema, Function<String, RuntimeException> fail) {
    for (Types.NestedField field : TypeUtil.indexById(schema.asStruct()).values()) {
      if (field.type().typeId() == Type.TypeID.TIMESTAMP_NANO) {
        throw fail.apply(orcTimestampReason(schema.findColumnName(field.fieldId())));
      }
    }
  }

  /** Why an ORC source for a table with the nanosecond timestamp column {@code column} is refused. */
  static String orcTimestampReason(String column) {
    return "is ORC and the table has the nanosecond timestamp column " + column + ", which Floe "
        + "does not read from ORC files Spark wrote; import into a table with microsecond "
        + "timestamps";
  }

  private static boolean isFormat(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.equals("parquet") || lower.equals("orc") || lower.equals("avro");
  }

  /** The spec's source column names, in field order, checked against the source's columns. */
  private static List<String> specColumns(
      Schema schema, PartitionSpec spec, List<String> columns, Function<String, RuntimeException> fail) {
    List<String> names = new ArrayList<>();
    for (PartitionField field : spec.fields()) {
      if (!field.transform().isIdentity()) {
        throw fail.apply(
            "cannot be imported into a table partitioned by " + field.transform() + " of "
                + schema.findColumnName(field.sourceId()) + ": only identity partitions match "
                + "partition directories");
      }
      names.add(schema.findColumnName(field.sourceId()));
    }
    if (spec.isUnpartitioned() && !columns.isEmpty()) {
      throw fail.apply(
          "is partitioned by " + columns + ": cannot add partitioned files to an unpartitioned "
              + "table");
    }
    boolean same =
        names.size() == columns.size()
            && names.stream().allMatch(n -> columns.stream().anyMatch(n::equalsIgnoreCase));
    if (!same) {
      throw fail.apply(
          "is partitioned by " + columns + ", which does not match the table's partition "
              + "columns " + names);
    }
    return names;
  }

  /** Walks a directory for {@code col=value} levels; every leaf directory holding files is a partition. */
  private static void discover(
      Path directory,
      Configuration conf,
      List<String> names,
      List<String> values,
      List<String> columns,
      Map<List<String>, String> locations,
      Function<String, RuntimeException> fail,
      String text) {
    FileStatus[] statuses;
    try {
      statuses = directory.getFileSystem(conf).listStatus(directory);
    } catch (FileNotFoundException e) {
      throw fail.apply("names a directory that does not exist: " + directory);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + directory, e);
    }
    boolean hasFiles = false;
    for (FileStatus status : statuses) {
      String name = status.getPath().getName();
      if (OrphanFileTasks.hidden(name)) {
        continue;
      }
      if (status.isDirectory() && name.contains("=")) {
        List<String> nextNames = new ArrayList<>(names);
        nextNames.add(unescape(name.substring(0, name.indexOf('='))));
        List<String> nextValues = new ArrayList<>(values);
        nextValues.add(unescape(name.substring(name.indexOf('=') + 1)));
        discover(status.getPath(), conf, nextNames, nextValues, columns, locations, fail, text);
      } else if (!status.isDirectory()) {
        hasFiles = true;
      }
    }
    if (hasFiles) {
      if (locations.isEmpty()) {
        columns.addAll(names);
      } else if (!columns.equals(names)) {
        throw fail.apply(
            "has files under partition columns " + names + " and under " + columns + ": " + text);
      }
      locations.put(values, directory.toString());
    }
  }

  private static String unescape(String text) {
    return org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils.unescapePathName(text);
  }

  /**
   * The data file format of a table of the session catalog: its provider ({@code USING parquet},
   * {@code orc}, {@code avro}) or, for a Hive table, its serde; empty for any other table.
   */
  static Optional<FileFormat> formatOf(CatalogTable table) {
    String provider =
        table.provider().isDefined() ? table.provider().get().toLowerCase(Locale.ROOT) : "";
    String serde =
        table.storage().serde().isDefined()
            ? table.storage().serde().get().toLowerCase(Locale.ROOT)
            : "";
    // spark-avro registers itself under the short name avro and its class name
    if (provider.equals("org.apache.spark.sql.avro.avrofileformat")) {
      provider = "avro";
    }
    for (FileFormat format : List.of(FileFormat.PARQUET, FileFormat.ORC, FileFormat.AVRO)) {
      String name = format.name().toLowerCase(Locale.ROOT);
      if (provider.equals(name) || (provider.equals("hive") && serde.contains(name))) {
        return Optional.of(format);
      }
    }
    return Optional.empty();
  }

  /** The provider, or for a Hive table the serde, as a refusal names it. */
  static String describeFormat(CatalogTable table) {
    String provider = table.provider().isDefined() ? table.provider().get() : "";
    String serde = table.storage().serde().isDefined() ? table.storage().serde().get() : "";
    return provider.isEmpty() || (provider.equalsIgnoreCase("hive") && !serde.isEmpty())
        ? serde
        : provider;
  }

  private static CatalogTable catalogTable(
      SparkSession spark, List<String> parts, Function<String, RuntimeException> fail, String text) {
    List<String> names = parts;
    if (names.size() == 3 && names.get(0).equalsIgnoreCase("spark_catalog")) {
      names = names.subList(1, 3);
    }
    if (names.size() > 2) {
      throw fail.apply(
          "must be a table of the session catalog (spark_catalog) or `format`.`path`: " + text);
    }
    TableIdentifier ident =
        names.size() == 1
            ? new TableIdentifier(names.get(0))
            : new TableIdentifier(names.get(1), Option.apply(names.get(0)));
    try {
      return spark.sessionState().catalog().getTableMetadata(ident);
    } catch (Exception e) {
      throw fail.apply("names no table of the session catalog: " + text);
    }
  }

  /** The partitions of a session-catalog table; returns its partition columns. */
  private static List<String> catalogPartitions(
      SparkSession spark, CatalogTable table, Map<List<String>, String> locations) {
    List<String> columns =
        new ArrayList<>(CollectionConverters.asJava(table.partitionColumnNames()));
    if (columns.isEmpty()) {
      locations.put(List.of(), table.location().toString());
      return columns;
    }
    for (CatalogTablePartition partition :
        CollectionConverters.asJava(
            spark.sessionState().catalog().listPartitions(table.identifier(), Option.empty()))) {
      Map<String, String> spec = CollectionConverters.asJava(partition.spec());
      List<String> values = new ArrayList<>();
      columns.forEach(column -> values.add(spec.get(column)));
      locations.put(values, partition.location().toString());
    }
    return columns;
  }

  private static void listFiles(
      Path directory,
      Configuration conf,
      FileFormat format,
      List<String> values,
      List<FooterMetricsTask.Source> files) {
    try {
      FileSystem fs = directory.getFileSystem(conf);
      for (FileStatus status : fs.listStatus(directory)) {
        if (status.isFile() && !OrphanFileTasks.hidden(status.getPath().getName())) {
          files.add(new FooterMetricsTask.Source(
                  status.getPath().toString(), status.getLen(), format, values));
        }
      }
    } catch (FileNotFoundException e) {
      // a partition the catalog lists without files on disk adds nothing
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + directory, e);
    }
  }
}
