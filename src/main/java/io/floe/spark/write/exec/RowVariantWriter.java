package io.floe.spark.write.exec;

import io.floe.spark.write.exec.RowLeafWriters.Leaf;
import io.floe.spark.write.exec.RowValueWriters.ValueWriter;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * Writes a Spark variant ({@link VariantVal}) into Iceberg's unshredded Parquet variant layout: a
 * group annotated as a variant holding two required binary columns, {@code metadata} and {@code
 * value}, which take Spark's two byte arrays as they are (Spark and the Parquet variant spec share
 * one binary encoding). This is the layout Iceberg's own writers produce when no shredding function
 * is set: Floe's layout unless variant shredding is on ({@code write.parquet.shred-variants}), and
 * for variants nested in structs, lists and maps always. Shredded groups are written by {@link
 * RowShreddedVariantWriter}.
 */
final class RowVariantWriter extends ValueWriter {
  private final Part metadata;
  private final Part value;
  private final List<Leaf> columns;

  private RowVariantWriter(Part metadata, Part value) {
    this.metadata = metadata;
    this.value = value;
    this.columns = List.of(metadata, value);
  }

  /**
   * @param group the variant's Parquet group, as Iceberg's schema conversion made it
   * @param metadataDesc the column of the group's {@code metadata} field
   * @param valueDesc the column of the group's {@code value} field
   * @param column the column's name, for errors
   * @throws IllegalArgumentException if the group is not the unshredded layout
   */
  static RowVariantWriter create(
      GroupType group, ColumnDescriptor metadataDesc, ColumnDescriptor valueDesc, String column) {
    if (group.getFieldCount() != 2
        || !isBinary(group, 0, "metadata")
        || !isBinary(group, 1, "value")) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot write variant column '%s': expected the unshredded layout (metadata, value),"
                  + " not %s",
              column, group));
    }
    return new RowVariantWriter(new Part(metadataDesc), new Part(valueDesc));
  }

  private static boolean isBinary(GroupType group, int index, String name) {
    org.apache.parquet.schema.Type field = group.getType(index);
    return field.getName().equals(name)
        && field.isPrimitive()
        && field.asPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY;
  }

  @Override
  void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
    VariantVal variant = data.getVariant(ordinal);
    metadata.writeBytes(repetitionLevel, variant.getMetadata());
    value.writeBytes(repetitionLevel, variant.getValue());
  }

  @Override
  List<Leaf> columns() {
    return columns;
  }

  /** One of the two binary columns; written by the variant writer, never by ordinal. */
  private static final class Part extends Leaf {
    Part(ColumnDescriptor desc) {
      super(desc);
    }

    void writeBytes(int repetitionLevel, byte[] bytes) {
      column.write(Binary.fromConstantByteArray(bytes), repetitionLevel, maxDefinitionLevel);
    }

    @Override
    void write(int repetitionLevel, SpecializedGetters data, int ordinal) {
      throw new UnsupportedOperationException("Cannot write a variant part by ordinal");
    }
  }
}
