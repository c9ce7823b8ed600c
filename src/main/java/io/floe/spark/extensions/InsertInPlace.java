package io.floe.spark.extensions;

import io.floe.spark.read.FloeScan;
import io.floe.spark.write.FloeWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.logical.AppendData;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.OverwriteByExpression;
import org.apache.spark.sql.catalyst.plans.logical.OverwritePartitionsDynamic;
import org.apache.spark.sql.catalyst.plans.logical.V2WriteCommand;
import org.apache.spark.sql.connector.distributions.ClusteredDistribution;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import org.apache.spark.sql.internal.SQLConf;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.jdk.javaapi.OptionConverters;

/**
 * The planner strategy that lets an INSERT (an append, or an overwrite by filter or of the
 * partitions written) into a partitioned Floe table in hash mode write its rows from the tasks
 * that read them, without the shuffle by partition Spark puts under the write, when the rows come
 * from a Floe scan of files partitioned the same way or more finely.
 *
 * <p>The shuffle is there so that each table partition is written by one task, into one file. When
 * every partition field of the written spec takes its column, unchanged ({@link ScanLineage}), from
 * a scan whose files all have one spec, and each written field derives from a field of that spec
 * ({@link WrittenPartitions}: the same transform, or a coarser one such as {@code months} from
 * {@code days}, {@code bucket[4]} from {@code bucket[16]}, anything from {@code identity}; the read
 * spec may have more fields), a row's written partition follows from the partition of the file it
 * was read from. Then a scan that reads each written partition in one task group ({@link
 * FloeScan#withPartitionsApart}, which packs the groups again by written partition when they do
 * not) already holds every written partition in one task: the shuffle would only move rows that
 * are together. A written partition larger than the shuffle's advisory partition size (its rows
 * as Spark sizes them, or its files' bytes), which the shuffle would split among tasks, keeps it.
 * Copying a table into another of the same spec or a coarser one, or moving a filtered part of
 * it, is such a write.
 *
 * <p>Anything else keeps the shuffle too: a computed or cast partition column, a finer or unrelated
 * transform, a join, an aggregate or a union under the write, a scan of several specs, or a write
 * whose distribution is not Floe's clustering by partition (a {@code REBALANCE} hint alone, range
 * or none mode). Leaving the shuffle out changes only which task writes a row, never the rows
 * written; a local sort the write asks for stays.
 */
public final class InsertInPlace extends SparkStrategy {
  @Override
  public Seq<SparkPlan> apply(LogicalPlan plan) {
    Optional<LogicalPlan> withoutShuffle =
        plan instanceof V2WriteCommand command
                && writeOf(plan).orElse(null) instanceof FloeWrite write
            ? withoutShuffle(command, write)
            : Optional.empty();
    List<SparkPlan> planned =
        withoutShuffle.isEmpty() ? List.of() : List.of(planLater(withoutShuffle.get()));
    return CollectionConverters.asScala(planned).toSeq();
  }

  private static Optional<Write> writeOf(LogicalPlan plan) {
    Option<Write> write =
        plan instanceof AppendData append
            ? append.write()
            : plan instanceof OverwriteByExpression overwrite
                ? overwrite.write()
                : plan instanceof OverwritePartitionsDynamic dynamic ? dynamic.write() : null;
    return write == null ? Optional.empty() : OptionConverters.toJava(write);
  }

  private static Optional<LogicalPlan> withoutShuffle(V2WriteCommand command, FloeWrite write) {
    Optional<RebalancedQuery> query = RebalancedQuery.of(command.query());
    PartitionSpec spec = write.context().spec();
    // the shuffle must be the write's own clustering by the spec's fields, not a user's hint
    if (query.isEmpty()
        || spec.isUnpartitioned()
        || !(write.requiredDistribution() instanceof ClusteredDistribution clustered)
        || clustered.clustering().length != query.get().rebalance().partitionExpressions().size()) {
      return Optional.empty();
    }
    LogicalPlan rows = query.get().rows();
    DataSourceV2ScanRelation relation = null;
    List<String> readColumns = new ArrayList<>();
    for (PartitionField field : spec.fields()) {
      Types.NestedField column = spec.schema().asStruct().field(field.sourceId());
      if (column == null) {
        return Optional.empty(); // a nested column: its lineage is not traced
      }
      Optional<ScanLineage.ScanColumn> source = ScanLineage.of(rows, column.name());
      if (source.isEmpty() || (relation != null && source.get().relation() != relation)) {
        return Optional.empty();
      }
      relation = source.get().relation();
      readColumns.add(source.get().attribute().name());
    }
    if (!(relation.scan() instanceof FloeScan scan)) {
      return Optional.empty();
    }
    Optional<WrittenPartitions> written = writtenPartitions(spec, readColumns, scan);
    if (written.isEmpty()) {
      return Optional.empty();
    }
    // a partition that the shuffle would split among tasks keeps the shuffle
    Option<Object> size = query.get().rebalance().optAdvisoryPartitionSize();
    long advisory =
        size.isDefined()
            ? (Long) size.get()
            : (Long) SQLConf.get().getConf(SQLConf.ADVISORY_PARTITION_SIZE_IN_BYTES());
    long rowBytes = 8; // Spark's own estimate of a row: its columns' default sizes and 8 bytes
    for (Attribute attribute : CollectionConverters.asJava(rows.output())) {
      rowBytes += attribute.dataType().defaultSize();
    }
    Optional<FloeScan> apart = scan.withPartitionsApart(advisory, rowBytes, written.get());
    if (apart.isEmpty()) {
      return Optional.empty();
    }
    LogicalPlan read =
        apart.get() == scan
            ? rows
            : ScanLineage.withRelation(
                rows,
                relation,
                new DataSourceV2ScanRelation(
                    relation.relation(), apart.get(), relation.output(), Option.empty(),
                    Option.empty()));
    return Optional.of((LogicalPlan) command.withNewQuery(query.get().withoutShuffle(read)));
  }

  /**
   * The written partition of each file the scan reads, when every file has one spec and each field
   * of the written spec derives from one of its fields ({@link WrittenPartitions}): a field of the
   * column the written field's column is read from, of the same Iceberg type (a {@code uuid} column
   * reaches Spark as a string, but its buckets are not a string's).
   *
   * @param readColumns for each field of {@code spec}, the scan's column its source column is
   */
  private static Optional<WrittenPartitions> writtenPartitions(
      PartitionSpec spec, List<String> readColumns, FloeScan scan) {
    Optional<PartitionSpec> read = scan.taskSpec();
    if (read.isEmpty()) {
      return Optional.empty();
    }
    List<Types.NestedField> columns = new ArrayList<>(readColumns.size());
    for (String name : readColumns) {
      columns.add(scan.tableSchema().asStruct().field(name));
    }
    return WrittenPartitions.of(spec, columns, read.get());
  }
}
