package io.floe.spark.differential;

import static org.apache.spark.sql.types.DataTypes.DoubleType;
import static org.apache.spark.sql.types.DataTypes.FloatType;
import static org.apache.spark.sql.types.DataTypes.IntegerType;
import static org.apache.spark.sql.types.DataTypes.StringType;
import static org.apache.spark.sql.types.DataTypes.createStructField;
import static org.apache.spark.sql.types.DataTypes.createStructType;

import io.floe.spark.SparkTestBase;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cases where filter pushdown is known to go wrong, each checked against the same query over
 * a Spark temporary view of the same rows, and against the rows Spark's semantics give (so that
 * the rows exercise the case). Tables are partitioned by row id, one file per row, so a filter
 * that wrongly prunes a file drops exactly the row it misjudged.
 *
 * <p>Most cases would return the right rows even if Floe pushed a filter that selects too much,
 * because Spark filters again after the scan; each case is therefore written so that the wrong
 * conversion (a cast left out, an escape lost, a NOT pushed over half an AND) selects too little.
 */
class NamedPredicateCasesTest extends SparkTestBase {
  private static final float NAN_F = Float.NaN;
  private static final double NAN = Double.NaN;

  private static ViewComparison floats;
  private static ViewComparison floatsByValue;
  private static ViewComparison strings;
  private static ViewComparison pairs;

  @BeforeAll
  static void createTables() {
    sql("CREATE NAMESPACE IF NOT EXISTS floe.named");
    var floatSchema =
        createStructType(List.of(
            createStructField("id", IntegerType, false),
            createStructField("a", FloatType, true),
            createStructField("d", DoubleType, true),
            createStructField("dd", DoubleType, true)));
    List<Row> floatRows =
        List.of(
            RowFactory.create(0, 0.1f, 0.1d, 1.0d),
            RowFactory.create(1, 0.2f, 1.0d, 1.5d),
            RowFactory.create(2, Math.nextDown(0.1f), 0.99d, 0.99d),
            RowFactory.create(3, -0.0f, -0.0d, 1.9999d),
            RowFactory.create(4, 0.0f, 0.0d, 2.0d),
            RowFactory.create(5, NAN_F, NAN, -0.5d),
            RowFactory.create(6, null, null, null),
            RowFactory.create(7, 1.0f, 1.5d, -1.0d),
            RowFactory.create(8, Float.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, -1.5d),
            RowFactory.create(9, Math.nextUp(0.1f), 2.0d, 1.2d),
            RowFactory.create(10, -Float.MAX_VALUE, -1.0e300d, 0.0d));
    String floatColumns = "id INT NOT NULL, a FLOAT, d DOUBLE, dd DOUBLE";
    floats = ViewComparison.create(
        spark, "floe.named.floats", "named_floats", floatSchema, floatColumns, "id", floatRows);
    floatsByValue = ViewComparison.create(
        spark, "floe.named.floats_by_value", "named_floats_by_value", floatSchema, floatColumns,
        "a, d", floatRows);

    var stringSchema =
        createStructType(List.of(
            createStructField("id", IntegerType, false), createStructField("s", StringType, true)));
    strings = ViewComparison.create(
        spark, "floe.named.strings", "named_strings", stringSchema, "id INT NOT NULL, s STRING",
        "id",
        List.of(
            RowFactory.create(0, "star\\"), RowFactory.create(1, "star\\x"),
            RowFactory.create(2, "start"), RowFactory.create(3, "star"),
            RowFactory.create(4, "sta"), RowFactory.create(5, "a_c"),
            RowFactory.create(6, "abc"), RowFactory.create(7, "a%c"),
            RowFactory.create(8, "a%cd"), RowFactory.create(9, "a\\c"),
            RowFactory.create(10, "a_cd"), RowFactory.create(11, null),
            RowFactory.create(12, "ab"), RowFactory.create(13, "_"),
            RowFactory.create(14, "%"), RowFactory.create(15, "star\\\\")));

    var pairSchema =
        createStructType(List.of(
            createStructField("id", IntegerType, false),
            createStructField("a", IntegerType, true),
            createStructField("b", StringType, true)));
    pairs = ViewComparison.create(
        spark, "floe.named.pairs", "named_pairs", pairSchema, "id INT NOT NULL, a INT, b STRING",
        "id",
        List.of(
            RowFactory.create(0, 1, "x"), RowFactory.create(1, 1, "ax"),
            RowFactory.create(2, 1, "X"), RowFactory.create(3, 1, "xa"),
            RowFactory.create(4, 1, null), RowFactory.create(5, 2, "x"),
            RowFactory.create(6, null, "x"), RowFactory.create(7, null, "y"),
            RowFactory.create(8, 2, null), RowFactory.create(9, 1, "y")));
  }

  @AfterEach
  void restoreAnsi() {
    spark.conf().unset("spark.sql.ansi.enabled");
  }

  @Test
  void floatColumnAboveDoubleTenthKeepsTheFloatNearestTenth() {
    // (double) 0.1f is 0.10000000149..., above 0.1: leaving the cast out (a > 0.1f) drops row 0
    floats.assertSameRows("a > CAST(0.1 AS DOUBLE)", 0, 1, 5, 7, 8, 9);
    floats.assertSameRows("a >= CAST(0.1 AS DOUBLE)", 0, 1, 5, 7, 8, 9);
    floats.assertSameRows("CAST(0.1 AS DOUBLE) < a", 0, 1, 5, 7, 8, 9);
  }

  @Test
  void floatColumnEqualToDoubleTenthMatchesNoFloat() {
    floats.assertSameRows("a = CAST(0.1 AS DOUBLE)");
    // under NOT, a cast left out (a != 0.1f) would drop row 0
    floats.assertSameRows("NOT (a = CAST(0.1 AS DOUBLE))", 0, 1, 2, 3, 4, 5, 7, 8, 9, 10);
    floats.assertSameRows("a <> CAST(0.1 AS DOUBLE)", 0, 1, 2, 3, 4, 5, 7, 8, 9, 10);
    floats.assertSameRows("a <=> CAST(0.1 AS DOUBLE)");
  }

  @Test
  void castOfDoubleToIntKeepsEveryValueThatTruncatesToOne() {
    floats.assertSameRows("CAST(dd AS INT) = 1", 0, 1, 3, 9);
    floats.assertSameRows("CAST(dd AS INT) IN (1, 2)", 0, 1, 3, 4, 9);
    floats.assertSameRows("NOT (CAST(dd AS INT) = 0)", 0, 1, 3, 4, 7, 8, 9);
  }

  @Test
  void legacyCastOfNaNAndInfinityToIntMatchesSpark() {
    spark.conf().set("spark.sql.ansi.enabled", "false");
    floats.assertSameRows("CAST(d AS INT) = 1", 1, 7);
    floats.assertSameRows("CAST(d AS INT) = 0", 0, 2, 3, 4, 5);
    floats.assertSameRows("CAST(d AS INT) = 2147483647", 8);
  }

  @Test
  void likeWithEscapedUnderscoreOrPercentMatchesThemLiterally() {
    strings.assertSameRows("s LIKE 'a\\\\_c%'", 5, 10);
    strings.assertSameRows("s LIKE 'a\\\\%c%'", 7, 8);
    strings.assertSameRows("s LIKE 'a!_c%' ESCAPE '!'", 5, 10);
    strings.assertSameRows("s LIKE '\\\\_'", 13);
    strings.assertSameRows("s LIKE '\\\\%%'", 14);
    strings.assertSameRows("NOT (s LIKE 'a\\\\_c%')", 0, 1, 2, 3, 4, 6, 7, 8, 9, 12, 13, 14, 15);
  }

  @Test
  void likeWithUnescapedWildcardsMatchesAnyCharacter() {
    strings.assertSameRows("s LIKE 'a_c%'", 5, 6, 7, 8, 9, 10);
    strings.assertSameRows("s LIKE 'a%c'", 5, 6, 7, 9);
  }

  @Test
  void startsWithABackslashPrefixTakesTheBackslashLiterally() {
    strings.assertSameRows("startswith(s, 'star\\\\')", 0, 1, 15);
    strings.assertSameRows("s LIKE 'star\\\\\\\\%'", 0, 1, 15);
    strings.assertSameRows("s LIKE 'star\\\\\\\\\\\\\\\\%'", 15);
    strings.assertSameRows("NOT startswith(s, 'star\\\\')", 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14);
  }

  @Test
  void startsWithTakesLikeWildcardsLiterally() {
    strings.assertSameRows("startswith(s, 'a_')", 5, 10);
    strings.assertSameRows("startswith(s, 'a%')", 7, 8);
    strings.assertSameRows("startswith(s, '')", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15);
  }

  @Test
  void notOverAndWithAnUnconvertibleLikeKeepsRowsWhereEitherSideIsFalse() {
    // pushing NOT (a = 1) alone would drop rows 2, 3, 7 and 9
    pairs.assertSameRows("NOT (a = 1 AND b LIKE '%x')", 2, 3, 5, 7, 8, 9);
    pairs.assertSameRows("NOT (a = 1 AND b LIKE '%x') AND a IS NOT NULL", 2, 3, 5, 8, 9);
  }

  @Test
  void notOverAndWithAFunctionKeepsRowsWhereEitherSideIsFalse() {
    pairs.assertSameRows("NOT (a = 1 AND upper(b) = 'X')", 1, 3, 5, 7, 8, 9);
    pairs.assertSameRows("NOT (a = 2 OR upper(b) = 'X')", 1, 3, 9);
  }

  static Stream<String> floatTables() {
    return Stream.of("by row", "by value");
  }

  @ParameterizedTest(name = "partitioned {0}")
  @MethodSource("floatTables")
  void nanComparesAboveEveryNumberAndEqualToItself(String partitioning) {
    ViewComparison table = partitioning.equals("by row") ? floats : floatsByValue;
    table.assertSameRows("d = CAST('NaN' AS DOUBLE)", 5);
    table.assertSameRows("d <=> CAST('NaN' AS DOUBLE)", 5);
    table.assertSameRows("d > 1.0D", 5, 7, 8, 9);
    table.assertSameRows("d >= CAST('Infinity' AS DOUBLE)", 5, 8);
    table.assertSameRows("d < CAST('NaN' AS DOUBLE)", 0, 1, 2, 3, 4, 7, 8, 9, 10);
    table.assertSameRows("d >= CAST('NaN' AS DOUBLE)", 5);
    table.assertSameRows("d != CAST('NaN' AS DOUBLE)", 0, 1, 2, 3, 4, 7, 8, 9, 10);
    table.assertSameRows("a > CAST('NaN' AS FLOAT)");
    table.assertSameRows("NOT (a <= 1.0F)", 5, 8);
    table.assertSameRows("isnan(d) OR d IS NULL", 5, 6);
  }

  @ParameterizedTest(name = "partitioned {0}")
  @MethodSource("floatTables")
  void nanAndNullInInListsFollowSpark(String partitioning) {
    ViewComparison table = partitioning.equals("by row") ? floats : floatsByValue;
    table.assertSameRows("d IN (1.0D, CAST('NaN' AS DOUBLE))", 1, 5);
    table.assertSameRows("d IN (1.0D, NULL)", 1);
    table.assertSameRows("d NOT IN (1.0D, NULL)");
    table.assertSameRows("NOT (d IN (1.0D, NULL))");
    table.assertSameRows("d NOT IN (1.0D, CAST('NaN' AS DOUBLE))", 0, 2, 3, 4, 7, 8, 9, 10);
    table.assertSameRows("a IN (CAST('NaN' AS FLOAT), NULL)", 5);
    table.assertSameRows("a NOT IN (CAST('NaN' AS FLOAT), 1.0F)", 0, 1, 2, 3, 4, 8, 9, 10);
  }

  @ParameterizedTest(name = "partitioned {0}")
  @MethodSource("floatTables")
  void nullComparesToNothingButNullSafeEquality(String partitioning) {
    ViewComparison table = partitioning.equals("by row") ? floats : floatsByValue;
    table.assertSameRows("d = NULL");
    table.assertSameRows("NOT (d = NULL)");
    table.assertSameRows("d <=> NULL", 6);
    table.assertSameRows("NOT (d <=> NULL)", 0, 1, 2, 3, 4, 5, 7, 8, 9, 10);
    table.assertSameRows("d > 0.5D OR d IS NULL", 1, 2, 5, 6, 7, 8, 9);
  }

  @ParameterizedTest(name = "partitioned {0}")
  @MethodSource("floatTables")
  void negativeZeroEqualsZero(String partitioning) {
    ViewComparison table = partitioning.equals("by row") ? floats : floatsByValue;
    table.assertSameRows("d = CAST('-0.0' AS DOUBLE)", 3, 4);
    table.assertSameRows("d = 0.0D", 3, 4);
    table.assertSameRows("a = CAST('-0.0' AS FLOAT)", 3, 4);
    table.assertSameRows("d < 0.0D", 10);
    table.assertSameRows("d <= CAST('-0.0' AS DOUBLE)", 3, 4, 10);
    table.assertSameRows("a > CAST('-0.0' AS FLOAT)", 0, 1, 2, 5, 7, 8, 9);
    table.assertSameRows("d IN (0.0D)", 3, 4);
    table.assertSameRows("NOT (a = 0.0F)", 0, 1, 2, 5, 7, 8, 9, 10);
  }
}
