package io.floe.spark.read.plan.manifest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;

/**
 * Reads manifest entries as Avro datums into {@link EntryMetrics}, keeping the status, the record
 * count and the metrics of the given columns and skipping everything else without building it.
 * Iceberg's manifest reader decodes every entry in full (paths, partitions and the metrics maps of
 * every column) before it can evaluate a row filter; deciding that no entry of a manifest can match
 * needs only this much.
 *
 * <p>The layout is taken from the manifest's own Avro schema by Iceberg field id, so every format
 * version is read. When a metrics field does not have the layout Iceberg writes, the reader says so
 * ({@link #understood()}) and reads nothing: the caller then reads the manifest the usual way.
 */
final class EntryMetricsReader implements DatumReader<EntryMetrics> {
  static final int STATUS = 0;
  static final int DATA_FILE = 2;
  static final int RECORD_COUNT = 103;
  static final int VALUE_COUNTS = 109;
  static final int NULL_VALUE_COUNTS = 110;
  static final int NAN_VALUE_COUNTS = 137;
  static final int LOWER_BOUNDS = 125;
  static final int UPPER_BOUNDS = 128;

  // kept[id] for every table column id up to the largest kept one
  private final boolean[] kept;
  private Step[] entrySteps;
  private boolean understood;

  /** @param columnIds the table columns whose metrics to keep */
  EntryMetricsReader(int[] columnIds) {
    this.kept = new boolean[Arrays.stream(columnIds).max().orElse(-1) + 1];
    for (int id : columnIds) {
      kept[id] = true;
    }
  }

  /** Whether the manifest's schema has the layout this reader decodes. */
  boolean understood() {
    return understood;
  }

  @Override
  public void setSchema(Schema entrySchema) {
    this.understood = false;
    this.entrySteps = null;
    if (entrySchema.getType() != Schema.Type.RECORD) {
      return;
    }
    List<Step> steps = new ArrayList<>();
    boolean hasDataFile = false;
    for (Schema.Field field : entrySchema.getFields()) {
      if (fieldId(field) == DATA_FILE && field.schema().getType() == Schema.Type.RECORD) {
        Step dataFile = dataFileStep(field.schema());
        if (dataFile == null) {
          return;
        }
        steps.add(dataFile);
        hasDataFile = true;
      } else if (fieldId(field) == STATUS && field.schema().getType() == Schema.Type.INT) {
        steps.add((in, metrics) -> metrics.setStatus(in.readInt()));
      } else {
        steps.add(skipStep(field.schema()));
      }
    }
    if (hasDataFile) {
      this.entrySteps = steps.toArray(new Step[0]);
      this.understood = true;
    }
  }

  @Override
  public EntryMetrics read(EntryMetrics reuse, Decoder in) throws IOException {
    if (!understood) {
      throw new IllegalStateException("Cannot read manifest entries of an unexpected layout");
    }
    EntryMetrics metrics = reuse != null ? reuse : new EntryMetrics();
    metrics.clear();
    for (Step step : entrySteps) {
      step.read(in, metrics);
    }
    return metrics;
  }

  /** The steps of the data_file record, or null when a field this reader keeps looks unexpected. */
  private Step dataFileStep(Schema dataFile) {
    List<Step> steps = new ArrayList<>();
    boolean hasRecordCount = false;
    for (Schema.Field field : dataFile.getFields()) {
      int id = fieldId(field);
      Schema schema = field.schema();
      Step step;
      switch (id) {
        case RECORD_COUNT -> {
          if (schema.getType() != Schema.Type.LONG) {
            return null;
          }
          step = (in, metrics) -> metrics.setRecordCount(in.readLong());
          hasRecordCount = true;
        }
        case VALUE_COUNTS, NULL_VALUE_COUNTS, NAN_VALUE_COUNTS ->
            step = mapStep(id, schema, Schema.Type.LONG);
        case LOWER_BOUNDS, UPPER_BOUNDS -> step = mapStep(id, schema, Schema.Type.BYTES);
        default -> step = skipStep(schema);
      }
      if (step == null) {
        return null;
      }
      steps.add(step);
    }
    if (!hasRecordCount) {
      return null;
    }
    Step[] fields = steps.toArray(new Step[0]);
    return (in, metrics) -> {
      for (Step step : fields) {
        step.read(in, metrics);
      }
    };
  }

  /**
   * Iceberg writes a metrics map (int keys) as an optional array of key/value records; null stays
   * null, an array becomes a map of the kept columns' entries, as Iceberg's reader would give them.
   */
  private Step mapStep(int id, Schema schema, Schema.Type valueType) {
    Schema array = schema;
    int arrayBranch = -1;
    if (schema.getType() == Schema.Type.UNION) {
      List<Schema> branches = schema.getTypes();
      if (branches.size() != 2) {
        return null;
      }
      for (int branch = 0; branch < 2; branch++) {
        if (branches.get(branch).getType() == Schema.Type.ARRAY) {
          arrayBranch = branch;
          array = branches.get(branch);
        } else if (branches.get(branch).getType() != Schema.Type.NULL) {
          return null;
        }
      }
      if (arrayBranch < 0) {
        return null;
      }
    }
    if (array.getType() != Schema.Type.ARRAY
        || array.getElementType().getType() != Schema.Type.RECORD) {
      return null;
    }
    List<Schema.Field> pair = array.getElementType().getFields();
    if (pair.size() != 2
        || pair.get(0).schema().getType() != Schema.Type.INT
        || pair.get(1).schema().getType() != valueType) {
      return null;
    }
    Step entries =
        valueType == Schema.Type.LONG
            ? (in, metrics) -> readCounts(in, metrics.counts(id))
            : (in, metrics) -> readBounds(in, metrics.bounds(id));
    if (arrayBranch < 0) {
      return entries;
    }
    int present = arrayBranch;
    return (in, metrics) -> {
      if (in.readIndex() == present) {
        entries.read(in, metrics);
      }
    };
  }

  private void readCounts(Decoder in, Map<Integer, Long> counts) throws IOException {
    for (long items = in.readArrayStart(); items != 0; items = in.arrayNext()) {
      for (long item = 0; item < items; item++) {
        int key = in.readInt();
        long value = in.readLong();
        if (kept(key)) {
          counts.put(key, value);
        }
      }
    }
  }

  private void readBounds(Decoder in, Map<Integer, java.nio.ByteBuffer> bounds)
      throws IOException {
    for (long items = in.readArrayStart(); items != 0; items = in.arrayNext()) {
      for (long item = 0; item < items; item++) {
        int key = in.readInt();
        if (kept(key)) {
          bounds.put(key, in.readBytes(null));
        } else {
          in.skipBytes();
        }
      }
    }
  }

  private boolean kept(int columnId) {
    return columnId >= 0 && columnId < kept.length && kept[columnId];
  }

  private static int fieldId(Schema.Field field) {
    Object id = field.getObjectProp("field-id");
    return id instanceof Number number ? number.intValue() : -1;
  }

  private static Step skipStep(Schema schema) {
    return (in, metrics) -> skip(schema, in);
  }

  /**
   * Skips one value as Iceberg's own manifest reader decodes it, which is not always as its Avro
   * schema says: a fixed without a logical type is read as length-prefixed bytes (as Iceberg
   * writes it), a uuid as 16 bytes whatever its Avro type.
   */
  private static void skip(Schema schema, Decoder in) throws IOException {
    LogicalType logicalType = schema.getLogicalType();
    if (logicalType != null && logicalType.getName().equals("uuid")) {
      in.skipFixed(16);
      return;
    }
    boolean decimal = logicalType != null && logicalType.getName().equals("decimal");
    switch (schema.getType()) {
      case NULL -> in.readNull();
      case BOOLEAN -> in.readBoolean();
      case INT -> in.readInt();
      case LONG -> in.readLong();
      case FLOAT -> in.readFloat();
      case DOUBLE -> in.readDouble();
      case STRING -> in.skipString();
      case BYTES -> in.skipBytes();
      case FIXED -> {
        if (decimal) {
          in.skipFixed(schema.getFixedSize());
        } else {
          in.skipBytes();
        }
      }
      case ENUM -> in.readEnum();
      case UNION -> skip(schema.getTypes().get(in.readIndex()), in);
      case RECORD -> {
        for (Schema.Field field : schema.getFields()) {
          skip(field.schema(), in);
        }
      }
      case ARRAY -> {
        for (long items = in.skipArray(); items != 0; items = in.skipArray()) {
          for (long item = 0; item < items; item++) {
            skip(schema.getElementType(), in);
          }
        }
      }
      case MAP -> {
        for (long items = in.skipMap(); items != 0; items = in.skipMap()) {
          for (long item = 0; item < items; item++) {
            in.skipString();
            skip(schema.getValueType(), in);
          }
        }
      }
      default -> throw new IllegalStateException("Unknown Avro type " + schema.getType());
    }
  }

  /** Reads or skips one field of an entry. */
  @FunctionalInterface
  private interface Step {
    void read(Decoder in, EntryMetrics metrics) throws IOException;
  }
}
