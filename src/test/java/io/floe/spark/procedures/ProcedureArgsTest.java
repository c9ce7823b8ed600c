package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** Reading arguments by parameter, without Spark: option maps, arrays, timestamps, misuse. */
class ProcedureArgsTest {
  private static final ProcedureParameter OPTIONS =
      Parameters.optional("options", Parameters.STRING_MAP);
  private static final ProcedureParameter IDS = Parameters.optional("ids", Parameters.LONG_ARRAY);
  private static final ProcedureParameter AT = Parameters.optional("at", DataTypes.TimestampType);
  private static final ProcedureParameter[] PARAMETERS = {OPTIONS, IDS, AT};

  private static ProcedureArgs args(Object options, Object ids, Object at) {
    InternalRow row = new GenericInternalRow(new Object[] {options, ids, at});
    return new ProcedureArgs("cat.system.test", PARAMETERS, row);
  }

  private static ArrayBasedMapData map(String... keysAndValues) {
    Object[] keys = new Object[keysAndValues.length / 2];
    Object[] values = new Object[keys.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = UTF8String.fromString(keysAndValues[2 * i]);
      values[i] =
          keysAndValues[2 * i + 1] == null ? null : UTF8String.fromString(keysAndValues[2 * i + 1]);
    }
    return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
  }

  @Test
  void optionsAreMatchedCaseInsensitivelyAgainstTheKnownKeys() {
    assertThat(
            args(map("Min-Input-Files", "2"), null, null)
                .options(OPTIONS, Set.of("min-input-files")))
        .containsExactly(java.util.Map.entry("min-input-files", "2"));
    assertThat(args(null, null, null).options(OPTIONS, Set.of("a"))).isEmpty();
  }

  @Test
  void unknownOptionKeyFailsNamingItAndListingTheKnownOnes() {
    assertThatThrownBy(
            () -> args(map("rewrite-al", "true"), null, null).options(OPTIONS, Set.of("b", "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot call cat.system.test: argument 'options' has an unknown key 'rewrite-al'; "
                + "known keys: a, b");
    assertThatThrownBy(() -> args(map("a", null), null, null).options(OPTIONS, Set.of("a")))
        .hasMessage("Cannot call cat.system.test: argument 'options' has a NULL value for key 'a'");
  }

  @Test
  void arraysWithNullElementsFailNamingTheArgument() {
    assertThat(args(null, new GenericArrayData(new Object[] {1L, 2L}), null).optionalLongList(IDS))
        .containsExactly(1L, 2L);
    assertThatThrownBy(
            () ->
                args(null, new GenericArrayData(new Object[] {1L, null}), null)
                    .optionalLongList(IDS))
        .hasMessage("Cannot call cat.system.test: argument 'ids' contains NULL");
  }

  @Test
  void timestampsAreTruncatedToMilliseconds() {
    assertThat(args(null, null, 1_999L).optionalTimestampMillis(AT)).isEqualTo(1L);
    assertThat(args(null, null, -1L).optionalTimestampMillis(AT)).isEqualTo(-1L);
    assertThat(args(null, null, null).optionalTimestampMillis(AT)).isNull();
  }

  @Test
  void readingAParameterWithTheWrongAccessorIsABug() {
    assertThatThrownBy(() -> args(null, null, 1L).optionalLong(AT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Parameter at of cat.system.test is timestamp, not bigint");
    ProcedureParameter other = Parameters.optional("other", DataTypes.LongType);
    assertThatThrownBy(() -> args(null, null, null).optionalLong(other))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Parameter other is not a parameter of cat.system.test");
  }
}
