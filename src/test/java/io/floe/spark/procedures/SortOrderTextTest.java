package io.floe.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The {@code sort_order} text Floe parses without SQL extensions, checked against Iceberg's builder. */
class SortOrderTextTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()),
          Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(
              4, "point", Types.StructType.of(Types.NestedField.optional(5, "x", Types.IntegerType.get()))));

  @Test
  void directionsNullOrdersAndDefaultsAreIcebergs() {
    SortOrder parsed =
        SortOrderText.parse("id DESC NULLS LAST, data, ts asc nulls last, `point`.x desc")
            .toSortOrder(SCHEMA, true);
    SortOrder expected =
        SortOrder.builderFor(SCHEMA)
            .sortBy("id", SortDirection.DESC, NullOrder.NULLS_LAST)
            .sortBy("data", SortDirection.ASC, NullOrder.NULLS_FIRST)
            .sortBy("ts", SortDirection.ASC, NullOrder.NULLS_LAST)
            .sortBy("point.x", SortDirection.DESC, NullOrder.NULLS_LAST)
            .build();
    assertThat(parsed.sameOrder(expected)).as(parsed.toString()).isTrue();
  }

  @Test
  void transformsInEitherArgumentOrder() {
    SortOrder parsed =
        SortOrderText.parse("bucket(16, id), truncate(data, 4) DESC, days(ts), hours(ts)")
            .toSortOrder(SCHEMA, true);
    SortOrder expected =
        SortOrder.builderFor(SCHEMA)
            .asc(org.apache.iceberg.expressions.Expressions.bucket("id", 16))
            .desc(org.apache.iceberg.expressions.Expressions.truncate("data", 4))
            .asc(org.apache.iceberg.expressions.Expressions.day("ts"))
            .asc(org.apache.iceberg.expressions.Expressions.hour("ts"))
            .build();
    assertThat(parsed.sameOrder(expected)).as(parsed.toString()).isTrue();
  }

  @Test
  void zorderIsRecognisedAndCannotBeMixed() {
    SortOrderText zorder = SortOrderText.parse("zorder(id, data)");
    assertThat(zorder.isZOrder()).isTrue();
    assertThat(zorder.zOrderColumns()).containsExactly("id", "data");
    assertThatThrownBy(() -> SortOrderText.parse("zorder(id), data"))
        .hasMessage(
            "Cannot parse sort order 'zorder(id), data': a zorder(...) cannot be mixed with other "
                + "sort fields");
  }

  @Test
  void badTextFailsNamingIt() {
    assertThatThrownBy(() -> SortOrderText.parse("id DESC,"))
        .hasMessage("Cannot parse sort order 'id DESC,': expected a column name at the end");
    assertThatThrownBy(() -> SortOrderText.parse("id DESC LAST"))
        .hasMessage("Cannot parse sort order 'id DESC LAST': unexpected 'LAST'");
    assertThatThrownBy(() -> SortOrderText.parse("bucket(16, id"))
        .hasMessage("Cannot parse sort order 'bucket(16, id': expected ')'");
    assertThatThrownBy(() -> SortOrderText.parse("nope(id)").toSortOrder(SCHEMA, true))
        .hasMessage("Cannot use sort order 'nope(id)': unknown transform nope");
    assertThatThrownBy(() -> SortOrderText.parse("missing").toSortOrder(SCHEMA, true))
        .hasMessageStartingWith("Cannot use sort order 'missing': Cannot find field 'missing'");
  }
}
