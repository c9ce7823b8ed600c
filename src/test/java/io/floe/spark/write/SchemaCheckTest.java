package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * The planning checks of a write's input schema, with the official runtime's {@code
 * check-nullability} and {@code check-ordering} on (the default) and off. Spark's own output
 * resolution already aligns names and nullability for SQL and DataFrame writes, so these inputs are
 * built by hand.
 */
class SchemaCheckTest {
  private static final Schema TABLE =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "a", Types.StringType.get()),
          Types.NestedField.optional(3, "b", Types.StringType.get()),
          Types.NestedField.optional(
              4, "st", Types.StructType.of(Types.NestedField.required(5, "x", Types.IntegerType.get()))),
          Types.NestedField.optional(
              6, "l", Types.ListType.ofRequired(7, Types.IntegerType.get())));

  private static StructType input(
      boolean idNullable, String first, String second, boolean xNullable, boolean elementNullable) {
    return new StructType()
        .add("id", DataTypes.LongType, idNullable)
        .add(first, DataTypes.StringType)
        .add(second, DataTypes.StringType)
        .add("st", new StructType().add("x", DataTypes.IntegerType, xNullable))
        .add("l", DataTypes.createArrayType(DataTypes.IntegerType, elementNullable));
  }

  @Test
  void matchingInputPassesBothChecks() {
    assertThatCode(
            () -> SchemaCheck.check("db.t", TABLE, input(false, "a", "b", false, false), true, true))
        .doesNotThrowAnyException();
  }

  @Test
  void nullableInputIntoRequiredColumnsFailsUnlessCheckNullabilityIsOff() {
    assertThatThrownBy(
            () -> SchemaCheck.check("db.t", TABLE, input(true, "a", "b", false, false), true, true))
        .hasMessage(
            "Cannot write to db.t: column 'id' is required but the data's may be NULL"
                + " (option 'check-nullability'=false checks each row instead)");
    assertThatThrownBy(
            () -> SchemaCheck.check("db.t", TABLE, input(false, "a", "b", true, false), true, true))
        .hasMessageContaining("column 'st.x' is required");
    assertThatThrownBy(
            () -> SchemaCheck.check("db.t", TABLE, input(false, "a", "b", false, true), true, true))
        .hasMessageContaining("column 'l.element' is required");

    assertThatCode(
            () -> SchemaCheck.check("db.t", TABLE, input(true, "a", "b", true, true), false, true))
        .doesNotThrowAnyException();
  }

  @Test
  void columnsOutOfOrderFailUnlessCheckOrderingIsOff() {
    assertThatThrownBy(
            () -> SchemaCheck.check("db.t", TABLE, input(false, "b", "a", false, false), true, true))
        .hasMessage(
            "Cannot write to db.t: column 'a' is out of order: the data has 'b' in its place"
                + " (option 'check-ordering'=false skips this check)");

    assertThatCode(
            () -> SchemaCheck.check("db.t", TABLE, input(false, "b", "a", false, false), true, false))
        .doesNotThrowAnyException();
  }

  @Test
  void typesAndColumnCountAreCheckedWithBothChecksOff() {
    StructType fewer = new StructType().add("id", DataTypes.LongType);
    assertThatThrownBy(() -> SchemaCheck.check("db.t", TABLE, fewer, false, false))
        .hasMessageContaining("the table has 5 columns but the data has 1");
  }
}
