package io.floe.spark.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DistributionMode;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.distributions.ClusteredDistribution;
import org.apache.spark.sql.connector.distributions.OrderedDistribution;
import org.apache.spark.sql.connector.distributions.UnspecifiedDistribution;
import org.apache.spark.sql.connector.expressions.Expression;
import org.junit.jupiter.api.Test;

/**
 * The distribution and ordering a write asks Spark for, for each mode, spec and sort order, and how
 * the mode and advisory size are resolved from options and table properties.
 */
class WriteDistributionTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(3, "s", Types.StringType.get()),
          Types.NestedField.optional(4, "d", Types.DateType.get()),
          Types.NestedField.optional(5, "u", Types.UUIDType.get()),
          Types.NestedField.optional(
              6, "nested", Types.StructType.of(Types.NestedField.optional(7, "odd.name", Types.IntegerType.get()))));
  private static final PartitionSpec EVERY_TRANSFORM =
      PartitionSpec.builderFor(SCHEMA)
          .day("ts")
          .bucket("id", 16)
          .truncate("s", 3)
          .month("d")
          .identity("nested.odd.name")
          .build();
  private static final List<String> EVERY_TRANSFORM_IN_SPARK =
      List.of("days(ts)", "bucket(16, id)", "truncate(3, s)", "months(d)", "nested.`odd.name`");

  @Test
  void partitionedTablesAreHashDistributedByEveryTransformByDefault() {
    WriteDistribution distribution = distribution(EVERY_TRANSFORM, SortOrder.unsorted(), options(Map.of()));

    assertThat(distribution.mode()).isEqualTo(DistributionMode.HASH);
    assertThat(distribution.strictlyRequired()).isFalse();
    assertThat(distribution.distribution()).isInstanceOf(ClusteredDistribution.class);
    assertThat(describe(((ClusteredDistribution) distribution.distribution()).clustering()))
        .containsExactlyElementsOf(EVERY_TRANSFORM_IN_SPARK);
    // truncate's width comes first, as Iceberg's truncate(width, value) function takes it
    assertThat(((ClusteredDistribution) distribution.distribution()).clustering()[2].children()[0].describe())
        .isEqualTo("3");
    // each task holds whole table partitions: the fanout writer, and no sort
    assertThat(distribution.fanout()).isTrue();
    assertThat(distribution.ordering()).isEmpty();
  }

  @Test
  void theClusteredWriterAskedForGetsThePartitionOrdering() {
    WriteDistribution distribution =
        distribution(EVERY_TRANSFORM, SortOrder.unsorted(), options(Map.of("fanout-enabled", "false")));

    assertThat(distribution.mode()).isEqualTo(DistributionMode.HASH);
    assertThat(distribution.fanout()).isFalse();
    assertThat(describe(distribution.ordering()))
        .containsExactlyElementsOf(EVERY_TRANSFORM_IN_SPARK.stream().map(e -> e + " ASC NULLS FIRST").toList());
  }

  @Test
  void rangeNoneAndSortOrdersKeepTheClusteredWriterAndTheSort() {
    PartitionSpec byDay = PartitionSpec.builderFor(SCHEMA).day("ts").build();
    for (String mode : List.of("range", "none")) {
      WriteDistribution distribution =
          distribution(byDay, SortOrder.unsorted(), options(Map.of("distribution-mode", mode)));
      assertThat(distribution.fanout()).as(mode).isFalse();
      assertThat(describe(distribution.ordering())).as(mode).containsExactly("days(ts) ASC NULLS FIRST");
    }
    SortOrder byId = SortOrder.builderFor(SCHEMA).asc("id").build();
    WriteDistribution sorted = distribution(byDay, byId, options(Map.of("distribution-mode", "hash")));
    assertThat(sorted.fanout()).isFalse();
    assertThat(sorted.sortsBySortOrder()).isTrue();
    assertThat(describe(sorted.ordering())).containsExactly("days(ts) ASC NULLS FIRST", "id ASC NULLS FIRST");
  }

  @Test
  void aHashDistributionMissingAPartitionFieldKeepsTheSort() {
    // without a function catalog only s is distributed by: a task may meet every day
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("s").day("ts").build();

    WriteDistribution distribution = distribution(spec, SortOrder.unsorted(), options(Map.of("path", "/somewhere")));

    assertThat(distribution.fanout()).isFalse();
    assertThat(describe(distribution.ordering())).containsExactly("s ASC NULLS FIRST");
  }

  @Test
  void theOpenFileBoundIsResolvedLikeEveryOption() {
    assertThat(options(Map.of()).fanoutMaxOpenFiles())
        .isEqualTo(io.floe.spark.write.exec.DataWriterSettings.DEFAULT_MAX_OPEN_FILES);
    assertThat(options(Map.of("fanout-max-open-files", "7")).fanoutMaxOpenFiles()).isEqualTo(7);
    assertThat(
            WriteOptions.resolve("db.t", Map.of(), null, Map.of("write.spark.fanout.max-open-files", "9"))
                .fanoutMaxOpenFiles())
        .isEqualTo(9);
    assertThat(options(Map.of()).fanout()).isNull();
    assertThat(options(Map.of("fanout-enabled", "false")).fanout()).isFalse();
    assertThatThrownBy(() -> options(Map.of("fanout-max-open-files", "-1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write to db.t: option 'fanout-max-open-files' must be positive, not -1");
  }

  @Test
  void theFanoutWriterNeedsNoOrdering() {
    WriteDistribution distribution =
        distribution(EVERY_TRANSFORM, SortOrder.unsorted(), options(Map.of("fanout-enabled", "true")));

    assertThat(distribution.distribution()).isInstanceOf(ClusteredDistribution.class);
    assertThat(distribution.ordering()).isEmpty();
  }

  @Test
  void withoutDistributionTheClusteredWriterStillGetsThePartitionOrdering() {
    WriteDistribution distribution =
        distribution(
            EVERY_TRANSFORM,
            SortOrder.unsorted(),
            options(Map.of("distribution-mode", "none", "advisory-partition-size", "1000")));

    assertThat(distribution.mode()).isEqualTo(DistributionMode.NONE);
    assertThat(distribution.distribution()).isInstanceOf(UnspecifiedDistribution.class);
    assertThat(describe(distribution.ordering())).hasSize(5).startsWith("days(ts) ASC NULLS FIRST");
    // Spark rejects an advisory size without a distribution
    assertThat(distribution.advisoryPartitionSizeBytes()).isZero();
  }

  @Test
  void sortedTablesAreRangeDistributedByPartitionThenSortOrder() {
    SortOrder order = SortOrder.builderFor(SCHEMA).desc("id", org.apache.iceberg.NullOrder.NULLS_LAST).asc("s").build();
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).day("ts").build();

    WriteDistribution distribution = distribution(spec, order, options(Map.of("advisory-partition-size", "4096")));

    assertThat(distribution.mode()).isEqualTo(DistributionMode.RANGE);
    assertThat(distribution.strictlyRequired()).isTrue();
    assertThat(distribution.distribution()).isInstanceOf(OrderedDistribution.class);
    List<String> expected = List.of("days(ts) ASC NULLS FIRST", "id DESC NULLS LAST", "s ASC NULLS FIRST");
    assertThat(describe(((OrderedDistribution) distribution.distribution()).ordering())).isEqualTo(expected);
    assertThat(describe(distribution.ordering())).isEqualTo(expected);
    assertThat(distribution.advisoryPartitionSizeBytes()).isEqualTo(4096L);
    assertThat(distribution.toString())
        .isEqualTo("WriteDistribution{mode=range, distribution=ordered[days(ts) ASC NULLS FIRST, id DESC NULLS LAST, "
            + "s ASC NULLS FIRST], ordering=[days(ts) ASC NULLS FIRST, id DESC NULLS LAST, s ASC NULLS FIRST], "
            + "advisoryPartitionSizeBytes=4096, sortsBySortOrder}");
    assertThat(distribution.sortsBySortOrder()).isTrue();
  }

  @Test
  void hashModeOnASortedTableClustersByPartitionAndSortsBySortOrder() {
    SortOrder order = SortOrder.builderFor(SCHEMA).asc("id").build();
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("s").build();

    WriteDistribution distribution =
        distribution(spec, order, options(Map.of("distribution-mode", "hash", "fanout-enabled", "true")));

    assertThat(describe(((ClusteredDistribution) distribution.distribution()).clustering())).containsExactly("s");
    assertThat(describe(distribution.ordering())).containsExactly("s ASC NULLS FIRST", "id ASC NULLS FIRST");
    // the fanout writer's files are not said to be sorted
    assertThat(distribution.sortsBySortOrder()).isFalse();
  }

  @Test
  void filesAreSaidToBeSortedOnlyWhenSparkSortsByTheWholeSortOrder() {
    SortOrder byId = SortOrder.builderFor(SCHEMA).asc("id").build();
    PartitionSpec byDay = PartitionSpec.builderFor(SCHEMA).day("ts").build();
    PartitionSpec byUuidBucket = PartitionSpec.builderFor(SCHEMA).bucket("u", 4).build();

    assertThat(distribution(byDay, byId, options(Map.of())).sortsBySortOrder()).isTrue();
    assertThat(distribution(byDay, byId, options(Map.of("distribution-mode", "none"))).sortsBySortOrder())
        .isTrue();
    assertThat(distribution(byDay, SortOrder.unsorted(), options(Map.of())).sortsBySortOrder()).isFalse();
    // Spark cannot compute a uuid's bucket, so the sort stops before the sort order
    assertThat(distribution(byUuidBucket, byId, options(Map.of())).sortsBySortOrder()).isFalse();
    // nor any non-identity transform without a function catalog
    assertThat(distribution(byDay, byId, options(Map.of("path", "/somewhere"))).sortsBySortOrder())
        .isFalse();
  }

  @Test
  void aSortOrderThatClustersByThePartitionIsNotRepeated() {
    SortOrder order = SortOrder.builderFor(SCHEMA).asc("ts").build();
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).day("ts").build();

    assertThat(describe(distribution(spec, order, options(Map.of())).ordering())).containsExactly("ts ASC NULLS FIRST");
  }

  @Test
  void unpartitionedUnsortedTablesAreNotDistributed() {
    WriteDistribution distribution =
        distribution(PartitionSpec.unpartitioned(), SortOrder.unsorted(), options(Map.of("advisory-partition-size", "10")));

    assertThat(distribution.mode()).isEqualTo(DistributionMode.NONE);
    assertThat(distribution.distribution()).isInstanceOf(UnspecifiedDistribution.class);
    assertThat(distribution.ordering()).isEmpty();
    assertThat(distribution.advisoryPartitionSizeBytes()).isZero();
    for (String mode : List.of("hash", "range")) {
      WriteDistribution asked =
          distribution(PartitionSpec.unpartitioned(), SortOrder.unsorted(), options(Map.of("distribution-mode", mode)));
      assertThat(asked.distribution()).isInstanceOf(UnspecifiedDistribution.class);
    }
  }

  @Test
  void transformsSparkCannotComputeAreLeftOut() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("u", 4).identity("s").alwaysNull("id").build();

    WriteDistribution distribution = distribution(spec, SortOrder.unsorted(), options(Map.of()));

    // a uuid's bucket is not its string's; void fields need no clustering
    assertThat(describe(((ClusteredDistribution) distribution.distribution()).clustering())).containsExactly("s");
    assertThat(distribution.ordering()).isEmpty();
  }

  @Test
  void pathBasedWritesUseOnlyIdentityColumns() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("s").day("ts").build();

    WriteDistribution distribution = distribution(spec, SortOrder.unsorted(), options(Map.of("path", "/somewhere")));

    assertThat(describe(((ClusteredDistribution) distribution.distribution()).clustering())).containsExactly("s");
    assertThat(describe(distribution.ordering())).containsExactly("s ASC NULLS FIRST");
  }

  @Test
  void writeOptionsWinOverTablePropertiesAndAreChecked() {
    Map<String, String> properties =
        Map.of("write.distribution-mode", "range", "write.spark.advisory-partition-size-bytes", "123");

    WriteOptions fromTable = WriteOptions.resolve("db.t", Map.of(), null, properties);
    assertThat(fromTable.distributionMode()).isEqualTo(DistributionMode.RANGE);
    assertThat(fromTable.advisoryPartitionSizeBytes()).isEqualTo(123L);
    assertThat(fromTable.pathBased()).isFalse();

    WriteOptions fromOptions =
        WriteOptions.resolve("db.t", Map.of("Distribution-Mode", "NONE", "advisory-partition-size", "456"), null, properties);
    assertThat(fromOptions.distributionMode()).isEqualTo(DistributionMode.NONE);
    assertThat(fromOptions.advisoryPartitionSizeBytes()).isEqualTo(456L);

    WriteOptions unset = WriteOptions.resolve("db.t", Map.of(), null, Map.of());
    assertThat(unset.distributionMode()).isNull();
    assertThat(unset.advisoryPartitionSizeBytes()).isZero();

    assertThatThrownBy(() -> WriteOptions.resolve("db.t", Map.of("distribution-mode", "random"), null, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write to db.t: option 'distribution-mode' must be none, hash or range, not 'random'");
    assertThatThrownBy(() -> WriteOptions.resolve("db.t", Map.of("advisory-partition-size", "0"), null, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot write to db.t: option 'advisory-partition-size' must be positive, not '0'");
  }

  private static WriteOptions options(Map<String, String> options) {
    return WriteOptions.resolve("db.t", options, null, Map.of());
  }

  private static WriteDistribution distribution(PartitionSpec spec, SortOrder order, WriteOptions options) {
    return WriteDistribution.of(SCHEMA, spec, order, options);
  }

  private static List<String> describe(Expression[] expressions) {
    return Arrays.stream(expressions).map(Expression::describe).toList();
  }
}
