package io.floe.spark.procedures;

import io.floe.spark.write.FloeCommitMessage;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.hadoop.fs.Path;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.MappedField;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.orc.OrcMetrics;
import org.apache.iceberg.types.Types;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.TypeDescription;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.util.SerializableConfiguration;

/**
 * What each task of {@code add_files}, {@code snapshot} and {@code migrate} runs on an executor:
 * reads the footer of each of its files (Parquet or ORC; an Avro file's blocks for its row count)
 * and describes the file as an Iceberg data file of the table's spec, with metrics matched to the
 * table's columns through the name mapping, returned in one {@link FloeCommitMessage}. ORC metrics
 * come from Iceberg's own {@link OrcMetrics}; Avro files, as in Iceberg, carry only a row count.
 *
 * <p>Parquet bounds are left out for columns whose stored values Iceberg would misread: {@code
 * INT96} timestamps, and timestamps or times in milliseconds or nanoseconds (Iceberg reads their
 * statistics as microseconds), so that no filter ever prunes such a file wrongly. So are ORC
 * bounds of {@code timestamptz} columns stored as ORC {@code timestamp}, Spark's {@code TIMESTAMP}
 * (local times of the writer's zone, which Iceberg's ORC statistics take for UTC).
 *
 * <p>Carries a read-only copy of the table, the name mapping (JSON) and the Hadoop configuration.
 */
public final class FooterMetricsTask implements FlatMapFunction<Iterator<FooterMetricsTask.Source>, FloeCommitMessage> {
  /**
   * One file to add.
   *
   * @param location the file's location
   * @param size its length in bytes
   * @param format the file's format: {@code PARQUET}, {@code ORC} or {@code AVRO}
   * @param partitionValues the values of the spec's fields, in order, as the directory names
   *     spell them (null for Hive's default partition)
   */
  public record Source(String location, long size, FileFormat format, List<String> partitionValues)
      implements Serializable {
    public Source {
      Objects.requireNonNull(location, "location is null");
      Objects.requireNonNull(format, "format is null");
      Objects.requireNonNull(partitionValues, "partitionValues is null");
    }
  }

  private final Table table;
  private final int specId;
  private final String nameMapping;
  private final SerializableConfiguration conf;

  public FooterMetricsTask(
      Table table, int specId, String nameMapping, SerializableConfiguration conf) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.specId = specId;
    this.nameMapping = Objects.requireNonNull(nameMapping, "nameMapping is null");
    this.conf = Objects.requireNonNull(conf, "conf is null");
  }

  public Table table() {
    return table;
  }

  public int specId() {
    return specId;
  }

  public String nameMapping() {
    return nameMapping;
  }

  @Override
  public Iterator<FloeCommitMessage> call(Iterator<Source> sources) {
    NameMapping mapping = NameMappingParser.fromJson(nameMapping);
    MetricsConfig metricsConfig = MetricsConfig.forTable(table);
    PartitionSpec spec = table.specs().get(specId);
    List<DataFile> files = new ArrayList<>();
    while (sources.hasNext()) {
      Source source = sources.next();
      DataFiles.Builder builder =
          DataFiles.builder(spec)
              .withPath(source.location())
              .withFormat(source.format())
              .withFileSizeInBytes(source.size())
              .withMetrics(metrics(source, metricsConfig, mapping));
      if (spec.isPartitioned()) {
        builder.withPartitionValues(source.partitionValues());
      }
      files.add(builder.build());
    }
    return List.of(new FloeCommitMessage(files)).iterator();
  }

  private Metrics metrics(Source source, MetricsConfig metricsConfig, NameMapping mapping) {
    return switch (source.format()) {
      case PARQUET -> parquetMetrics(source, metricsConfig, mapping);
      case ORC -> {
        try {
          yield withoutZonedOrcBounds(
              OrcMetrics.fromInputFile(input(source), metricsConfig, mapping), source, mapping);
        } catch (RuntimeException e) {
          throw unreadable(source, e);
        }
      }
      case AVRO -> {
        try {
          yield new Metrics(Avro.rowCount(input(source)), null, null, null, null);
        } catch (RuntimeException e) {
          throw unreadable(source, e);
        }
      }
      default -> throw new IllegalArgumentException(
          "Cannot add file " + source.location() + ": Floe imports Parquet, ORC and Avro files, not "
              + source.format());
    };
  }

  private InputFile input(Source source) {
    return HadoopInputFile.fromLocation(source.location(), source.size(), conf.value());
  }

  private static IllegalArgumentException unreadable(Source source, Exception e) {
    return new IllegalArgumentException(
        "Cannot add file " + source.location() + ": it is not a readable "
            + formatName(source.format()) + " file (" + e.getMessage() + ")", e);
  }

  /** A format's name as messages spell it. */
  static String formatName(FileFormat format) {
    return switch (format) {
      case PARQUET -> "Parquet";
      case ORC -> "ORC";
      case AVRO -> "Avro";
      default -> format.name();
    };
  }

  private Metrics parquetMetrics(Source source, MetricsConfig metricsConfig, NameMapping mapping) {
    ParquetMetadata footer;
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                new Path(source.location()), conf.value()))) {
      footer = reader.getFooter();
    } catch (IOException | RuntimeException e) {
      throw unreadable(source, e);
    }
    return withoutMisreadBounds(
        ParquetUtil.footerMetrics(footer, Stream.empty(), metricsConfig, mapping),
        footer.getFileMetaData().getSchema(),
        mapping);
  }

  /**
   * The metrics without the bounds of {@code timestamptz} columns the file stores as ORC {@code
   * timestamp} (without time zone), as Spark's ORC writer stores {@code TIMESTAMP}: the file holds
   * local times of its writer's zone, which Iceberg's ORC statistics take for UTC, so the bounds
   * would be off by the zone's offset and prune files wrongly.
   */
  private Metrics withoutZonedOrcBounds(Metrics metrics, Source source, NameMapping mapping) {
    TypeDescription fileSchema;
    try (Reader reader =
        OrcFile.createReader(
            new Path(source.location()), OrcFile.readerOptions(conf.value()).maxLength(source.size()))) {
      fileSchema = reader.getSchema();
    } catch (IOException e) {
      throw unreadable(source, e);
    }
    List<Integer> zoned = new ArrayList<>();
    collectZoned(fileSchema, new ArrayList<>(), mapping, table.schema(), zoned);
    return withoutBounds(metrics, zoned);
  }

  private static void collectZoned(
      TypeDescription type, List<String> path, NameMapping mapping, Schema schema,
      List<Integer> zoned) {
    if (type.getCategory() == TypeDescription.Category.TIMESTAMP) {
      MappedField field = mapping.find(path);
      Types.NestedField column = field == null || field.id() == null ? null : schema.findField(field.id());
      if (column != null
          && column.type() instanceof Types.TimestampType timestamp
          && timestamp.shouldAdjustToUTC()) {
        zoned.add(column.fieldId());
      }
      return;
    }
    List<TypeDescription> children = type.getChildren() == null ? List.of() : type.getChildren();
    for (int i = 0; i < children.size(); i++) {
      String name =
          switch (type.getCategory()) {
            case STRUCT -> type.getFieldNames().get(i);
            case LIST -> "element";
            case MAP -> i == 0 ? "key" : "value";
            default -> null;
          };
      if (name != null) {
        List<String> next = new ArrayList<>(path);
        next.add(name);
        collectZoned(children.get(i), next, mapping, schema, zoned);
      }
    }
  }

  private static Metrics withoutMisreadBounds(
      Metrics metrics, MessageType fileSchema, NameMapping mapping) {
    List<Integer> misread = new ArrayList<>();
    for (String[] path : fileSchema.getPaths()) {
      Type column = fileSchema.getType(path);
      if (column.isPrimitive() && misreadTimestamp(column.asPrimitiveType())) {
        MappedField field = mapping.find(path);
        if (field != null && field.id() != null) {
          misread.add(field.id());
        }
      }
    }
    return withoutBounds(metrics, misread);
  }

  /** The metrics without the lower and upper bounds of the columns {@code ids}. */
  private static Metrics withoutBounds(Metrics metrics, List<Integer> misread) {
    if (misread.isEmpty() || metrics.lowerBounds() == null) {
      return metrics;
    }
    Map<Integer, java.nio.ByteBuffer> lower = new HashMap<>(metrics.lowerBounds());
    Map<Integer, java.nio.ByteBuffer> upper =
        metrics.upperBounds() == null ? new HashMap<>() : new HashMap<>(metrics.upperBounds());
    misread.forEach(
        id -> {
          lower.remove(id);
          upper.remove(id);
        });
    return new Metrics(
        metrics.recordCount(), metrics.columnSizes(), metrics.valueCounts(),
        metrics.nullValueCounts(), metrics.nanValueCounts(), lower, upper);
  }

  private static boolean misreadTimestamp(PrimitiveType type) {
    if (type.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT96) {
      return true;
    }
    LogicalTypeAnnotation annotation = type.getLogicalTypeAnnotation();
    if (annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) {
      return ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) annotation).getUnit()
          != LogicalTypeAnnotation.TimeUnit.MICROS;
    }
    if (annotation instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
      return ((LogicalTypeAnnotation.TimeLogicalTypeAnnotation) annotation).getUnit()
          != LogicalTypeAnnotation.TimeUnit.MICROS;
    }
    return false;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof FooterMetricsTask
        && table.name().equals(((FooterMetricsTask) other).table.name())
        && specId == ((FooterMetricsTask) other).specId
        && nameMapping.equals(((FooterMetricsTask) other).nameMapping);
  }

  @Override
  public int hashCode() {
    return Objects.hash(table.name(), specId, nameMapping);
  }

  @Override
  public String toString() {
    return "FooterMetricsTask{table=" + table.name() + ", specId=" + specId + "}";
  }
}
