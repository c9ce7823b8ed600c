package io.floe.spark.write.exec;

import io.floe.spark.write.exec.RowLeafWriters.Leaf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.FieldMetrics;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;

/**
 * The inner nodes of a {@link RowParquetWriter}: a value writer per position of the schema that
 * handles NULLs and required columns and walks structs, lists and maps down to the {@link
 * RowLeafWriters} that write Parquet columns. Each writes the value at an ordinal of a Spark row or
 * array, computing repetition and definition levels from the Parquet schema.
 */
final class RowValueWriters {
  private RowValueWriters() {}

  /** Writes the value at an ordinal of a row or array, or NULLs for it into every column below. */
  abstract static class ValueWriter {
    /** Writes the non-null value at {@code ordinal} of {@code data}. */
    abstract void write(int repetitionLevel, SpecializedGetters data, int ordinal);

    /** Writes a NULL at definition level {@code definitionLevel} into every leaf column. */
    void writeNull(int repetitionLevel, int definitionLevel) {
      for (Leaf column : columns()) {
        column.writeNull(repetitionLevel, definitionLevel);
      }
    }

    abstract List<Leaf> columns();

    void setColumnStore(ColumnWriteStore store) {
      for (Leaf column : columns()) {
        column.bind(store);
      }
    }

    Stream<FieldMetrics<?>> metrics() {
      return Stream.empty();
    }
  }

  /** A value that may be NULL: a NULL is written one definition level below the value's. */
  static final class OptionalWriter extends ValueWriter {
    private final int definitionLevel;
    private final ValueWriter writer;
    private long nulls;

    OptionalWriter(int definitionLevel, ValueWriter writer) {
      this.definitionLevel = definitionLevel;
      this.writer = writer;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      if (data.isNullAt(ordinal)) {
        nulls += 1;
        writer.writeNull(repetitionLevel, definitionLevel - 1);
      } else {
        writer.write(repetitionLevel, data, ordinal);
      }
    }

    @Override
    void writeNull(int repetitionLevel, int parentDefinitionLevel) {
      writer.writeNull(repetitionLevel, parentDefinitionLevel);
    }

    @Override
    List<Leaf> columns() {
      return writer.columns();
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      // as Iceberg's writers: a primitive's own NULLs count toward its values; a struct's do not
      if (writer instanceof Leaf) {
        return writer
            .metrics()
            .map(
                m ->
                    new FieldMetrics<>(
                        m.id(),
                        m.valueCount() + nulls,
                        nulls,
                        m.nanValueCount(),
                        m.lowerBound(),
                        m.upperBound(),
                        m.originalType()));
      }
      return writer.metrics();
    }
  }

  /** A value that must not be NULL. */
  static final class RequiredWriter extends ValueWriter {
    private final String column;
    private final ValueWriter writer;

    RequiredWriter(String column, ValueWriter writer) {
      this.column = column;
      this.writer = writer;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      if (data.isNullAt(ordinal)) {
        throw new IllegalArgumentException(
            String.format("Cannot write NULL into required column '%s'", column));
      }
      writer.write(repetitionLevel, data, ordinal);
    }

    @Override
    void writeNull(int repetitionLevel, int definitionLevel) {
      writer.writeNull(repetitionLevel, definitionLevel);
    }

    @Override
    List<Leaf> columns() {
      return writer.columns();
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return writer.metrics();
    }
  }

  static final class StructWriter extends ValueWriter {
    private final ValueWriter[] fields;
    private final List<Leaf> columns;

    StructWriter(ValueWriter[] fields) {
      this.fields = fields;
      List<Leaf> all = new ArrayList<>();
      for (ValueWriter field : fields) {
        all.addAll(field.columns());
      }
      this.columns = List.copyOf(all);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      writeFields(repetitionLevel, data.getStruct(ordinal, fields.length));
    }

    void writeFields(int repetitionLevel, InternalRow row) {
      for (int i = 0; i < fields.length; i += 1) {
        fields[i].write(repetitionLevel, row, i);
      }
    }

    @Override
    List<Leaf> columns() {
      return columns;
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Arrays.stream(fields).flatMap(ValueWriter::metrics);
    }
  }

  static final class ListWriter extends ValueWriter {
    private final int repeatedDefinitionLevel;
    private final int repeatedRepetitionLevel;
    private final ValueWriter element;

    ListWriter(int repeatedDefinitionLevel, int repeatedRepetitionLevel, ValueWriter element) {
      this.repeatedDefinitionLevel = repeatedDefinitionLevel;
      this.repeatedRepetitionLevel = repeatedRepetitionLevel;
      this.element = element;
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      ArrayData array = data.getArray(ordinal);
      int size = array.numElements();
      if (size == 0) {
        writeNull(repetitionLevel, repeatedDefinitionLevel - 1);
        return;
      }
      element.write(repetitionLevel, array, 0);
      for (int i = 1; i < size; i += 1) {
        element.write(repeatedRepetitionLevel, array, i);
      }
    }

    @Override
    List<Leaf> columns() {
      return element.columns();
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return element.metrics();
    }
  }

  static final class MapWriter extends ValueWriter {
    private final int repeatedDefinitionLevel;
    private final int repeatedRepetitionLevel;
    private final ValueWriter key;
    private final ValueWriter value;
    private final List<Leaf> columns;

    MapWriter(
        int repeatedDefinitionLevel,
        int repeatedRepetitionLevel,
        ValueWriter key,
        ValueWriter value) {
      this.repeatedDefinitionLevel = repeatedDefinitionLevel;
      this.repeatedRepetitionLevel = repeatedRepetitionLevel;
      this.key = key;
      this.value = value;
      List<Leaf> all = new ArrayList<>(key.columns());
      all.addAll(value.columns());
      this.columns = List.copyOf(all);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      MapData map = data.getMap(ordinal);
      int size = map.numElements();
      if (size == 0) {
        writeNull(repetitionLevel, repeatedDefinitionLevel - 1);
        return;
      }
      ArrayData keys = map.keyArray();
      ArrayData values = map.valueArray();
      for (int i = 0; i < size; i += 1) {
        int level = i == 0 ? repetitionLevel : repeatedRepetitionLevel;
        key.write(level, keys, i);
        value.write(level, values, i);
      }
    }

    @Override
    List<Leaf> columns() {
      return columns;
    }

    @Override
    Stream<FieldMetrics<?>> metrics() {
      return Stream.concat(key.metrics(), value.metrics());
    }
  }
}
