package io.floe.spark.read.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.TypeUtil;

/**
 * The test "does one of these delete files delete this row" for the rows of one data file, as a
 * changelog asks it of the rows a snapshot's new delete files removed: position deletes and
 * deletion vectors by the row's position, equality deletes by the row's values on their equality
 * fields, compared as Iceberg compares them (NULL matches NULL). Which delete files apply to the
 * file is the driver's decision (sequence numbers, partitions); this filter applies every one it is
 * given.
 *
 * <p>The rows it tests must be read with {@link #projection()}: the projection the reader already
 * needed, with the row position and the equality fields appended where missing, so that the
 * columns of that projection keep their positions.
 */
final class DeletedRowsFilter {
  private final Schema projection;
  private final Predicate<Record> deleted;

  /**
   * Loads the delete files (on the thread that opens the task).
   *
   * @param settings what the scan's readers share
   * @param location the data file's location
   * @param liveProjection the projection the reader needs for its own columns and deletes
   * @param deletes position deletes, deletion vectors and equality deletes, at least one
   */
  DeletedRowsFilter(
      ReadSettings settings, String location, Schema liveProjection, List<DeleteFile> deletes) {
    List<DeleteFile> positions = new ArrayList<>();
    List<DeleteFile> equalities = new ArrayList<>();
    for (DeleteFile delete : deletes) {
      if (delete.content() == FileContent.EQUALITY_DELETES) {
        equalities.add(delete);
      } else if (delete.content() == FileContent.POSITION_DELETES) {
        positions.add(delete);
      } else {
        throw new IllegalArgumentException(
            "Cannot read the rows of " + location + " deleted by " + delete.location()
                + ": not a delete file");
      }
    }
    if (positions.isEmpty() && equalities.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot read the rows of " + location + " deleted by no delete file");
    }
    Schema schema = liveProjection;
    if (!positions.isEmpty() && schema.findField(MetadataColumns.ROW_POSITION.fieldId()) == null) {
      schema = TypeUtil.join(schema, new Schema(MetadataColumns.ROW_POSITION));
    }
    Predicate<Record> test = record -> false;
    if (!equalities.isEmpty()) {
      // Iceberg's own filter keeps the rows no equality delete matches; its required schema is the
      // one given with the equality fields appended
      EqualityDeletes filter = new EqualityDeletes(settings, location, equalities, schema);
      schema = filter.requiredSchema();
      test = test.or(filter.eqDeletedRowFilter().negate());
    }
    if (!positions.isEmpty()) {
      int position =
          schema.columns().indexOf(schema.findField(MetadataColumns.ROW_POSITION.fieldId()));
      PositionDeleteIndex index =
          new BaseDeleteLoader(settings.io()::newInputFile).loadPositionDeletes(positions, location);
      test = test.or(record -> index.isDeleted(record.get(position, Long.class)));
    }
    this.projection = schema;
    this.deleted = test;
  }

  /** The projection the tested rows are read with. */
  Schema projection() {
    return projection;
  }

  /** Whether one of the delete files deletes the row, read with {@link #projection()}. */
  boolean isDeleted(Record record) {
    return deleted.test(record);
  }

  /** Iceberg's delete filter over generic records, given equality delete files only. */
  private static final class EqualityDeletes extends DeleteFilter<Record> {
    private final ReadSettings settings;
    private final InternalRecordWrapper wrapper;

    EqualityDeletes(
        ReadSettings settings, String location, List<DeleteFile> deletes, Schema projection) {
      super(location, deletes, settings.tableSchema(), projection);
      this.settings = settings;
      // values compare in Iceberg's internal representation, as Iceberg's generic filter does
      this.wrapper = new InternalRecordWrapper(requiredSchema().asStruct());
    }

    @Override
    protected StructLike asStructLike(Record record) {
      return wrapper.wrap(record);
    }

    @Override
    protected InputFile getInputFile(String location) {
      return settings.io().newInputFile(location);
    }
  }
}
