package io.floe.spark.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.stream.Collectors;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Transform;
import org.junit.jupiter.api.Test;

class TransformsTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(4, "day", Types.DateType.get()),
          Types.NestedField.optional(
              5,
              "location",
              Types.StructType.of(
                  Types.NestedField.optional(6, "country", Types.StringType.get()),
                  Types.NestedField.optional(7, "ts", Types.TimestampType.withoutZone()))),
          Types.NestedField.optional(8, "weird.name`", Types.IntegerType.get()),
          Types.NestedField.optional(9, "tags", Types.ListType.ofOptional(10, Types.StringType.get())),
          Types.NestedField.optional(11, "ts_ntz", Types.TimestampType.withoutZone()));

  @Test
  void everyTransformConvertsToIcebergAndBack() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA)
            .identity("name")
            .bucket("id", 16)
            .truncate("location.country", 2)
            .year("ts")
            .month("location.ts")
            .day("day")
            .hour("ts_ntz")
            .identity("weird.name`")
            .build();

    Transform[] spark = Transforms.toSpark(spec);

    assertThat(Arrays.stream(spark).map(TransformsTest::show))
        .containsExactly(
            "identity(name)",
            "bucket(16, id)",
            "truncate(location.country, 2)",
            "years(ts)",
            "months(location.ts)",
            "days(day)",
            "hours(ts_ntz)",
            "identity(`weird.name```)");
    assertThat(Transforms.toIcebergSpec(SCHEMA, spark).fields()).isEqualTo(spec.fields());
  }

  @Test
  void sparkParserTransformsBecomeTheirIcebergPartitionFields() {
    Transform[] partitioning = {
      Expressions.identity("name"),
      Expressions.bucket(8, "id"),
      Expressions.apply("truncate", column("location.country"), Expressions.literal(4)),
      Expressions.days("ts"),
      Expressions.years("location.ts")
    };

    PartitionSpec spec = Transforms.toIcebergSpec(SCHEMA, partitioning);

    assertThat(spec.fields())
        .isEqualTo(
            PartitionSpec.builderFor(SCHEMA)
                .identity("name")
                .bucket("id", 8)
                .truncate("location.country", 4)
                .day("ts")
                .year("location.ts")
                .build()
                .fields());
  }

  @Test
  void truncateAcceptsTheWidthBeforeOrAfterTheColumn() {
    Transform columnFirst =
        Expressions.apply("truncate", column("name"), Expressions.literal(3));
    Transform widthFirst =
        Expressions.apply("truncate", Expressions.literal(3), column("name"));
    Transform longWidth =
        Expressions.apply("truncate", column("name"), Expressions.literal(3L));

    PartitionSpec expected = PartitionSpec.builderFor(SCHEMA).truncate("name", 3).build();
    assertThat(Transforms.toIcebergSpec(SCHEMA, new Transform[] {columnFirst}).fields())
        .isEqualTo(expected.fields());
    assertThat(Transforms.toIcebergSpec(SCHEMA, new Transform[] {widthFirst}).fields())
        .isEqualTo(expected.fields());
    assertThat(Transforms.toIcebergSpec(SCHEMA, new Transform[] {longWidth}).fields())
        .isEqualTo(expected.fields());
  }

  @Test
  void singularNamesAndUppercaseAreAliasesOfTheTimeTransforms() {
    Transform[] partitioning = {
      Expressions.apply("YEAR", column("ts")),
      Expressions.apply("month", column("location.ts")),
      Expressions.apply("date", column("day")),
      Expressions.apply("Bucket", Expressions.literal(4), column("name")),
    };
    Transform[] hour = {Expressions.apply("hour", column("ts"))};
    Transform[] day = {Expressions.apply("day", column("ts"))};

    assertThat(Transforms.toIcebergSpec(SCHEMA, partitioning).fields())
        .isEqualTo(
            PartitionSpec.builderFor(SCHEMA)
                .year("ts")
                .month("location.ts")
                .day("day")
                .bucket("name", 4)
                .build()
                .fields());
    assertThat(Transforms.toIcebergSpec(SCHEMA, hour).fields())
        .isEqualTo(PartitionSpec.builderFor(SCHEMA).hour("ts").build().fields());
    assertThat(Transforms.toIcebergSpec(SCHEMA, day).fields())
        .isEqualTo(PartitionSpec.builderFor(SCHEMA).day("ts").build().fields());
  }

  @Test
  void columnsAreFoundIgnoringCaseWhenThereIsNoExactMatch() {
    Transform[] partitioning = {Expressions.identity("LOCATION.Country")};

    PartitionSpec spec = Transforms.toIcebergSpec(SCHEMA, partitioning);

    assertThat(spec.fields())
        .isEqualTo(PartitionSpec.builderFor(SCHEMA).identity("location.country").build().fields());
  }

  @Test
  void noTransformsGiveAnUnpartitionedSpec() {
    assertThat(Transforms.toIcebergSpec(SCHEMA, new Transform[0]).isUnpartitioned()).isTrue();
    assertThat(Transforms.toSpark(PartitionSpec.unpartitioned())).isEmpty();
  }

  @Test
  void voidTransformsAreLeftOutOfTheSparkPartitioning() {
    PartitionSpec spec =
        PartitionSpec.builderFor(SCHEMA).alwaysNull("name").identity("id").build();

    assertThat(Arrays.stream(Transforms.toSpark(spec)).map(TransformsTest::show))
        .containsExactly("identity(id)");
  }

  @Test
  void unsupportedTransformIsRejectedByName() {
    Transform[] partitioning = {Expressions.apply("zorder", column("id"), column("name"))};

    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, partitioning))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot partition by zorder(id, name): unsupported transform 'zorder'");
  }

  @Test
  void unknownColumnIsRejectedByName() {
    Transform[] topLevel = {Expressions.days("nope")};
    Transform[] nested = {Expressions.identity("location.nope")};
    Transform[] throughList = {Expressions.identity("tags.element")};

    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, topLevel))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot partition by days(nope): column 'nope' not found in the table schema");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, nested))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot partition by identity(location.nope): "
                + "column 'location.nope' not found in the table schema");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, throughList))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot partition by identity(tags.element): "
                + "column 'tags.element' not found in the table schema");
  }

  @Test
  void transformThatDoesNotFitTheColumnTypeIsRejected() {
    Transform[] yearsOfString = {Expressions.years("name")};
    Transform[] identityOfList = {Expressions.identity("tags")};

    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, yearsOfString))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot partition by years(name): "
                + "transform year cannot be applied to column 'name' of type string");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, identityOfList))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot partition by identity(tags): "
                + "transform identity cannot be applied to column 'tags' of type list<string>");
  }

  @Test
  void invalidTransformArgumentsAreRejected() {
    Transform twoColumns = Expressions.bucket(4, "id", "name");
    Transform zeroBuckets = Expressions.bucket(0, "id");
    Transform noWidth = Expressions.apply("truncate", column("name"));
    Transform textWidth =
        Expressions.apply("truncate", column("name"), Expressions.literal("3"));
    Transform hugeWidth =
        Expressions.apply("truncate", column("name"), Expressions.literal(1L << 40));
    Transform daysWithNumber = Expressions.apply("days", column("ts"), Expressions.literal(2));

    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, new Transform[] {twoColumns}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot partition by bucket(4, id, name): "
                + "expected a column and an integer number of buckets");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, new Transform[] {zeroBuckets}))
        .hasMessage("Cannot partition by bucket(0, id): the number of buckets must be positive");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, new Transform[] {noWidth}))
        .hasMessage("Cannot partition by truncate(name): expected a column and an integer width");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, new Transform[] {textWidth}))
        .hasMessage(
            "Cannot partition by truncate(name, '3'): expected a column and an integer width");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, new Transform[] {hugeWidth}))
        .hasMessageStartingWith("Cannot partition by truncate(name, 1099511627776)")
        .hasMessageEndingWith(": expected a column and an integer width");
    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, new Transform[] {daysWithNumber}))
        .hasMessage("Cannot partition by days(ts, 2): expected a single column");
  }

  @Test
  void redundantTransformsOnTheSameColumnAreRejected() {
    Transform[] partitioning = {Expressions.hours("ts"), Expressions.days("ts")};

    assertThatThrownBy(() -> Transforms.toIcebergSpec(SCHEMA, partitioning))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot partition by days(ts): Cannot add redundant partition");
  }

  /** A transform as name(arguments), including identity, whose Spark describe() omits the name. */
  private static String show(Transform transform) {
    return Arrays.stream(transform.arguments())
        .map(Expression::describe)
        .collect(Collectors.joining(", ", transform.name() + "(", ")"));
  }

  private static Expression column(String name) {
    return Expressions.column(name);
  }
}
