package io.floe.spark.types;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The format-version rule of variant columns, for schemas and for single added columns. */
class VariantColumnsTest {
  private static final Type NESTED =
      Types.MapType.ofOptional(
          2,
          3,
          Types.StringType.get(),
          Types.StructType.of(Types.NestedField.optional(4, "doc", Types.VariantType.get())));

  @Test
  void variantsAtAnyDepthAreRefusedBeforeVersionThreeNamingTheColumn() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(5, "m", NESTED));

    assertThatThrownBy(() -> VariantColumns.requireSupported("create table db.t", schema, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot create table db.t: column m.value.doc has type variant, which needs Iceberg"
                + " format version 3 (the table is v2; set TBLPROPERTIES ('format-version'='3'))");
    assertThatThrownBy(() -> VariantColumns.requireSupported("add column m to db.t", "m", NESTED, 1))
        .hasMessageStartingWith("Cannot add column m to db.t: column m has type variant")
        .hasMessageContaining("the table is v1");
  }

  @Test
  void versionThreeTablesAndSchemasWithoutVariantsPass() {
    Schema schema = new Schema(Types.NestedField.optional(5, "m", NESTED));
    Schema plain = new Schema(Types.NestedField.optional(1, "id", Types.IntegerType.get()));

    assertThatCode(() -> VariantColumns.requireSupported("create table db.t", schema, 3))
        .doesNotThrowAnyException();
    assertThatCode(() -> VariantColumns.requireSupported("create table db.t", plain, 2))
        .doesNotThrowAnyException();
    assertThatCode(
            () -> VariantColumns.requireSupported("add column", "id", Types.LongType.get(), 2))
        .doesNotThrowAnyException();
  }
}
