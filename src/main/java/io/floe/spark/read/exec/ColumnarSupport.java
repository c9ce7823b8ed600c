package io.floe.spark.read.exec;

import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.ScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Which scans and tasks the columnar path serves. A scan is columnar when every column it produces
 * is a primitive Spark's Parquet decoder reads into the type the row path reports (booleans,
 * numbers, decimals, dates, timestamps, strings, binary and fixed; not UUIDs, which Spark sees as
 * strings), a variant (Spark's vectorized Parquet reader decodes Iceberg's variant groups into
 * Spark's variant vectors) or one of the metadata columns {@code _file}, {@code _pos}, {@code _spec_id}, {@code
 * _partition}, {@code _row_id}, {@code _last_updated_sequence_number} and Floe's {@code _floe_file_key}. Columns missing from a
 * file read their initial default as a constant vector. Within a columnar scan a task is decoded column by column when it is a Parquet
 * data file whose equality deletes compare top-level primitive columns, or handed over in ORC's
 * vectors when it is an ORC data file {@link #decodesOrcTask} accepts; other tasks are read as rows
 * and copied into batches. A scan whose every task is such an ORC file may also read structs, lists
 * and maps as batches ({@link #supportsOrcScan}).
 */
public final class ColumnarSupport {
  private static final Set<Integer> DECODED_METADATA =
      Set.of(
          MetadataColumns.FILE_PATH.fieldId(),
          MetadataColumns.SPEC_ID.fieldId(),
          MetadataColumns.PARTITION_COLUMN_ID,
          MetadataColumns.ROW_POSITION.fieldId(),
          MetadataColumns.ROW_ID.fieldId(),
          MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(),
          FileKeyColumn.FIELD_ID);

  private ColumnarSupport() {}

  public static boolean supportsScan(Schema readSchema) {
    for (Types.NestedField field : readSchema.columns()) {
      int id = field.fieldId();
      if (DECODED_METADATA.contains(id)) {
        continue;
      }
      if (MetadataColumns.isMetadataColumn(id) || !decodes(field.type())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether a scan whose tasks are all ORC data files read by {@link OrcFileBatches} is columnar:
   * beyond what {@link #supportsScan} accepts, structs, lists and maps of the types it accepts,
   * which Floe's ORC adapters read in place (Parquet tasks and tasks copied from rows read only
   * primitives, so a scan with any other task stays on rows when it has nested columns).
   *
   * @param readSchema the scan's read schema
   * @param tableSchema the schema the tasks were planned with
   * @param tasks every task of the scan, of all its partitions
   */
  public static boolean supportsOrcScan(
      Schema readSchema, Schema tableSchema, Iterable<? extends ScanTask> tasks) {
    for (Types.NestedField field : readSchema.columns()) {
      int id = field.fieldId();
      if (DECODED_METADATA.contains(id)) {
        continue;
      }
      if (MetadataColumns.isMetadataColumn(id) || !decodesNested(field.type())) {
        return false;
      }
    }
    boolean any = false;
    for (ScanTask task : tasks) {
      if (!(task instanceof FileScanTask)
          || !decodesOrcTask((FileScanTask) task, tableSchema, readSchema)) {
        return false;
      }
      any = true;
    }
    return any;
  }

  /**
   * Whether tasks of this table may hold timestamp columns that Spark's own ORC writer wrote (files
   * imported by {@code snapshot}, {@code migrate} or {@code add_files}, which the table's name
   * mapping maps): those tasks are read as rows and copied into batches ({@link
   * OrcSparkTimestamps}), which hold only primitives and structs, so such a scan must not read
   * lists and maps as ORC batches ({@link #supportsOrcScan}). Decided from metadata alone: the
   * driver reads no file footer for it.
   */
  public static boolean mayHoldSparkOrcTimestamps(Schema tableSchema, boolean hasNameMapping) {
    return hasNameMapping
        && TypeUtil.indexById(tableSchema.asStruct()).values().stream()
            .anyMatch(field -> field.type().typeId() == Type.TypeID.TIMESTAMP);
  }

  private static boolean decodesNested(Type type) {
    switch (type.typeId()) {
      case STRUCT:
        for (Types.NestedField field : type.asStructType().fields()) {
          if (!decodesNested(field.type())) {
            return false;
          }
        }
        return true;
      case LIST:
        return decodesNested(type.asListType().elementType());
      case MAP:
        return decodesNested(type.asMapType().keyType())
            && decodesNested(type.asMapType().valueType());
      case VARIANT:
        return false;
      default:
        return decodes(type);
    }
  }

  static boolean decodesTask(FileScanTask task, Schema tableSchema) {
    if (task.isDataTask() || task.file().format() != FileFormat.PARQUET) {
      return false;
    }
    return comparesDecodedColumns(task, tableSchema);
  }

  /**
   * Whether an ORC task is read into batches by {@link OrcFileBatches}: an ORC data file whose
   * equality deletes compare top-level primitive columns, with no variant among the columns read
   * (ORC stores variants as structs Floe's adapters do not decode) and no column read or compared
   * that has an initial default (ORC's reader reads a column the file lacks as NULL, not as its
   * default). Other ORC tasks stay on the row path.
   */
  static boolean decodesOrcTask(FileScanTask task, Schema tableSchema, Schema readSchema) {
    if (task.isDataTask() || task.file().format() != FileFormat.ORC) {
      return false;
    }
    for (Types.NestedField field : readSchema.columns()) {
      if (!orcDecodes(field)) {
        return false;
      }
    }
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() != FileContent.EQUALITY_DELETES) {
        continue;
      }
      for (int id : delete.equalityFieldIds()) {
        Types.NestedField field = tableSchema.findField(id);
        if (field == null || !orcDecodes(field)) {
          return false;
        }
      }
    }
    return comparesDecodedColumns(task, tableSchema);
  }

  private static boolean orcDecodes(Types.NestedField field) {
    return field.initialDefault() == null && !holdsVariant(field.type());
  }

  private static boolean holdsVariant(Type type) {
    if (type.typeId() == Type.TypeID.VARIANT) {
      return true;
    }
    if (type.isNestedType()) {
      for (Types.NestedField field : type.asNestedType().fields()) {
        if (holdsVariant(field.type())) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean comparesDecodedColumns(FileScanTask task, Schema tableSchema) {
    for (DeleteFile delete : task.deletes()) {
      if (delete.content() != FileContent.EQUALITY_DELETES) {
        continue;
      }
      for (int id : delete.equalityFieldIds()) {
        Types.NestedField field = tableSchema.findField(id);
        boolean topLevel = tableSchema.asStruct().field(id) != null;
        if (field == null || !topLevel || !decodes(field.type())) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean decodes(Type type) {
    switch (type.typeId()) {
      case BOOLEAN:
      case INTEGER:
      case LONG:
      case FLOAT:
      case DOUBLE:
      case DECIMAL:
      case DATE:
      case TIMESTAMP:
      case STRING:
      case BINARY:
      case FIXED:
      case VARIANT:
        return true;
      default:
        return false;
    }
  }
}
