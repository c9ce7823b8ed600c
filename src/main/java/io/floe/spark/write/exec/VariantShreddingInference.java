package io.floe.spark.write.exec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.VariantShreddingAnalyzer;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.variants.VariantMetadata;
import org.apache.iceberg.variants.VariantValue;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.Type;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.types.VariantVal;

/**
 * The shredded layout of each top-level variant column of one data file, inferred from the file's
 * first rows by Iceberg's {@link VariantShreddingAnalyzer}, the inference the official runtime
 * runs (the most common type per path, integers and decimals widened, object fields seen in fewer
 * than a tenth of the rows left unshredded, fields in alphabetical order), with one difference:
 * decimals are never shredded.
 *
 * <p>Why not decimals: Iceberg's shredded writer puts a decimal into a {@code typed_value} of a
 * larger scale by rescaling it, so {@code 1.5} reads back as {@code 1.500000} and prints so in
 * {@code to_json}; and the official runtime 1.11 fails to write a decimal {@code typed_value} of
 * more than 18 digits ("Fixed Binary size 11 does not match field type length 16"). A decimal left
 * in the residual {@code value} column keeps its exact bytes. Any other value the inferred layout
 * does not fit (another type, a missing field) is kept in the residual column as well, so every
 * value reads back as it was written.
 *
 * <p>Rows are those of {@link RowParquetWriter}: ordinal {@code i} holds field {@code i} of the
 * schema. Variants nested in structs, lists or maps are not shredded, as in the official runtime.
 */
final class VariantShreddingInference extends VariantShreddingAnalyzer<InternalRow, Schema> {
  private static final String TYPED_VALUE = "typed_value";

  private VariantShreddingInference() {}

  /**
   * The {@code typed_value} type of each top-level variant column that has one, by field id; a
   * column whose values share no shreddable shape is absent and keeps the unshredded layout.
   */
  static Map<Integer, Type> infer(List<InternalRow> rows, Schema schema) {
    Map<Integer, Type> inferred = new VariantShreddingInference().analyzeVariantColumns(rows, schema, schema);
    Map<Integer, Type> result = new HashMap<>();
    for (Map.Entry<Integer, Type> entry : inferred.entrySet()) {
      Type typed = withoutDecimals(entry.getValue());
      if (typed != null) {
        result.put(entry.getKey(), typed);
      }
    }
    return result;
  }

  /** Whether the schema has a top-level variant column, the only kind that is shredded. */
  static boolean hasTopLevelVariant(Schema schema) {
    for (Types.NestedField field : schema.columns()) {
      if (field.type().isVariantType()) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected int resolveColumnIndex(Schema schema, String columnName) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(columnName)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  protected List<VariantValue> extractVariantValues(List<InternalRow> rows, int ordinal) {
    List<VariantValue> values = new ArrayList<>(rows.size());
    for (InternalRow row : rows) {
      if (!row.isNullAt(ordinal)) {
        VariantVal variant = row.getVariant(ordinal);
        VariantMetadata metadata =
            VariantMetadata.from(
                ByteBuffer.wrap(variant.getMetadata()).order(ByteOrder.LITTLE_ENDIAN));
        values.add(
            VariantValue.from(
                metadata, ByteBuffer.wrap(variant.getValue()).order(ByteOrder.LITTLE_ENDIAN)));
      }
    }
    return values;
  }

  /**
   * The {@code typed_value} type with every decimal path removed: a decimal object field is left
   * to the residual object, an array of decimals is not shredded; null when nothing is left.
   */
  static Type withoutDecimals(Type typed) {
    if (typed.isPrimitive()) {
      return typed.getLogicalTypeAnnotation()
              instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation
          ? null
          : typed;
    }
    GroupType group = typed.asGroupType();
    if (group.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
      GroupType repeated = group.getType(0).asGroupType();
      GroupType element = withoutDecimalsInField(repeated.getType(0).asGroupType());
      return element == null ? null : group.withNewFields(repeated.withNewFields(element));
    }
    List<Type> fields = new ArrayList<>();
    for (Type field : group.getFields()) {
      GroupType kept = withoutDecimalsInField(field.asGroupType());
      if (kept != null) {
        fields.add(kept);
      }
    }
    return fields.isEmpty() ? null : group.withNewFields(fields);
  }

  /** A shredded field or array element ({@code value}, {@code typed_value}); null if dropped. */
  private static GroupType withoutDecimalsInField(GroupType field) {
    if (!field.containsField(TYPED_VALUE)) {
      return field;
    }
    Type typed = withoutDecimals(field.getType(TYPED_VALUE));
    if (typed == null) {
      return null;
    }
    List<Type> parts = new ArrayList<>();
    for (Type part : field.getFields()) {
      parts.add(part.getName().equals(TYPED_VALUE) ? typed : part);
    }
    return field.withNewFields(parts);
  }
}
