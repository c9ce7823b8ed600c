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
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTablePartition;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The files {@code add_files} imports, found on the driver: from a Parquet directory named
 * {@code `parquet`.`/path`} (partition directories {@code col=value} below it, as Spark and Hive
 * write them), or from a Parquet table of Spark's session catalog (its partitions' locations as
 * the catalog lists them). Hidden files ({@code .}, {@code _} prefixes) are skipped.
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
    if (parts.size() == 2 && isFormat(parts.get(0))) {
      if (!parts.get(0).equalsIgnoreCase("parquet")) {
        throw fail.apply(
            "names a " + parts.get(0) + " directory; Floe imports Parquet files only: " + text);
      }
      columns = new ArrayList<>();
      discover(new Path(parts.get(1)), conf, List.of(), List.of(), columns, locations, fail, text);
    } else {
      columns = catalogPartitions(spark, parts, locations, fail, text);
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
      listFiles(new Path(partition.getValue()), conf, ordered, files);
    }
    if (!columns.isEmpty() && matched == 0 && !partitionFilter.isEmpty()) {
      throw fail.apply("has no partition that matches the partition filter " + partitionFilter);
    }
    return new ImportSource(files, matched);
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

  /** The partitions of a session-catalog table; returns its partition columns. */
  private static List<String> catalogPartitions(
      SparkSession spark,
      List<String> parts,
      Map<List<String>, String> locations,
      Function<String, RuntimeException> fail,
      String text) {
    List<String> names = parts;
    if (names.size() == 3 && names.get(0).equalsIgnoreCase("spark_catalog")) {
      names = names.subList(1, 3);
    }
    if (names.size() > 2) {
      throw fail.apply("must be a table of the session catalog (spark_catalog) or `parquet`.`path`: " + text);
    }
    TableIdentifier ident =
        names.size() == 1
            ? new TableIdentifier(names.get(0))
            : new TableIdentifier(names.get(1), Option.apply(names.get(0)));
    CatalogTable table;
    try {
      table = spark.sessionState().catalog().getTableMetadata(ident);
    } catch (Exception e) {
      throw fail.apply("names no table of the session catalog: " + text);
    }
    String provider = table.provider().isDefined() ? table.provider().get() : "";
    String serde = table.storage().serde().isDefined() ? table.storage().serde().get() : "";
    if (!provider.equalsIgnoreCase("parquet")
        && !serde.toLowerCase(Locale.ROOT).contains("parquet")) {
      throw fail.apply(
          "is a " + (provider.isEmpty() ? serde : provider) + " table; Floe imports Parquet files "
              + "only: " + text);
    }
    List<String> columns =
        new ArrayList<>(CollectionConverters.asJava(table.partitionColumnNames()));
    if (columns.isEmpty()) {
      locations.put(List.of(), table.location().toString());
      return columns;
    }
    for (CatalogTablePartition partition :
        CollectionConverters.asJava(spark.sessionState().catalog().listPartitions(ident, Option.empty()))) {
      Map<String, String> spec = CollectionConverters.asJava(partition.spec());
      List<String> values = new ArrayList<>();
      columns.forEach(column -> values.add(spec.get(column)));
      locations.put(values, partition.location().toString());
    }
    return columns;
  }

  private static void listFiles(
      Path directory, Configuration conf, List<String> values, List<FooterMetricsTask.Source> files) {
    try {
      FileSystem fs = directory.getFileSystem(conf);
      for (FileStatus status : fs.listStatus(directory)) {
        if (status.isFile() && !OrphanFileTasks.hidden(status.getPath().getName())) {
          files.add(new FooterMetricsTask.Source(status.getPath().toString(), status.getLen(), values));
        }
      }
    } catch (FileNotFoundException e) {
      // a partition the catalog lists without files on disk adds nothing
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + directory, e);
    }
  }
}
