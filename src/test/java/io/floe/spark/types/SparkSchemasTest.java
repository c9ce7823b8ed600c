package io.floe.spark.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.ObjectType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimeType;
import org.apache.spark.sql.types.UserDefinedType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SparkSchemasTest {

  static Stream<Arguments> primitiveTypes() {
    return Stream.of(
        Arguments.of(Types.BooleanType.get(), DataTypes.BooleanType),
        Arguments.of(Types.IntegerType.get(), DataTypes.IntegerType),
        Arguments.of(Types.LongType.get(), DataTypes.LongType),
        Arguments.of(Types.FloatType.get(), DataTypes.FloatType),
        Arguments.of(Types.DoubleType.get(), DataTypes.DoubleType),
        Arguments.of(Types.DecimalType.of(38, 10), DataTypes.createDecimalType(38, 10)),
        Arguments.of(Types.DecimalType.of(5, 0), DataTypes.createDecimalType(5, 0)),
        Arguments.of(Types.DateType.get(), DataTypes.DateType),
        Arguments.of(Types.TimestampType.withZone(), DataTypes.TimestampType),
        Arguments.of(Types.TimestampType.withoutZone(), DataTypes.TimestampNTZType),
        Arguments.of(Types.StringType.get(), DataTypes.StringType),
        Arguments.of(Types.UUIDType.get(), DataTypes.StringType),
        Arguments.of(Types.FixedType.ofLength(16), DataTypes.BinaryType),
        Arguments.of(Types.BinaryType.get(), DataTypes.BinaryType),
        // format v3: read as microseconds (see V3TypesReadTest) and as NULL
        Arguments.of(Types.TimestampNanoType.withZone(), DataTypes.TimestampType),
        Arguments.of(Types.TimestampNanoType.withoutZone(), DataTypes.TimestampNTZType),
        Arguments.of(Types.UnknownType.get(), DataTypes.NullType));
  }

  @ParameterizedTest
  @MethodSource("primitiveTypes")
  void icebergPrimitiveTypesMapToTheirSparkTypes(Type iceberg, DataType spark) {
    assertThat(SparkSchemas.toSpark(iceberg)).isEqualTo(spark);
  }

  @Test
  void variantMapsToSparksVariantBothWaysAtAnyDepth() {
    Schema iceberg =
        new Schema(
            Types.NestedField.required(1, "v", Types.VariantType.get()),
            Types.NestedField.optional(
                2, "s", Types.StructType.of(Types.NestedField.optional(4, "w", Types.VariantType.get()))),
            Types.NestedField.optional(3, "l", Types.ListType.ofOptional(5, Types.VariantType.get())));
    StructType spark =
        new StructType()
            .add("v", DataTypes.VariantType, false)
            .add("s", new StructType().add("w", DataTypes.VariantType))
            .add("l", DataTypes.createArrayType(DataTypes.VariantType, true));

    assertThat(SparkSchemas.toSpark(iceberg)).isEqualTo(spark);
    assertThat(SparkSchemas.toIceberg(spark).asStruct()).isEqualTo(iceberg.asStruct());
    assertThat(SparkSchemas.toIceberg(DataTypes.VariantType)).isEqualTo(Types.VariantType.get());
  }

  @Test
  void icebergNullabilityBecomesSparkNullability() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "req", Types.IntegerType.get()),
            Types.NestedField.optional(2, "opt", Types.IntegerType.get()),
            Types.NestedField.optional(
                3, "req_elements", Types.ListType.ofRequired(6, Types.StringType.get())),
            Types.NestedField.optional(
                4, "opt_elements", Types.ListType.ofOptional(7, Types.StringType.get())),
            Types.NestedField.optional(
                5,
                "req_values",
                Types.MapType.ofRequired(8, 9, Types.StringType.get(), Types.LongType.get())));

    StructType expected =
        new StructType()
            .add("req", DataTypes.IntegerType, false)
            .add("opt", DataTypes.IntegerType, true)
            .add("req_elements", DataTypes.createArrayType(DataTypes.StringType, false), true)
            .add("opt_elements", DataTypes.createArrayType(DataTypes.StringType, true), true)
            .add(
                "req_values",
                DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType, false),
                true);
    assertThat(SparkSchemas.toSpark(schema)).isEqualTo(expected);
  }

  @Test
  void icebergDocsBecomeSparkCommentsAndBack() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "point",
                Types.StructType.of(
                    Types.NestedField.required(2, "x", Types.DoubleType.get(), "east"),
                    Types.NestedField.required(3, "y", Types.DoubleType.get())),
                "a location"));

    StructType spark = SparkSchemas.toSpark(schema);

    StructField point = spark.fields()[0];
    assertThat(point.getComment().get()).isEqualTo("a location");
    StructType pointType = (StructType) point.dataType();
    assertThat(pointType.fields()[0].getComment().get()).isEqualTo("east");
    assertThat(pointType.fields()[1].getComment().isDefined()).isFalse();
    assertThat(SparkSchemas.toIceberg(spark).asStruct()).isEqualTo(schema.asStruct());
  }

  @Test
  void everyTypeNestedInStructListAndMapSurvivesARoundTripThroughSpark() {
    Schema schema = TestData.allTypes();

    Schema roundTrip = SparkSchemas.toIceberg(SparkSchemas.toSpark(schema));

    // UUID and fixed have no Spark type of their own; they come back as string and binary.
    Schema expected =
        TypeUtil.assignIncreasingFreshIds(
            new Schema(withoutUuidAndFixed(schema.asStruct()).fields()));
    assertThat(roundTrip.asStruct()).isEqualTo(expected.asStruct());
  }

  @Test
  void everySparkTypeIcebergStoresSurvivesARoundTripThroughIceberg() {
    StructType spark =
        (StructType) SparkSchemas.toSpark(withoutUuidAndFixed(TestData.allTypes().asStruct()));

    assertThat(SparkSchemas.toSpark(SparkSchemas.toIceberg(spark))).isEqualTo(spark);
  }

  @Test
  void sparkTypesWithoutTheirOwnIcebergTypeMapToTheNearestOne() {
    StructType spark =
        new StructType()
            .add("byte", DataTypes.ByteType)
            .add("short", DataTypes.ShortType)
            .add("char", DataTypes.createCharType(3))
            .add("varchar", DataTypes.createVarcharType(10))
            .add("ts", DataTypes.TimestampType)
            .add("ts_ntz", DataTypes.TimestampNTZType);

    Schema schema = SparkSchemas.toIceberg(spark);

    assertThat(schema.asStruct())
        .isEqualTo(
            Types.StructType.of(
                Types.NestedField.optional(1, "byte", Types.IntegerType.get()),
                Types.NestedField.optional(2, "short", Types.IntegerType.get()),
                Types.NestedField.optional(3, "char", Types.StringType.get()),
                Types.NestedField.optional(4, "varchar", Types.StringType.get()),
                Types.NestedField.optional(5, "ts", Types.TimestampType.withZone()),
                Types.NestedField.optional(6, "ts_ntz", Types.TimestampType.withoutZone())));
  }

  @Test
  void sparkToIcebergAssignsConsecutiveIdsTopLevelFieldsFirst() {
    StructType spark =
        new StructType()
            .add("a", DataTypes.IntegerType, false)
            .add(
                "b",
                new StructType().add("c", DataTypes.IntegerType).add("d", DataTypes.StringType))
            .add("e", DataTypes.createArrayType(DataTypes.LongType, false))
            .add("f", DataTypes.createMapType(DataTypes.StringType, DataTypes.DateType, false));

    Schema schema = SparkSchemas.toIceberg(spark);

    Schema expected =
        new Schema(
            Types.NestedField.required(1, "a", Types.IntegerType.get()),
            Types.NestedField.optional(
                2,
                "b",
                Types.StructType.of(
                    Types.NestedField.optional(5, "c", Types.IntegerType.get()),
                    Types.NestedField.optional(6, "d", Types.StringType.get()))),
            Types.NestedField.optional(3, "e", Types.ListType.ofRequired(7, Types.LongType.get())),
            Types.NestedField.optional(
                4,
                "f",
                Types.MapType.ofRequired(8, 9, Types.StringType.get(), Types.DateType.get())));
    assertThat(schema.asStruct()).isEqualTo(expected.asStruct());
    assertThat(schema.highestFieldId()).isEqualTo(9);
  }

  @Test
  void sparkTypeConversionAssignsNestedIdsFromOne() {
    DataType spark =
        DataTypes.createArrayType(new StructType().add("x", DataTypes.IntegerType, false), true);

    assertThat(SparkSchemas.toIceberg(spark))
        .isEqualTo(
            Types.ListType.ofOptional(
                1,
                Types.StructType.of(
                    Types.NestedField.required(2, "x", Types.IntegerType.get()))));
  }

  static Stream<Arguments> unsupportedIcebergTypes() {
    return Stream.of(
        Arguments.of(Types.TimeType.get(), "time"),
        Arguments.of(Types.GeometryType.crs84(), "geometry"));
  }

  @ParameterizedTest
  @MethodSource("unsupportedIcebergTypes")
  void icebergTypesSparkCannotRepresentAreRejectedWithTheColumnPath(Type type, String name) {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1, "a", Types.StructType.of(Types.NestedField.optional(2, "b", type))));

    assertThatThrownBy(() -> SparkSchemas.toSpark(schema))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot convert column 'a.b' of type " + name + " to a Spark type: unsupported type");
    assertThatThrownBy(() -> SparkSchemas.toSpark(type))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot convert type " + name + " to a Spark type: unsupported type");
  }

  static Stream<Arguments> unsupportedSparkTypes() {
    return Stream.of(
        Arguments.of(DataTypes.CalendarIntervalType, "interval"),
        Arguments.of(DataTypes.createDayTimeIntervalType(), "interval day to second"),
        Arguments.of(DataTypes.createYearMonthIntervalType(), "interval year to month"),
        Arguments.of(DataTypes.NullType, "void"),
        Arguments.of(TimeType.apply(6), "time(6)"),
        Arguments.of(new ObjectType(String.class), "java.lang.String"),
        Arguments.of(DataTypes.createGeometryType(4326), "geometry(4326)"),
        Arguments.of(new PointUdt(), "pointudt"));
  }

  @ParameterizedTest
  @MethodSource("unsupportedSparkTypes")
  void sparkTypesIcebergCannotStoreAreRejectedWithTheColumnPath(DataType type, String name) {
    StructType struct = new StructType().add("a", new StructType().add("b", type));

    assertThatThrownBy(() -> SparkSchemas.toIceberg(struct))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot convert column 'a.b' of type "
                + name
                + " to an Iceberg type: unsupported type");
  }

  @Test
  void unsupportedSparkTypesInListsAndMapsAreNamedByElementKeyAndValue() {
    DataType interval = DataTypes.createDayTimeIntervalType();

    assertThatThrownBy(
            () ->
                SparkSchemas.toIceberg(
                    new StructType().add("l", DataTypes.createArrayType(interval))))
        .hasMessage(
            "Cannot convert column 'l.element' of type interval day to second "
                + "to an Iceberg type: unsupported type");
    assertThatThrownBy(
            () ->
                SparkSchemas.toIceberg(
                    new StructType()
                        .add("m", DataTypes.createMapType(interval, DataTypes.IntegerType))))
        .hasMessage(
            "Cannot convert column 'm.key' of type interval day to second "
                + "to an Iceberg type: unsupported type");
    assertThatThrownBy(
            () ->
                SparkSchemas.toIceberg(
                    new StructType()
                        .add("m", DataTypes.createMapType(DataTypes.StringType, interval))))
        .hasMessage(
            "Cannot convert column 'm.value' of type interval day to second "
                + "to an Iceberg type: unsupported type");
    assertThatThrownBy(() -> SparkSchemas.toIceberg(interval))
        .hasMessage(
            "Cannot convert type interval day to second to an Iceberg type: unsupported type");
  }

  @Test
  void collatedSparkStringsAreRejectedBecauseIcebergComparesBytes() {
    StructType struct = new StructType().add("name", StringType.apply("UTF8_LCASE"));

    assertThatThrownBy(() -> SparkSchemas.toIceberg(struct))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot convert column 'name' of type string collate UTF8_LCASE "
                + "to an Iceberg type: unsupported collation UTF8_LCASE");
  }

  @Test
  void pruneKeepsRequestedTopLevelColumnsWithTheirIdsInRequestedOrder() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get(), "the key"),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()));
    StructType requested =
        new StructType().add("ts", DataTypes.TimestampType).add("id", DataTypes.LongType, false);

    Schema pruned = SparkSchemas.prune(schema, requested, true);

    assertThat(pruned.asStruct())
        .isEqualTo(
            Types.StructType.of(
                Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
                Types.NestedField.required(1, "id", Types.LongType.get(), "the key")));
  }

  @Test
  void pruneKeepsOnlyRequestedFieldsOfNestedStructs() {
    Schema schema = TestData.allTypes();
    StructType requested =
        new StructType()
            .add("st", new StructType().add("s", DataTypes.StringType).add("b", DataTypes.BooleanType))
            .add(
                "st_st",
                new StructType()
                    .add(
                        "inner",
                        new StructType()
                            .add("tags", DataTypes.createArrayType(DataTypes.StringType))));

    Schema pruned = SparkSchemas.prune(schema, requested, true);

    Types.NestedField st = schema.findField("st");
    Types.NestedField stStt = schema.findField("st_st");
    Types.NestedField inner = schema.findField("st_st.inner");
    Schema expected =
        new Schema(
            Types.NestedField.optional(
                st.fieldId(),
                "st",
                Types.StructType.of(schema.findField("st.s"), schema.findField("st.b")),
                "a struct"),
            Types.NestedField.optional(
                stStt.fieldId(),
                "st_st",
                Types.StructType.of(
                    Types.NestedField.optional(
                        inner.fieldId(),
                        "inner",
                        Types.StructType.of(schema.findField("st_st.inner.tags"))))));
    assertThat(pruned.asStruct()).isEqualTo(expected.asStruct());
  }

  @Test
  void prunePrunesTheElementStructOfListsAndTheValueStructOfMaps() {
    Schema schema = TestData.allTypes();
    StructType requested =
        new StructType()
            .add(
                "list_st",
                DataTypes.createArrayType(new StructType().add("date", DataTypes.DateType)))
            .add(
                "map_st",
                DataTypes.createMapType(
                    DataTypes.StringType,
                    new StructType().add("dec", DataTypes.createDecimalType(9, 2))));

    Schema pruned = SparkSchemas.prune(schema, requested, true);

    Types.ListType list = schema.findField("list_st").type().asListType();
    Types.MapType map = schema.findField("map_st").type().asMapType();
    Schema expected =
        new Schema(
            Types.NestedField.optional(
                schema.findField("list_st").fieldId(),
                "list_st",
                Types.ListType.ofOptional(
                    list.elementId(),
                    Types.StructType.of(schema.findField("list_st.element.date")))),
            Types.NestedField.optional(
                schema.findField("map_st").fieldId(),
                "map_st",
                Types.MapType.ofOptional(
                    map.keyId(),
                    map.valueId(),
                    Types.StringType.get(),
                    Types.StructType.of(schema.findField("map_st.value.dec")))));
    assertThat(pruned.asStruct()).isEqualTo(expected.asStruct());
  }

  @Test
  void pruneOfTheWholeSparkSchemaGivesBackTheTableSchema() {
    Schema schema = TestData.allTypes();

    Schema pruned = SparkSchemas.prune(schema, SparkSchemas.toSpark(schema), true);

    assertThat(pruned.asStruct()).isEqualTo(schema.asStruct());
  }

  @Test
  void pruneMatchesNamesIgnoringCaseOnlyWhenAsked() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(
                1,
                "Point",
                Types.StructType.of(Types.NestedField.optional(2, "X", Types.DoubleType.get()))));
    StructType requested =
        new StructType().add("point", new StructType().add("x", DataTypes.DoubleType));

    assertThat(SparkSchemas.prune(schema, requested, false).asStruct())
        .isEqualTo(schema.asStruct());
    assertThatThrownBy(() -> SparkSchemas.prune(schema, requested, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot select column 'point': not found in the table schema");
  }

  @Test
  void pruneRejectsANameThatMatchesTwoColumnsIgnoringCase() {
    Schema schema =
        new Schema(
            Types.NestedField.optional(1, "Name", Types.StringType.get()),
            Types.NestedField.optional(2, "NAME", Types.StringType.get()));
    StructType requested = new StructType().add("name", DataTypes.StringType);

    assertThatThrownBy(() -> SparkSchemas.prune(schema, requested, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot select column 'name': ambiguous, matches both 'Name' and 'NAME'");
  }

  @Test
  void pruneLeavesMetadataColumnsToTheCaller() {
    Schema schema = new Schema(Types.NestedField.optional(1, "data", Types.StringType.get()));
    StructType requested =
        new StructType()
            .add("_file", DataTypes.StringType)
            .add("data", DataTypes.StringType)
            .add("_pos", DataTypes.LongType)
            .add("_spec_id", DataTypes.IntegerType)
            .add("_partition", new StructType())
            .add("_deleted", DataTypes.BooleanType);

    assertThat(SparkSchemas.prune(schema, requested, true).asStruct())
        .isEqualTo(schema.asStruct());
  }

  @Test
  void pruneRejectsAnUnknownNestedColumnNamingItsPath() {
    Schema schema = TestData.allTypes();
    StructType requested =
        new StructType()
            .add("list_st", DataTypes.createArrayType(new StructType().add("nope", DataTypes.IntegerType)));

    assertThatThrownBy(() -> SparkSchemas.prune(schema, requested, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot select column 'list_st.element.nope': not found in the table schema");
  }

  @Test
  void pruneRejectsARequestWhoseShapeDiffersFromTheTable() {
    Schema schema = new Schema(Types.NestedField.optional(1, "a", Types.IntegerType.get()));
    StructType requested = new StructType().add("a", new StructType().add("b", DataTypes.IntegerType));

    assertThatThrownBy(() -> SparkSchemas.prune(schema, requested, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot select column 'a': requested struct<b:int> but the table column is int");
  }

  /** The same struct with uuid replaced by string and fixed by binary, as Spark sees them. */
  private static Types.StructType withoutUuidAndFixed(Types.StructType struct) {
    return (Types.StructType) replaceUuidAndFixed(struct);
  }

  private static Type replaceUuidAndFixed(Type type) {
    switch (type.typeId()) {
      case UUID:
        return Types.StringType.get();
      case FIXED:
        return Types.BinaryType.get();
      case STRUCT:
        List<Types.NestedField> fields =
            type.asStructType().fields().stream()
                .map(
                    field ->
                        Types.NestedField.from(field)
                            .ofType(replaceUuidAndFixed(field.type()))
                            .build())
                .toList();
        return Types.StructType.of(fields);
      case LIST:
        Types.ListType list = type.asListType();
        return list.isElementOptional()
            ? Types.ListType.ofOptional(list.elementId(), replaceUuidAndFixed(list.elementType()))
            : Types.ListType.ofRequired(list.elementId(), replaceUuidAndFixed(list.elementType()));
      case MAP:
        Types.MapType map = type.asMapType();
        Type key = replaceUuidAndFixed(map.keyType());
        Type value = replaceUuidAndFixed(map.valueType());
        return map.isValueOptional()
            ? Types.MapType.ofOptional(map.keyId(), map.valueId(), key, value)
            : Types.MapType.ofRequired(map.keyId(), map.valueId(), key, value);
      default:
        return type;
    }
  }

  /** A user-defined type, which Iceberg cannot store even though its SQL type is storable. */
  static final class PointUdt extends UserDefinedType<double[]> {
    @Override
    public DataType sqlType() {
      return DataTypes.createArrayType(DataTypes.DoubleType, false);
    }

    @Override
    public Object serialize(double[] point) {
      return new GenericArrayData(point);
    }

    @Override
    public double[] deserialize(Object datum) {
      return ((GenericArrayData) datum).toDoubleArray();
    }

    @Override
    public Class<double[]> userClass() {
      return double[].class;
    }
  }
}
