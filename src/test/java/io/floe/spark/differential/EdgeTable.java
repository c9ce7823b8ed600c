package io.floe.spark.differential;

import io.floe.spark.FloeCatalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdatePartitionSpec;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;

/**
 * The rows of {@link EdgeRows} stored twice: as a Floe table whose data files were written under
 * five partition specs (identity, bucket, truncate of strings and decimals, months, days, hours,
 * identity of a float, none) in many small files with column metrics and Parquet bloom filters,
 * and as a Spark temporary view over a DataFrame of the same rows that never goes through Floe.
 *
 * <p>Every fifth row goes to one spec. Each spec's rows are range-partitioned by a different column
 * and written without a required distribution, so each write task writes one small file per table
 * partition it sees and the files have narrow, overlapping column bounds: planning prunes by
 * partition values and by bounds, and the reader skips row groups.
 */
final class EdgeTable {
  private static final int LONG_WIDTH = 1000;
  private static final int DEC9_WIDTH = 100;
  /** The specs' changes, in order; the first is the spec the table is created with. */
  private static final List<Consumer<UpdatePartitionSpec>> SPEC_CHANGES =
      List.of(
          spec -> {},
          spec -> spec.removeField("b").removeField(Expressions.bucket("i", 4))
              .addField(Expressions.truncate("s", 2)).addField(Expressions.month("dt")),
          spec -> spec.removeField(Expressions.truncate("s", 2)).removeField(Expressions.month("dt"))
              .addField(Expressions.day("ts")).addField(Expressions.truncate("dec9", DEC9_WIDTH)),
          spec -> spec.removeField(Expressions.day("ts"))
              .removeField(Expressions.truncate("dec9", DEC9_WIDTH))
              .addField(Expressions.hour("ntz")).addField("f"),
          spec -> spec.removeField(Expressions.hour("ntz")).removeField("f")
              .addField(Expressions.bucket("bin", 3)).addField(Expressions.truncate("l", LONG_WIDTH)));

  /**
   * The spec each of twenty slots of row ids is written under: half the rows under the first spec,
   * whose partitions are few, and fewer rows under the specs whose partitions are many, so that
   * the table has a few dozen files rather than one per row.
   */
  private static final int[] SPEC_OF_SLOT = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4};

  private static final Map<String, String> PROPERTIES =
      Map.of(
          "write.parquet.bloom-filter-max-bytes", "1024",
          "write.metadata.metrics.column.s", "truncate(3)",
          "write.metadata.metrics.column.bin", "truncate(2)",
          "write.metadata.metrics.column.l", "counts",
          "write.parquet.bloom-filter-enabled.column.i", "true",
          "write.parquet.bloom-filter-enabled.column.d", "true",
          "write.parquet.bloom-filter-enabled.column.s", "true",
          "write.parquet.bloom-filter-enabled.column.dec9", "true",
          "write.parquet.bloom-filter-enabled.column.ts", "true");

  private EdgeTable() {}

  /** Creates the temporary view {@code view} over the rows. */
  static void createView(SparkSession spark, String view, List<Row> rows) {
    spark.createDataFrame(rows, EdgeRows.SCHEMA).createOrReplaceTempView(view);
  }

  /**
   * Creates the Floe table {@code floe.<name>} holding the rows.
   *
   * @return the number of data files written
   */
  static int createFloeTable(SparkSession spark, String name, List<Row> rows) {
    StringBuilder properties = new StringBuilder();
    PROPERTIES.forEach(
        (key, value) ->
            properties.append(properties.length() == 0 ? "" : ", ")
                .append('\'').append(key).append("' = '").append(value).append('\''));
    spark.sql("CREATE TABLE floe." + name + " (" + EdgeRows.DDL + ") USING iceberg"
        + " PARTITIONED BY (b, bucket(4, i)) TBLPROPERTIES (" + properties + ")");
    for (int group = 0; group < SPEC_CHANGES.size(); group += 1) {
      if (group > 0) {
        UpdatePartitionSpec update = icebergTable(spark, name).updateSpec();
        SPEC_CHANGES.get(group).accept(update);
        update.commit();
      }
      int member = group;
      List<Row> groupRows = rows.stream().filter(row -> group(row) == member).toList();
      try {
        // the table's default distribution clusters rows by partition: one file per partition
        spark.createDataFrame(groupRows, EdgeRows.SCHEMA).writeTo("floe." + name).append();
      } catch (NoSuchTableException e) {
        throw new IllegalStateException("Cannot write to floe." + name + ": it was not created", e);
      }
    }
    return dataFiles(icebergTable(spark, name)).size();
  }

  /**
   * The spec a row is written under (see {@link #SPEC_OF_SLOT}), except rows whose value
   * Iceberg cannot truncate, which go to the first spec. A decimal whose truncation needs more
   * digits than its type has (-9999999.99 truncated to a multiple of 1.00 is -10000000.00) fails
   * the manifest write (apache/iceberg#17027); a bigint within one width of the type's minimum
   * wraps around to a large positive partition value, and the file is then pruned away by filters
   * it matches (apache/iceberg#13105; see {@code TransformBoundaryPruningTest}).
   */
  static int group(Row row) {
    int group = SPEC_OF_SLOT[row.getInt(0) % SPEC_OF_SLOT.length];
    boolean cannotTruncate =
        switch (group) {
          case 2 -> !row.isNullAt(6)
              && truncated(row.getDecimal(6).unscaledValue(), DEC9_WIDTH)
                  .abs().compareTo(BigInteger.TEN.pow(9)) >= 0;
          case 4 -> !row.isNullAt(3)
              && truncated(BigInteger.valueOf(row.getLong(3)), LONG_WIDTH)
                  .compareTo(BigInteger.valueOf(Long.MIN_VALUE)) < 0;
          default -> false;
        };
    return cannotTruncate ? 0 : group;
  }

  /** A value truncated to a multiple of the width, without overflow. */
  private static BigInteger truncated(BigInteger value, int width) {
    return value.subtract(value.mod(BigInteger.valueOf(width)));
  }

  /** The Iceberg table behind {@code floe.<name>}, loaded now. */
  static Table icebergTable(SparkSession spark, String name) {
    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("floe");
    return catalog.icebergCatalog().loadTable(TableIdentifier.parse(name));
  }

  /** The locations of the data files of the table's current snapshot. */
  static Set<String> dataFiles(Table table) {
    Set<String> files = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(task -> files.add(task.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
