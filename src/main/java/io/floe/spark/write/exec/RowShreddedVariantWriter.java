package io.floe.spark.write.exec;

import io.floe.spark.write.exec.RowLeafWriters.Leaf;
import io.floe.spark.write.exec.RowValueWriters.ValueWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.parquet.ParquetValueWriter;
import org.apache.iceberg.parquet.ParquetVariantVisitor;
import org.apache.iceberg.parquet.TripleWriter;
import org.apache.iceberg.parquet.VariantWriterBuilder;
import org.apache.iceberg.variants.Variant;
import org.apache.iceberg.variants.VariantMetadata;
import org.apache.iceberg.variants.VariantValue;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * Writes a Spark variant into a shredded Parquet variant group ({@code metadata}, {@code value},
 * {@code typed_value}) through Iceberg's own variant writers ({@link VariantWriterBuilder}), the
 * writers the official runtime uses: the parts of a value that match the {@code typed_value} layout
 * go to its typed columns, everything else (another type, object fields the layout lacks) to the
 * residual {@code value} column, so the value reads back exactly. The metadata is Spark's as it is.
 *
 * <p>Iceberg's writer owns the group's columns; the {@link Leaf}s this writer reports stand for
 * them towards Floe's parent writers, which only bind them to a column store and write NULLs.
 */
final class RowShreddedVariantWriter extends ValueWriter {
  private final ParquetValueWriter<Variant> writer;
  private final List<Leaf> columns;

  private RowShreddedVariantWriter(ParquetValueWriter<Variant> writer, List<ColumnDescriptor> descs) {
    this.writer = writer;
    List<TripleWriter<?>> triples = writer.columns();
    if (triples.size() != descs.size()) {
      throw new IllegalStateException(
          "Cannot write a shredded variant: Iceberg's writer has " + triples.size()
              + " columns, the group " + descs.size());
    }
    List<Leaf> leaves = new ArrayList<>(descs.size());
    for (int i = 0; i < descs.size(); i++) {
      leaves.add(new Column(descs.get(i), triples.get(i), i == 0 ? this : null));
    }
    this.columns = List.copyOf(leaves);
  }

  /**
   * @param message the file's Parquet schema
   * @param path the Parquet path of the variant group
   * @param group the variant group, with a {@code typed_value} field
   */
  @SuppressWarnings("unchecked")
  static RowShreddedVariantWriter create(MessageType message, String[] path, GroupType group) {
    ParquetValueWriter<Variant> writer =
        (ParquetValueWriter<Variant>)
            ParquetVariantVisitor.visit(group, new VariantWriterBuilder(message, Arrays.asList(path)));
    List<ColumnDescriptor> descs = new ArrayList<>();
    for (ColumnDescriptor desc : message.getColumns()) {
      String[] columnPath = desc.getPath();
      if (columnPath.length > path.length
          && Arrays.equals(Arrays.copyOf(columnPath, path.length), path)) {
        descs.add(desc);
      }
    }
    return new RowShreddedVariantWriter(writer, descs);
  }

  @Override
  void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
    VariantVal variant = data.getVariant(ordinal);
    VariantMetadata metadata =
        VariantMetadata.from(ByteBuffer.wrap(variant.getMetadata()).order(ByteOrder.LITTLE_ENDIAN));
    writer.write(
        repetitionLevel,
        Variant.of(
            metadata,
            VariantValue.from(
                metadata, ByteBuffer.wrap(variant.getValue()).order(ByteOrder.LITTLE_ENDIAN))));
  }

  @Override
  void writeNull(int repetitionLevel, int definitionLevel) {
    for (TripleWriter<?> column : writer.columns()) {
      column.writeNull(repetitionLevel, definitionLevel);
    }
  }

  @Override
  void setColumnStore(ColumnWriteStore store) {
    writer.setColumnStore(store);
  }

  @Override
  List<Leaf> columns() {
    return columns;
  }

  @Override
  Stream<FieldMetrics<?>> metrics() {
    return writer.metrics();
  }

  /**
   * One column of the group as Floe's parents see it: NULLs go to Iceberg's column writer, and
   * binding the group's first column binds all of Iceberg's writer (parents bind leaf by leaf).
   */
  private static final class Column extends Leaf {
    private final TripleWriter<?> triple;
    private final RowShreddedVariantWriter owner;

    Column(ColumnDescriptor desc, TripleWriter<?> triple, RowShreddedVariantWriter owner) {
      super(desc);
      this.triple = triple;
      this.owner = owner;
    }

    @Override
    void bind(ColumnWriteStore store) {
      if (owner != null) {
        owner.setColumnStore(store);
      }
    }

    @Override
    public void writeNull(int repetitionLevel, int definitionLevel) {
      triple.writeNull(repetitionLevel, definitionLevel);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      throw new UnsupportedOperationException("Cannot write a shredded variant part by ordinal");
    }
  }
}
