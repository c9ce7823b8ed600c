package io.floe.spark.read.exec;

import java.io.IOException;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.avro.SupportsRowPosition;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Iceberg's generic Avro reader, reading Avro's {@code local-timestamp-micros} (and {@code -millis},
 * {@code -nanos}) as the timestamp without time zone it is. Spark's Avro writer stores {@code
 * TIMESTAMP_NTZ} that way; Iceberg's reader knows only {@code timestamp-*} (without its {@code
 * adjust-to-utc} property for a local time) and fails on any other logical type. The two spell the
 * same longs, so the file's schema is read as if it named Iceberg's form: the bytes decode the
 * same, only the logical type differs.
 *
 * <p>Carries Iceberg's reader it hands the rewritten schema to; used only for reads that project a
 * timestamp without time zone.
 */
final class AvroLocalTimestamps implements DatumReader<Record>, SupportsRowPosition {
  private static final String[][] LOCAL_TO_ICEBERG = {
    {"local-timestamp-micros", "timestamp-micros"},
    {"local-timestamp-millis", "timestamp-millis"},
    {"local-timestamp-nanos", "timestamp-nanos"},
  };

  private final PlannedDataReader<Record> reader;

  private AvroLocalTimestamps(PlannedDataReader<Record> reader) {
    this.reader = reader;
  }

  /** Whether a read of {@code projection} may meet a local timestamp (it projects a timestamp). */
  static boolean needed(org.apache.iceberg.Schema projection) {
    return TypeUtil.indexById(projection.asStruct()).values().stream()
        .anyMatch(
            field -> (field.type() instanceof Types.TimestampType timestamp
                    && !timestamp.shouldAdjustToUTC())
                || (field.type() instanceof Types.TimestampNanoType nanos
                    && !nanos.shouldAdjustToUTC()));
  }

  /** The records of one split of an Avro file, read as Iceberg's generic Avro read would. */
  static CloseableIterable<Record> read(
      InputFile input,
      org.apache.iceberg.Schema projection,
      Map<Integer, ?> constants,
      long start,
      long length,
      NameMapping mapping) {
    Avro.ReadBuilder builder =
        Avro.read(input)
            .project(projection)
            .split(start, length)
            .createResolvingReader(
                schema ->
                    new AvroLocalTimestamps(PlannedDataReader.<Record>create(schema, constants)));
    if (mapping != null) {
      builder = builder.withNameMapping(mapping);
    }
    return builder.build();
  }

  @Override
  public void setSchema(Schema fileSchema) {
    reader.setSchema(asIcebergTimestamps(fileSchema));
  }

  /**
   * The schema with each local-timestamp logical type replaced by Iceberg's timestamp without
   * time zone of the same unit. In Avro's JSON form a {@code "logicalType"} key can only be a
   * logical type: a name or doc holding those characters has its quotes escaped.
   */
  static Schema asIcebergTimestamps(Schema fileSchema) {
    String json = fileSchema.toString();
    String rewritten = json;
    for (String[] names : LOCAL_TO_ICEBERG) {
      rewritten =
          rewritten.replace(
              "\"logicalType\":\"" + names[0] + "\"",
              "\"logicalType\":\"" + names[1] + "\",\"adjust-to-utc\":false");
    }
    if (rewritten.equals(json)) {
      return fileSchema;
    }
    return new Schema.Parser().setValidateDefaults(false).parse(rewritten);
  }

  @Override
  public Record read(Record reuse, Decoder decoder) throws IOException {
    return reader.read(reuse, decoder);
  }

  @Override
  public void setRowPositionSupplier(Supplier<Long> positions) {
    reader.setRowPositionSupplier(positions);
  }
}
