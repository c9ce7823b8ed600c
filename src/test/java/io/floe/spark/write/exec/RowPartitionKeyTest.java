package io.floe.spark.write.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.types.SparkToIceberg;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The partition Floe computes from a Spark row is the one Iceberg's {@link PartitionKey} computes
 * from the same row as a generic record, for every transform, including timestamps before 1970 and
 * on unit boundaries, where a shortcut is easiest to get wrong.
 */
class RowPartitionKeyTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(2, "ntz", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(3, "d", Types.DateType.get()),
          Types.NestedField.optional(4, "s", Types.StringType.get()),
          Types.NestedField.optional(5, "l", Types.LongType.get()),
          Types.NestedField.optional(6, "dec", Types.DecimalType.of(9, 2)),
          Types.NestedField.optional(
              7, "st", Types.StructType.of(Types.NestedField.optional(8, "i", Types.IntegerType.get()))));

  @Test
  void everyTransformGivesIcebergsPartitionValues() {
    List<PartitionSpec> specs =
        List.of(
            PartitionSpec.builderFor(SCHEMA).day("ts").hour("ntz").day("d").build(),
            PartitionSpec.builderFor(SCHEMA).hour("ts").day("ntz").month("d").build(),
            PartitionSpec.builderFor(SCHEMA).month("ts").year("ntz").year("d").build(),
            PartitionSpec.builderFor(SCHEMA)
                .bucket("s", 16)
                .truncate("l", 10)
                .truncate("dec", 100)
                .identity("st.i")
                .build(),
            PartitionSpec.builderFor(SCHEMA).identity("s").bucket("l", 7).bucket("st.i", 3).build());
    List<InternalRow> rows = rows();
    SparkToIceberg converter = new SparkToIceberg(SCHEMA.asStruct());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(SCHEMA.asStruct());

    for (PartitionSpec spec : specs) {
      RowPartitionKey actual = new RowPartitionKey(spec, SCHEMA);
      PartitionKey expected = new PartitionKey(spec, SCHEMA);
      for (InternalRow row : rows) {
        actual.partition(row);
        expected.partition(wrapper.wrap(converter.convert(row)));
        assertThat(spec.partitionToPath(actual)).isEqualTo(spec.partitionToPath(expected));
        for (int i = 0; i < spec.fields().size(); i += 1) {
          assertThat(actual.get(i, Object.class)).isEqualTo(expected.get(i, Object.class));
        }
      }
    }
  }

  @Test
  void eachRowSaysWhetherItsPartitionDiffersFromThePreviousRows() {
    List<PartitionSpec> specs =
        List.of(
            // one field read as a primitive
            PartitionSpec.builderFor(SCHEMA).day("ts").build(),
            PartitionSpec.builderFor(SCHEMA).hour("ntz").build(),
            PartitionSpec.builderFor(SCHEMA).month("ts").build(),
            PartitionSpec.builderFor(SCHEMA).year("ntz").build(),
            PartitionSpec.builderFor(SCHEMA).identity("d").build(),
            PartitionSpec.builderFor(SCHEMA).identity("l").build(),
            PartitionSpec.builderFor(SCHEMA).identity("ts").build(),
            // computed keys compared value by value
            PartitionSpec.builderFor(SCHEMA).day("d").build(),
            PartitionSpec.builderFor(SCHEMA).identity("s").build(),
            PartitionSpec.builderFor(SCHEMA).bucket("l", 4).build(),
            PartitionSpec.builderFor(SCHEMA).identity("st.i").build(),
            PartitionSpec.builderFor(SCHEMA).day("ts").truncate("dec", 100).build());
    // each row twice, then one a microsecond later (mostly the same partition), then the row again
    List<InternalRow> rows = new ArrayList<>();
    List<InternalRow> base = rows();
    for (int i = 0; i < base.size(); i += 1) {
      InternalRow row = base.get(i);
      rows.add(row);
      rows.add(row.copy());
      if (!row.isNullAt(0)) {
        InternalRow later = row.copy();
        later.setLong(0, row.getLong(0) + 1);
        later.setLong(1, row.getLong(1) + 1);
        later.setLong(4, row.getLong(4) + 1);
        rows.add(later);
      }
      rows.add(row);
      if (i % 50 == 0) {
        rows.add(base.get(0));
      }
    }
    SparkToIceberg converter = new SparkToIceberg(SCHEMA.asStruct());
    InternalRecordWrapper wrapper = new InternalRecordWrapper(SCHEMA.asStruct());

    for (PartitionSpec spec : specs) {
      RowPartitionKey actual = new RowPartitionKey(spec, SCHEMA);
      PartitionKey expected = new PartitionKey(spec, SCHEMA);
      List<Object> previous = null;
      int unchanged = 0;
      for (InternalRow row : rows) {
        boolean changed = actual.partition(row);
        expected.partition(wrapper.wrap(converter.convert(row)));
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < spec.fields().size(); i += 1) {
          values.add(expected.get(i, Object.class));
          assertThat(actual.get(i, Object.class)).isEqualTo(expected.get(i, Object.class));
        }
        assertThat(changed).as("%s, row %s", spec, row).isEqualTo(!values.equals(previous));
        unchanged += changed ? 0 : 1;
        previous = values;
      }
      assertThat(unchanged).as("rows of the previous row's partition under %s", spec)
          .isGreaterThanOrEqualTo(base.size());
    }
  }

  private static List<InternalRow> rows() {
    long hour = 3_600_000_000L;
    long day = 24 * hour;
    List<Long> micros =
        new ArrayList<>(
            List.of(0L, 1L, -1L, hour, -hour, hour - 1, -hour + 1, day, -day, day - 1, -day - 1,
                -day + 1, 1_709_251_200_000_000L, -62_135_596_800_000_000L, 253_402_300_799_999_999L));
    Random random = new Random(42);
    for (int i = 0; i < 500; i += 1) {
      micros.add(random.nextLong() % 253_402_300_799_999_999L);
    }
    List<InternalRow> rows = new ArrayList<>();
    rows.add(new GenericInternalRow(new Object[7]));
    for (long value : micros) {
      int days = (int) Math.floorDiv(value, day);
      rows.add(
          new GenericInternalRow(
              new Object[] {
                value,
                value,
                days,
                UTF8String.fromString("v" + value),
                value,
                Decimal.apply(new BigDecimal(BigDecimal.valueOf(value % 10_000_000).toPlainString() + ".25")),
                new GenericInternalRow(new Object[] {(int) (value % 1000)})
              }));
    }
    return rows;
  }
}
