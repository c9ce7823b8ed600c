package io.floe.spark.expressions;

import static io.floe.spark.expressions.V2.and;
import static io.floe.spark.expressions.V2.bin;
import static io.floe.spark.expressions.V2.bool;
import static io.floe.spark.expressions.V2.cast;
import static io.floe.spark.expressions.V2.col;
import static io.floe.spark.expressions.V2.date;
import static io.floe.spark.expressions.V2.dec;
import static io.floe.spark.expressions.V2.doubleLit;
import static io.floe.spark.expressions.V2.floatLit;
import static io.floe.spark.expressions.V2.intLit;
import static io.floe.spark.expressions.V2.lit;
import static io.floe.spark.expressions.V2.longLit;
import static io.floe.spark.expressions.V2.not;
import static io.floe.spark.expressions.V2.nullOf;
import static io.floe.spark.expressions.V2.or;
import static io.floe.spark.expressions.V2.pred;
import static io.floe.spark.expressions.V2.str;
import static io.floe.spark.expressions.V2.timestamp;
import static io.floe.spark.expressions.V2.timestampNtz;
import static io.floe.spark.expressions.V2.upper;
import static org.apache.iceberg.expressions.Expressions.alwaysFalse;
import static org.apache.iceberg.expressions.Expressions.alwaysTrue;
import static org.apache.iceberg.expressions.Expressions.and;
import static org.apache.iceberg.expressions.Expressions.equal;
import static org.apache.iceberg.expressions.Expressions.greaterThan;
import static org.apache.iceberg.expressions.Expressions.greaterThanOrEqual;
import static org.apache.iceberg.expressions.Expressions.in;
import static org.apache.iceberg.expressions.Expressions.isNaN;
import static org.apache.iceberg.expressions.Expressions.isNull;
import static org.apache.iceberg.expressions.Expressions.lessThan;
import static org.apache.iceberg.expressions.Expressions.lessThanOrEqual;
import static org.apache.iceberg.expressions.Expressions.notEqual;
import static org.apache.iceberg.expressions.Expressions.notIn;
import static org.apache.iceberg.expressions.Expressions.notNaN;
import static org.apache.iceberg.expressions.Expressions.notNull;
import static org.apache.iceberg.expressions.Expressions.notStartsWith;
import static org.apache.iceberg.expressions.Expressions.or;
import static org.apache.iceberg.expressions.Expressions.startsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.spark.sql.connector.expressions.filter.AlwaysFalse;
import org.apache.spark.sql.connector.expressions.filter.AlwaysTrue;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

class SparkPredicatesTest {

  @Test
  void comparisonWithTheLiteralFirstFlipsTheOperator() {
    assertConverts(pred("=", intLit(5), col("i")), equal("i", 5));
    assertConverts(pred("<", intLit(5), col("i")), greaterThan("i", 5));
    assertConverts(pred(">=", intLit(5), col("i")), and(notNull("i"), lessThanOrEqual("i", 5)));
  }

  @Test
  void lessThanExcludesNullsThatIcebergsRowEvaluatorWouldAccept() {
    assertConverts(pred("<", col("i"), intLit(5)), and(notNull("i"), lessThan("i", 5)));
    assertConverts(pred("<=", col("i"), intLit(5)), and(notNull("i"), lessThanOrEqual("i", 5)));
    assertConverts(pred(">", col("i"), intLit(5)), greaterThan("i", 5));
  }

  @Test
  void requiredColumnNeedsNoNullGuard() {
    assertConverts(pred("<", col("req"), intLit(5)), lessThan("req", 5));
    assertConverts(not(pred("=", col("req"), intLit(5))), notEqual("req", 5));
    assertConverts(pred("IS_NULL", col("req")), alwaysFalse());
  }

  @Test
  void negatedEqualityExcludesNulls() {
    assertConverts(not(pred("=", col("i"), intLit(1))), and(notNull("i"), notEqual("i", 1)));
    assertConverts(pred("<>", col("i"), intLit(1)), and(notNull("i"), notEqual("i", 1)));
    assertConverts(not(pred("<>", col("i"), intLit(1))), equal("i", 1));
  }

  @Test
  void comparisonWithNullSelectsNothingEvenNegated() {
    for (String op : List.of("=", "<>", "<", "<=", ">", ">=")) {
      Predicate comparison = pred(op, col("i"), nullOf(DataTypes.IntegerType));
      assertConverts(comparison, alwaysFalse());
      assertConverts(not(comparison), alwaysFalse());
    }
  }

  @Test
  void nullSafeEqualityWithNullIsANullTest() {
    assertConverts(pred("<=>", col("i"), nullOf(DataTypes.IntegerType)), isNull("i"));
    assertConverts(not(pred("<=>", col("i"), nullOf(DataTypes.IntegerType))), notNull("i"));
    assertConverts(pred("<=>", col("i"), intLit(5)), equal("i", 5));
    assertConverts(
        not(pred("<=>", col("i"), intLit(5))),
        or(isNull("i"), and(notNull("i"), notEqual("i", 5))));
  }

  @Test
  void nullInAnInListNeverMatches() {
    Predicate withNull = inList(col("i"), intLit(1), nullOf(DataTypes.IntegerType), intLit(2));
    assertConverts(withNull, in("i", 1, 2));
    assertConverts(not(withNull), alwaysFalse());
    assertConverts(inList(col("i"), nullOf(DataTypes.IntegerType)), alwaysFalse());
    assertConverts(not(inList(col("i"), nullOf(DataTypes.IntegerType))), alwaysFalse());
    assertConverts(
        not(inList(col("i"), intLit(1), intLit(2))), and(notNull("i"), notIn("i", 1, 2)));
  }

  @Test
  void stringInListTestsForNullFirstBecauseIcebergsStringSetRejectsNull() {
    Predicate strings = inList(col("s"), str("a"), str("b"));
    assertConverts(strings, and(notNull("s"), in("s", "a", "b")));
    Record nullString = GenericRecord.create(SampleTable.SCHEMA);
    nullString.setField("req", 0);
    assertThat(
            new Evaluator(SampleTable.SCHEMA.asStruct(), converted(strings), true)
                .eval(SampleTable.internal(nullString)))
        .isFalse();
  }

  @Test
  void emptyInListConvertsOnlyWhereSparksSettingDoesNotMatter() {
    assertConverts(inList(col("i")), alwaysFalse());
    assertNotConverted(not(inList(col("i"))));
  }

  @Test
  void comparisonWithNaNUsesNaNTests() {
    assertConverts(pred("=", col("f"), floatLit(Float.NaN)), isNaN("f"));
    assertConverts(pred("<=>", col("f"), floatLit(Float.NaN)), isNaN("f"));
    assertConverts(pred("<", col("f"), floatLit(Float.NaN)), and(notNull("f"), notNaN("f")));
    assertConverts(pred("<=", col("f"), floatLit(Float.NaN)), notNull("f"));
    assertConverts(pred(">", col("f"), floatLit(Float.NaN)), alwaysFalse());
    assertConverts(pred(">=", col("f"), floatLit(Float.NaN)), isNaN("f"));
    assertConverts(pred(">", doubleLit(Double.NaN), col("d")), and(notNull("d"), notNaN("d")));
    assertNotConverted(pred(">", floatLit(Float.NaN), col("d")));
    assertConverts(not(pred("=", col("d"), doubleLit(Double.NaN))), and(notNull("d"), notNaN("d")));
  }

  @Test
  void greaterThanAlsoSelectsNaNBecauseSparkSortsItLast() {
    assertConverts(pred(">", col("f"), floatLit(1.0f)), or(greaterThan("f", 1.0f), isNaN("f")));
    assertConverts(
        pred(">=", col("d"), doubleLit(1.0)), or(greaterThanOrEqual("d", 1.0), isNaN("d")));
    assertConverts(pred("<", col("d"), doubleLit(1.0)), and(notNull("d"), lessThan("d", 1.0)));
    assertConverts(
        not(pred("<", col("d"), doubleLit(1.0))), or(greaterThanOrEqual("d", 1.0), isNaN("d")));
  }

  @Test
  void zeroMatchesBothSignedZeros() {
    assertConverts(pred("=", col("d"), doubleLit(0.0)), in("d", 0.0, -0.0));
    assertConverts(pred("=", col("f"), floatLit(-0.0f)), in("f", 0.0f, -0.0f));
    assertConverts(pred("<", col("d"), doubleLit(0.0)), and(notNull("d"), lessThan("d", -0.0)));
    assertConverts(
        pred("<=", col("d"), doubleLit(-0.0)), and(notNull("d"), lessThanOrEqual("d", 0.0)));
    assertConverts(pred(">", col("d"), doubleLit(-0.0)), or(greaterThan("d", 0.0), isNaN("d")));
    assertConverts(
        pred(">=", col("d"), doubleLit(0.0)), or(greaterThanOrEqual("d", -0.0), isNaN("d")));
    assertConverts(
        not(pred("=", col("d"), doubleLit(0.0))), and(notNull("d"), notIn("d", 0.0, -0.0)));
  }

  @Test
  void inListWithNaNTestsForNaN() {
    Predicate withNaN = inList(col("d"), doubleLit(Double.NaN), doubleLit(1.0));
    assertConverts(withNaN, or(isNaN("d"), in("d", 1.0)));
    assertConverts(not(withNaN), and(notNull("d"), and(notNaN("d"), notIn("d", 1.0))));
    assertConverts(inList(col("d"), doubleLit(0.0)), in("d", 0.0, -0.0));
  }

  @Test
  void floatColumnWidenedToDoubleIsNotConverted() {
    org.apache.spark.sql.connector.expressions.Expression widened =
        cast(col("f"), DataTypes.FloatType, DataTypes.DoubleType);
    assertNotConverted(pred(">", widened, doubleLit(0.1)));
    assertNotConverted(pred("=", widened, doubleLit(0.1)));
    assertNotConverted(inList(widened, doubleLit(0.1)));
    assertNotConverted(pred("=", col("f"), doubleLit(0.1)));
  }

  @Test
  void narrowingAndNonIntegralCastsAreNotConverted() {
    assertNotConverted(
        pred("=", cast(col("d"), DataTypes.DoubleType, DataTypes.IntegerType), intLit(1)));
    assertNotConverted(
        pred("=", cast(col("l"), DataTypes.LongType, DataTypes.IntegerType), intLit(1)));
    assertNotConverted(
        pred("=", cast(col("i"), DataTypes.IntegerType, DataTypes.StringType), str("1")));
    assertNotConverted(
        pred("=", cast(col("i"), DataTypes.IntegerType, DataTypes.DoubleType), doubleLit(1.0)));
    assertNotConverted(
        pred(
            "=",
            cast(col("dec"), DataTypes.createDecimalType(9, 2), DataTypes.createDecimalType(12, 3)),
            dec("1.500", 12, 3)));
    assertNotConverted(
        pred("=", cast(col("dt"), DataTypes.DateType, DataTypes.TimestampType), timestamp(0L)));
    assertNotConverted(pred("IS_NULL", cast(col("s"), DataTypes.StringType, DataTypes.LongType)));
  }

  @Test
  void intWidenedToBigintComparesWithTheLiteralNarrowed() {
    org.apache.spark.sql.connector.expressions.Expression widened =
        cast(col("i"), DataTypes.IntegerType, DataTypes.LongType);
    assertConverts(pred("=", widened, longLit(5L)), equal("i", 5));
    assertConverts(
        pred("<", widened, longLit(Integer.MIN_VALUE)),
        and(notNull("i"), lessThan("i", Integer.MIN_VALUE)));
    assertConverts(pred("=", widened, longLit(3_000_000_000L)), alwaysFalse());
    assertConverts(not(pred("=", widened, longLit(3_000_000_000L))), notNull("i"));
    assertConverts(pred("<", widened, longLit(3_000_000_000L)), notNull("i"));
    assertConverts(pred(">", widened, longLit(-3_000_000_000L)), notNull("i"));
    assertConverts(pred(">=", widened, longLit(Integer.MAX_VALUE + 1L)), alwaysFalse());
    assertConverts(inList(widened, longLit(Long.MAX_VALUE), longLit(7L)), in("i", 7));
    assertConverts(pred("IS_NULL", widened), isNull("i"));
    assertNotConverted(
        pred("=", cast(col("i"), DataTypes.ShortType, DataTypes.LongType), longLit(5L)));
  }

  @Test
  void startsWithKeepsWildcardsAndBackslashesAsPlainText() {
    assertConverts(pred("STARTS_WITH", col("s"), str("a%b_c\\d")), startsWith("s", "a%b_c\\d"));
    assertConverts(
        not(pred("STARTS_WITH", col("s"), str("%"))), and(notNull("s"), notStartsWith("s", "%")));
    assertConverts(pred("STARTS_WITH", col("s"), nullOf(DataTypes.StringType)), alwaysFalse());
    assertNotConverted(pred("STARTS_WITH", col("u"), str("0a")));
    assertNotConverted(pred("STARTS_WITH", col("bin"), bin(1)));
  }

  @Test
  void negatedAndWithAnUnknownPredicateIsNotConverted() {
    Predicate equals = pred("=", col("i"), intLit(1));
    assertNotConverted(not(and(equals, pred("LIKE", col("s"), str("%x")))));
    assertNotConverted(not(and(equals, pred("ENDS_WITH", col("s"), str("x")))));
  }

  @Test
  void negatedAndWithAFunctionIsNotConverted() {
    assertNotConverted(
        not(and(pred("=", col("i"), intLit(1)), pred("=", upper(col("s")), str("X")))));
  }

  @Test
  void andOutsideNotKeepsTheConvertibleSide() {
    Predicate predicate = and(pred("=", col("i"), intLit(1)), pred("=", upper(col("s")), str("X")));
    assertThat(SparkPredicates.convert(predicate, SampleTable.SCHEMA, true).map(Object::toString))
        .contains(equal("i", 1).toString());
    assertThat(SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true)).isEmpty();
  }

  @Test
  void orWithAnUnconvertibleSideIsNotConverted() {
    assertNotConverted(or(pred("=", col("i"), intLit(1)), pred("=", upper(col("s")), str("X"))));
  }

  @Test
  void decimalLiteralTakesTheColumnsScale() {
    assertConverts(pred("=", col("dec"), dec("1.5", 2, 1)), equal("dec", new BigDecimal("1.50")));
    assertConverts(pred("=", col("dec"), dec("1.550", 4, 3)), equal("dec", new BigDecimal("1.55")));
    assertConverts(inList(col("dec"), dec("2", 1, 0)), in("dec", new BigDecimal("2.00")));
    assertNotConverted(pred("=", col("dec"), dec("1.555", 4, 3)));
    assertNotConverted(pred("<", col("dec"), dec("12345678.90", 10, 2)));
    assertNotConverted(pred("=", col("dec"), intLit(1)));
  }

  @Test
  void timestampLiteralsMustMatchTheColumnsZoneHandling() {
    long micros = PredicateCases.micros(SampleTable.PRE_EPOCH);
    assertThat(micros).isNegative();
    assertConverts(pred("=", col("ts"), timestamp(micros)), equal("ts", micros));
    assertConverts(pred(">", col("ntz"), timestampNtz(micros)), greaterThan("ntz", micros));
    assertNotConverted(pred("=", col("ts"), timestampNtz(micros)));
    assertNotConverted(pred("=", col("ntz"), timestamp(micros)));
    assertNotConverted(pred("=", col("ts"), longLit(micros)));
  }

  @Test
  void dateLiteralIsDaysSinceEpoch() {
    LocalDate day = LocalDate.of(1969, 12, 31);
    assertConverts(pred("=", col("dt"), date(day)), equal("dt", -1));
    assertNotConverted(pred("=", col("dt"), intLit(-1)));
  }

  @Test
  void binaryAndFixedLiteralsBecomeBuffers() {
    assertConverts(
        pred("=", col("bin"), bin(1, 2)), equal("bin", ByteBuffer.wrap(new byte[] {1, 2})));
    assertConverts(
        pred("<", col("fx"), bin(0, 1)),
        and(notNull("fx"), lessThan("fx", ByteBuffer.wrap(new byte[] {0, 1}))));
    assertNotConverted(pred("=", col("fx"), bin(0, 1, 2)));
  }

  @Test
  void uuidConvertsOnlyForEqualityWithCanonicalText() {
    String text = SampleTable.UUID_A.toString();
    assertConverts(pred("=", col("u"), str(text)), equal("u", SampleTable.UUID_A));
    assertNotConverted(pred("=", col("u"), str(text.toUpperCase(java.util.Locale.ROOT))));
    assertNotConverted(pred("<", col("u"), str(text)));
  }

  @Test
  void booleanColumnAsPredicateTestsForTrue() {
    assertConverts(pred("BOOLEAN_EXPRESSION", col("b")), equal("b", true));
    assertConverts(pred("=", col("b"), new AlwaysTrue()), equal("b", true));
    assertConverts(not(pred("=", col("b"), bool(true))), and(notNull("b"), notEqual("b", true)));
  }

  @Test
  void constantsConvertAndNegate() {
    assertConverts(new AlwaysTrue(), alwaysTrue());
    assertConverts(new AlwaysFalse(), alwaysFalse());
    assertConverts(not(new AlwaysTrue()), alwaysFalse());
  }

  @Test
  void nestedFieldsResolveByPath() {
    assertConverts(pred("=", col("st.x"), intLit(1)), equal("st.x", 1));
    assertConverts(pred("IS_NOT_NULL", col("st")), notNull("st"));
    assertNotConverted(pred("=", col("st.y"), intLit(1)));
    assertNotConverted(pred("=", col("st"), intLit(1)));
  }

  @Test
  void columnNamesFollowTheCaseSensitivityFlag() {
    Predicate upperCase = pred("=", col("ST.X"), intLit(1));
    assertThat(SparkPredicates.convert(upperCase, SampleTable.SCHEMA, false).map(Object::toString))
        .contains(equal("st.x", 1).toString());
    assertThat(SparkPredicates.convert(upperCase, SampleTable.SCHEMA, true)).isEmpty();
  }

  @Test
  void unknownColumnsFunctionsAndColumnComparisonsAreNotConverted() {
    assertNotConverted(pred("=", col("missing"), intLit(1)));
    assertNotConverted(pred("=", col("i"), col("req")));
    assertNotConverted(pred("=", intLit(1), intLit(1)));
    assertNotConverted(pred("=", upper(col("s")), str("X")));
    assertNotConverted(pred("CONTAINS", col("s"), str("x")));
  }

  @Test
  void malformedPredicatesAreNotConvertedRatherThanThrown() {
    assertNotConverted(pred("=", col("i")));
    assertNotConverted(pred("AND", pred("=", col("i"), intLit(1))));
    assertNotConverted(pred("NOT", col("i")));
    assertNotConverted(pred("=", col("i"), lit("one", DataTypes.IntegerType)));
    assertNotConverted(pred("IN", intLit(1), col("i")));
  }

  @Test
  void nullArgumentsAreRejected() {
    assertThatThrownBy(() -> SparkPredicates.convert(null, SampleTable.SCHEMA, true))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("predicate is null");
    assertThatThrownBy(() -> SparkPredicates.convertExact(new AlwaysTrue(), null, true))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("schema is null");
  }

  @Test
  void fileWithNaNAndSmallValuesIsKeptForGreaterThan() {
    DataFile file = floatFile(Float.NaN, 0.5f);
    assertThat(keeps(pred(">", col("f"), floatLit(1.0f)), file)).isTrue();
    assertThat(keeps(pred(">=", col("f"), floatLit(Float.NaN)), file)).isTrue();
    assertThat(keeps(pred("<", col("f"), floatLit(0.2f)), file)).isFalse();
    assertThat(keeps(pred("=", col("f"), floatLit(0.7f)), file)).isFalse();
  }

  @Test
  void fileWithOnlyNaNIsKeptWhereSparkSelectsNaN() {
    DataFile file = floatFile(Float.NaN, Float.NaN);
    assertThat(keeps(pred(">", col("f"), floatLit(Float.POSITIVE_INFINITY)), file)).isTrue();
    assertThat(keeps(pred("<=", col("f"), floatLit(Float.NaN)), file)).isTrue();
    assertThat(keeps(not(pred("=", col("f"), floatLit(1.0f))), file)).isTrue();
    assertThat(keeps(pred("<", col("f"), floatLit(1.0f)), file)).isFalse();
  }

  @Test
  void fileWithOnlyNegativeZeroIsKeptForEqualityWithZero() {
    DataFile file = floatFile(-0.0f, -0.0f);
    assertThat(keeps(pred("=", col("f"), floatLit(0.0f)), file)).isTrue();
    assertThat(keeps(pred(">=", col("f"), floatLit(0.0f)), file)).isTrue();
    assertThat(keeps(pred("<", col("f"), floatLit(0.0f)), file)).isFalse();
  }

  @Test
  void residualOfNullPartitionExcludesItFromLessThan() {
    PartitionSpec spec = PartitionSpec.builderFor(SampleTable.SCHEMA).identity("i").build();
    Record nullPartition = GenericRecord.create(spec.partitionType());
    Expression converted = converted(pred("<", col("i"), intLit(5)));
    assertThat(ResidualEvaluator.of(spec, converted, true).residualFor(nullPartition).toString())
        .isEqualTo(alwaysFalse().toString());
  }

  private static DataFile floatFile(float... values) {
    List<Record> rows =
        java.util.stream.IntStream.range(0, values.length)
            .mapToObj(
                k -> {
                  Record row = GenericRecord.create(SampleTable.SCHEMA);
                  row.setField("f", values[k]);
                  row.setField("req", 0);
                  return row;
                })
            .toList();
    return SampleTable.file("floats.parquet", rows);
  }

  private static boolean keeps(Predicate predicate, DataFile file) {
    return new InclusiveMetricsEvaluator(SampleTable.SCHEMA, converted(predicate), true).eval(file);
  }

  private static Expression converted(Predicate predicate) {
    return SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true).orElseThrow();
  }

  private static Predicate inList(
      org.apache.spark.sql.connector.expressions.Expression column,
      org.apache.spark.sql.connector.expressions.Expression... values) {
    org.apache.spark.sql.connector.expressions.Expression[] children =
        new org.apache.spark.sql.connector.expressions.Expression[values.length + 1];
    children[0] = column;
    System.arraycopy(values, 0, children, 1, values.length);
    return pred("IN", children);
  }

  private static void assertConverts(Predicate predicate, Expression expected) {
    assertThat(
            SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true).map(Object::toString))
        .as("exact conversion of %s", V2.describe(predicate))
        .contains(expected.toString());
    assertThat(SparkPredicates.convert(predicate, SampleTable.SCHEMA, true).map(Object::toString))
        .as("conversion of %s", V2.describe(predicate))
        .contains(expected.toString());
  }

  private static void assertNotConverted(Predicate predicate) {
    assertThat(SparkPredicates.convert(predicate, SampleTable.SCHEMA, true))
        .as("conversion of %s", V2.describe(predicate))
        .isEmpty();
    assertThat(SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true))
        .as("exact conversion of %s", V2.describe(predicate))
        .isEmpty();
  }
}
