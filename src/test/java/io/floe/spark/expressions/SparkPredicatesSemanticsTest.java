package io.floe.spark.expressions;

import static io.floe.spark.expressions.V2.and;
import static io.floe.spark.expressions.V2.not;
import static io.floe.spark.expressions.V2.or;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.StrictMetricsEvaluator;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checks the converted expressions against a reference implementation of Spark's semantics on rows
 * full of edge values: Iceberg's row evaluator must select exactly Spark's rows (a superset where
 * an AND side was dropped), the inclusive metrics evaluator must keep every file holding a selected
 * row, and the strict metrics evaluator must not claim that all rows of a file match when one does
 * not.
 */
class SparkPredicatesSemanticsTest {

  private static final int MAX_REPORTED = 25;

  private static List<Record> rows;
  private static List<StructLike> internalRows;
  private static List<DataFile> files;
  private static List<int[]> rowsOfFiles;

  @BeforeAll
  static void createRowsAndFiles() {
    rows = SampleTable.rows();
    internalRows = rows.stream().map(SampleTable::internal).toList();
    files = new ArrayList<>();
    rowsOfFiles = new ArrayList<>();
    for (int k = 0; k < rows.size(); k += 1) {
      addFile(new int[] {k});
    }
    for (int start = 0; start + 4 <= rows.size(); start += 4) {
      addFile(IntStream.range(start, start + 4).toArray());
    }
    addFile(IntStream.range(0, rows.size()).toArray());
  }

  private static void addFile(int[] members) {
    List<Record> fileRows = IntStream.of(members).mapToObj(rows::get).toList();
    files.add(SampleTable.file("file-" + files.size() + ".parquet", fileRows));
    rowsOfFiles.add(members);
  }

  @Test
  void comparisonsInListsNullTestsAndPrefixesSelectExactlySparksRows() {
    assertExact(PredicateCases.convertibleLeaves());
  }

  @Test
  void negationsSelectExactlyTheRowsWhereSparksPredicateIsFalse() {
    List<Predicate> negations = new ArrayList<>();
    for (Predicate leaf : PredicateCases.convertibleLeaves()) {
      negations.add(not(leaf));
      negations.add(not(not(leaf)));
    }
    assertExact(negations);
  }

  @Test
  void combinationsWithAndOrAndNotSelectExactlySparksRows() {
    assertExact(combinations(new Random(7), 600));
  }

  @Test
  void andWithAnUnconvertibleSideSelectsASupersetOfSparksRows() {
    List<String> failures = new ArrayList<>();
    for (Predicate weakened : weakenedPredicates()) {
      assertThat(SparkPredicates.convertExact(weakened, SampleTable.SCHEMA, true))
          .as("exact conversion of %s", V2.describe(weakened))
          .isEmpty();
      Optional<Expression> converted = SparkPredicates.convert(weakened, SampleTable.SCHEMA, true);
      assertThat(converted).as("conversion of %s", V2.describe(weakened)).isPresent();
      Evaluator evaluator = new Evaluator(SampleTable.SCHEMA.asStruct(), converted.get(), true);
      for (int k = 0; k < rows.size(); k += 1) {
        if (SparkSemantics.selects(weakened, rows.get(k)) && !evaluator.eval(internalRows.get(k))) {
          failures.add(
              V2.describe(weakened) + " -> " + converted.get() + " drops row " + rows.get(k));
        }
      }
    }
    assertNone(failures);
  }

  @Test
  void unconvertibleSideUnderNotOrOrLeavesThePredicateUnconverted() {
    Predicate convertible = PredicateCases.convertibleLeaves().get(0);
    for (Predicate unconvertible : PredicateCases.unconvertibleLeaves()) {
      for (Predicate predicate :
          List.of(
              unconvertible,
              not(unconvertible),
              not(and(convertible, unconvertible)),
              not(and(unconvertible, convertible)),
              or(convertible, unconvertible),
              or(unconvertible, convertible),
              not(or(convertible, unconvertible)),
              not(not(and(convertible, unconvertible))))) {
        assertThat(SparkPredicates.convert(predicate, SampleTable.SCHEMA, true))
            .as("conversion of %s", V2.describe(predicate))
            .isEmpty();
        assertThat(SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true))
            .as("exact conversion of %s", V2.describe(predicate))
            .isEmpty();
      }
      // an AND outside any NOT keeps the side that converts
      Predicate outerAnd = and(convertible, not(and(convertible, unconvertible)));
      assertThat(SparkPredicates.convert(outerAnd, SampleTable.SCHEMA, true).map(Object::toString))
          .contains(converted(convertible).toString());
      assertThat(SparkPredicates.convertExact(outerAnd, SampleTable.SCHEMA, true)).isEmpty();
    }
  }

  @Test
  void inclusiveMetricsNeverSkipAFileHoldingASelectedRow() {
    List<String> failures = new ArrayList<>();
    for (Predicate predicate : metricsPredicates()) {
      Optional<Expression> converted = SparkPredicates.convert(predicate, SampleTable.SCHEMA, true);
      if (converted.isEmpty()) {
        failures.add("not converted: " + V2.describe(predicate));
        continue;
      }
      boolean[] selected = sparkSelection(predicate);
      InclusiveMetricsEvaluator evaluator =
          new InclusiveMetricsEvaluator(SampleTable.SCHEMA, converted.get(), true);
      for (int f = 0; f < files.size(); f += 1) {
        if (IntStream.of(rowsOfFiles.get(f)).anyMatch(k -> selected[k])
            && !evaluator.eval(files.get(f))) {
          failures.add(V2.describe(predicate) + " -> " + converted.get() + " skips " + describe(f));
        }
      }
    }
    assertNone(failures);
  }

  @Test
  void strictMetricsNeverClaimThatEveryRowMatchesWhenOneDoesNot() {
    List<String> failures = new ArrayList<>();
    for (Predicate predicate : metricsPredicates()) {
      Optional<Expression> converted =
          SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true);
      if (converted.isEmpty()) {
        continue;
      }
      boolean[] selected = sparkSelection(predicate);
      StrictMetricsEvaluator evaluator =
          new StrictMetricsEvaluator(SampleTable.SCHEMA, converted.get(), true);
      for (int f = 0; f < files.size(); f += 1) {
        if (!IntStream.of(rowsOfFiles.get(f)).allMatch(k -> selected[k])
            && evaluator.eval(files.get(f))) {
          failures.add(
              V2.describe(predicate)
                  + " -> "
                  + converted.get()
                  + " claims all rows of "
                  + describe(f));
        }
      }
    }
    assertNone(failures);
  }

  private static void assertExact(List<Predicate> predicates) {
    List<String> failures = new ArrayList<>();
    for (Predicate predicate : predicates) {
      Optional<Expression> exact =
          SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true);
      if (exact.isEmpty()) {
        failures.add("not converted: " + V2.describe(predicate));
        continue;
      }
      Optional<Expression> converted = SparkPredicates.convert(predicate, SampleTable.SCHEMA, true);
      if (!converted.map(Object::toString).equals(exact.map(Object::toString))) {
        failures.add("convert and convertExact differ for " + V2.describe(predicate));
      }
      Evaluator evaluator = new Evaluator(SampleTable.SCHEMA.asStruct(), exact.get(), true);
      for (int k = 0; k < rows.size(); k += 1) {
        boolean spark = SparkSemantics.selects(predicate, rows.get(k));
        if (spark != evaluator.eval(internalRows.get(k))) {
          failures.add(
              predicate
                  + " -> "
                  + exact.get()
                  + ": Spark "
                  + (spark ? "keeps" : "drops")
                  + " "
                  + rows.get(k));
        }
      }
    }
    assertNone(failures);
  }

  private static void assertNone(List<String> failures) {
    assertThat(failures.subList(0, Math.min(MAX_REPORTED, failures.size())))
        .as("%d failures, first ones", failures.size())
        .isEmpty();
  }

  private static boolean[] sparkSelection(Predicate predicate) {
    boolean[] selected = new boolean[rows.size()];
    for (int k = 0; k < rows.size(); k += 1) {
      selected[k] = SparkSemantics.selects(predicate, rows.get(k));
    }
    return selected;
  }

  private static String describe(int file) {
    return files.get(file).location()
        + " with rows "
        + IntStream.of(rowsOfFiles.get(file)).limit(4).mapToObj(rows::get).toList();
  }

  private static Expression converted(Predicate predicate) {
    return SparkPredicates.convertExact(predicate, SampleTable.SCHEMA, true).orElseThrow();
  }

  /** Random AND and OR pairs of leaves, each also negated. */
  private static List<Predicate> combinations(Random random, int count) {
    List<Predicate> leaves = PredicateCases.convertibleLeaves();
    List<Predicate> combinations = new ArrayList<>();
    for (int k = 0; k < count; k += 1) {
      Predicate left = leaves.get(random.nextInt(leaves.size()));
      Predicate right = leaves.get(random.nextInt(leaves.size()));
      if (random.nextBoolean()) {
        left = not(left);
      }
      combinations.add(and(left, right));
      combinations.add(or(left, right));
      combinations.add(not(and(left, right)));
      combinations.add(not(or(left, right)));
    }
    return combinations;
  }

  /** Predicates whose conversion leaves out a side of an AND that is not under a NOT. */
  private static List<Predicate> weakenedPredicates() {
    Random random = new Random(11);
    List<Predicate> leaves = PredicateCases.convertibleLeaves();
    List<Predicate> weakened = new ArrayList<>();
    for (Predicate unconvertible : PredicateCases.unconvertibleLeaves()) {
      for (int k = 0; k < 40; k += 1) {
        Predicate leaf = leaves.get(random.nextInt(leaves.size()));
        Predicate other = leaves.get(random.nextInt(leaves.size()));
        weakened.add(and(leaf, unconvertible));
        weakened.add(and(unconvertible, not(leaf)));
        weakened.add(or(and(leaf, unconvertible), other));
        weakened.add(and(and(unconvertible, leaf), or(other, leaf)));
      }
    }
    return weakened;
  }

  private static List<Predicate> metricsPredicates() {
    List<Predicate> predicates = new ArrayList<>();
    for (Predicate leaf : PredicateCases.convertibleLeaves()) {
      predicates.add(leaf);
      predicates.add(not(leaf));
    }
    predicates.addAll(combinations(new Random(13), 150));
    predicates.addAll(weakenedPredicates());
    return predicates;
  }
}
