package io.floe.spark.orc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.iceberg.types.Types;
import org.apache.orc.storage.ql.exec.vector.BytesColumnVector;
import org.apache.orc.storage.ql.exec.vector.Decimal64ColumnVector;
import org.apache.orc.storage.ql.exec.vector.DecimalColumnVector;
import org.apache.orc.storage.ql.exec.vector.DoubleColumnVector;
import org.apache.orc.storage.ql.exec.vector.ListColumnVector;
import org.apache.orc.storage.ql.exec.vector.LongColumnVector;
import org.apache.orc.storage.ql.exec.vector.MapColumnVector;
import org.apache.orc.storage.ql.exec.vector.StructColumnVector;
import org.apache.orc.storage.ql.exec.vector.TimestampColumnVector;
import org.apache.orc.storage.serde2.io.HiveDecimalWritable;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.junit.jupiter.api.Test;

/**
 * The adapters read ORC's vectors as Spark expects: repeating vectors and stale null flags of
 * vectors without NULLs, decimals of both ORC representations at the column's scale, timestamps
 * before and after the epoch to the microsecond, and nested vectors by their offsets.
 */
class OrcVectorTest {
  @Test
  void repeatingAndNullFlagsFollowOrcsRules() {
    LongColumnVector longs = new LongColumnVector(4);
    longs.isRepeating = true;
    longs.noNulls = true;
    longs.vector[0] = 7;
    longs.isNull[2] = true; // stale: noNulls says no row is NULL
    OrcVector vector = OrcVector.of(Types.LongType.get(), longs);
    vector.setNumRows(4);
    assertThat(vector.getLong(3)).isEqualTo(7);
    assertThat(vector.isNullAt(2)).isFalse();
    assertThat(vector.numNulls()).isZero();

    longs.isRepeating = true;
    longs.noNulls = false;
    longs.isNull[0] = true;
    assertThat(vector.isNullAt(3)).isTrue();
    assertThat(vector.numNulls()).isEqualTo(4);

    longs.isRepeating = false;
    longs.isNull[0] = false;
    longs.isNull[1] = true;
    longs.isNull[2] = false;
    longs.isNull[3] = true;
    assertThat(vector.numNulls()).isEqualTo(2);
    assertThat(OrcVector.of(Types.BooleanType.get(), longs).getBoolean(0)).isTrue();
    assertThat(OrcVector.of(Types.IntegerType.get(), longs).getInt(0)).isEqualTo(7);
  }

  @Test
  void decimalsOfBothRepresentationsReadAtTheColumnsScale() {
    DecimalColumnVector hive = new DecimalColumnVector(2, 38, 10);
    hive.vector[0] = new HiveDecimalWritable("1.5"); // Hive keeps no trailing zeros
    hive.vector[1] = new HiveDecimalWritable("-12345678901234567890.0123456789");
    OrcVector large = OrcVector.of(Types.DecimalType.of(38, 10), hive);
    assertThat(large.getDecimal(0, 38, 10).toJavaBigDecimal())
        .isEqualTo(new BigDecimal("1.5000000000"));
    assertThat(large.getDecimal(1, 38, 10).toJavaBigDecimal())
        .isEqualTo(new BigDecimal("-12345678901234567890.0123456789"));

    DecimalColumnVector small = new DecimalColumnVector(1, 9, 2);
    small.vector[0] = new HiveDecimalWritable("-3");
    assertThat(OrcVector.of(Types.DecimalType.of(9, 2), small).getDecimal(0, 9, 2).toUnscaledLong())
        .isEqualTo(-300);

    Decimal64ColumnVector decimal64 = new Decimal64ColumnVector(1, 18, 4);
    decimal64.vector[0] = -123456789012345678L;
    OrcVector vector = OrcVector.of(Types.DecimalType.of(18, 4), decimal64);
    assertThat(vector.getDecimal(0, 18, 4).toJavaBigDecimal())
        .isEqualTo(new BigDecimal("-12345678901234.5678"));
    assertThatThrownBy(() -> vector.getDecimal(0, 18, 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("scale 4 at scale 2");
  }

  @Test
  void timestampsAreMicrosecondsOnBothSidesOfTheEpoch() {
    TimestampColumnVector timestamps = new TimestampColumnVector(3);
    Instant before = Instant.parse("1969-12-31T23:59:58.500001Z");
    Instant after = Instant.parse("2024-02-29T23:59:59.999999Z");
    timestamps.set(0, Timestamp.from(before));
    timestamps.set(1, Timestamp.from(after));
    timestamps.set(2, Timestamp.from(Instant.EPOCH));
    OrcVector vector = OrcVector.of(Types.TimestampType.withZone(), timestamps);
    assertThat(vector.getLong(0)).isEqualTo(-1_499_999L);
    assertThat(vector.getLong(1)).isEqualTo(after.getEpochSecond() * 1_000_000L + 999_999);
    assertThat(vector.getLong(2)).isZero();
  }

  @Test
  void stringsBinaryAndDoublesAreSlicesOfOrcsBuffers() {
    BytesColumnVector bytes = new BytesColumnVector(2);
    byte[] buffer = "xxhéllo".getBytes(StandardCharsets.UTF_8);
    bytes.setRef(0, buffer, 2, buffer.length - 2);
    bytes.setRef(1, buffer, 0, 0);
    assertThat(OrcVector.of(Types.StringType.get(), bytes).getUTF8String(0).toString())
        .isEqualTo("héllo");
    assertThat(OrcVector.of(Types.BinaryType.get(), bytes).getBinary(1)).isEmpty();
    DoubleColumnVector doubles = new DoubleColumnVector(1);
    doubles.vector[0] = 0.1f;
    assertThat(OrcVector.of(Types.FloatType.get(), doubles).getFloat(0)).isEqualTo(0.1f);
  }

  @Test
  void nestedVectorsReadTheirChildrenByOffsets() {
    LongColumnVector elements = new LongColumnVector(5);
    for (int i = 0; i < 5; i++) {
      elements.vector[i] = 10 + i;
    }
    elements.noNulls = false;
    elements.isNull[3] = true;
    ListColumnVector list = new ListColumnVector(2, elements);
    list.offsets[0] = 0;
    list.lengths[0] = 2;
    list.offsets[1] = 2;
    list.lengths[1] = 3;
    list.childCount = 5;
    OrcVector arrays = OrcVector.of(Types.ListType.ofOptional(2, Types.LongType.get()), list);
    arrays.setNumRows(2);
    ColumnarArray second = arrays.getArray(1);
    assertThat(second.numElements()).isEqualTo(3);
    assertThat(second.getLong(0)).isEqualTo(12);
    assertThat(second.isNullAt(1)).isTrue();

    BytesColumnVector keys = new BytesColumnVector(2);
    keys.initBuffer();
    keys.setVal(0, "a".getBytes(StandardCharsets.UTF_8));
    keys.setVal(1, "b".getBytes(StandardCharsets.UTF_8));
    DoubleColumnVector values = new DoubleColumnVector(2);
    values.vector[1] = 2.5;
    MapColumnVector map = new MapColumnVector(1, keys, values);
    map.offsets[0] = 0;
    map.lengths[0] = 2;
    map.childCount = 2;
    ColumnarMap read =
        OrcVector.of(
                Types.MapType.ofOptional(3, 4, Types.StringType.get(), Types.DoubleType.get()), map)
            .getMap(0);
    assertThat(read.keyArray().getUTF8String(1).toString()).isEqualTo("b");
    assertThat(read.valueArray().getDouble(1)).isEqualTo(2.5);

    StructColumnVector struct = new StructColumnVector(2, new LongColumnVector(2));
    ((LongColumnVector) struct.fields[0]).vector[1] = 42;
    OrcVector structs =
        OrcVector.of(
            Types.StructType.of(Types.NestedField.optional(5, "a", Types.IntegerType.get())),
            struct);
    assertThat(structs.getChild(0).getInt(1)).isEqualTo(42);
    assertThatThrownBy(() -> OrcVector.of(Types.UUIDType.get(), keys))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("uuid");
  }
}
