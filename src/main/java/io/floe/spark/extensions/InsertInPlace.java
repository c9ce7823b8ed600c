package io.floe.spark.extensions;

import io.floe.spark.read.FloeScan;
import io.floe.spark.write.FloeWrite;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Types;
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
 * from a Floe scan of files partitioned the same way.
 *
 * <p>The shuffle is there so that each table partition is written by one task, into one file. When
 * every partition field of the written spec takes its column, unchanged ({@link ScanLineage}), from
 * a scan whose files all have one spec with the same fields (the same transforms of those columns,
 * no more), a row's written partition is the partition of the file it was read from. Then a scan
 * that reads each partition in one task group ({@link FloeScan#withPartitionsApart}, which packs
 * the groups again by partition when they were packed by size alone) already holds every written
 * partition in one task: the shuffle would only move rows that are together. A partition whose
 * files weigh more than the shuffle's advisory partition size, which the shuffle would split among
 * tasks, keeps it. Copying a table into
 * another of the same spec, or moving a filtered part of it, is such a write.
 *
 * <p>Anything else keeps the shuffle too: a computed or cast partition column, a join, an aggregate
 * or a union under the write, a scan of several specs, or a
 * write whose distribution is not Floe's clustering by partition (a {@code REBALANCE} hint alone,
 * range or none mode). Leaving the shuffle out changes only which task writes a row, never the rows
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
    if (!(relation.scan() instanceof FloeScan scan)
        || !samePartitioning(spec, readColumns, scan)) {
      return Optional.empty();
    }
    // a partition that the shuffle would split among tasks keeps the shuffle
    Option<Object> size = query.get().rebalance().optAdvisoryPartitionSize();
    long advisory =
        size.isDefined()
            ? (Long) size.get()
            : (Long) SQLConf.get().getConf(SQLConf.ADVISORY_PARTITION_SIZE_IN_BYTES());
    Optional<FloeScan> apart = scan.withPartitionsApart(advisory);
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
   * Whether every file the scan reads has one spec whose fields are, one for one, the written
   * spec's: the same transform of the column the written field's column is read from, and of the
   * same Iceberg type (a {@code uuid} column reaches Spark as a string, but its buckets are not a
   * string's).
   *
   * @param readColumns for each field of {@code spec}, the scan's column its source column is
   */
  private static boolean samePartitioning(
      PartitionSpec spec, List<String> readColumns, FloeScan scan) {
    Optional<PartitionSpec> read = scan.taskSpec();
    if (read.isEmpty() || fieldCount(read.get()) != fieldCount(spec)) {
      return false;
    }
    Set<Integer> matched = new HashSet<>();
    for (int i = 0; i < spec.fields().size(); i++) {
      PartitionField written = spec.fields().get(i);
      Types.NestedField column = scan.tableSchema().asStruct().field(readColumns.get(i));
      PartitionField match = null;
      for (PartitionField field : read.get().fields()) {
        if (column != null
            && field.sourceId() == column.fieldId()
            && column.type().equals(spec.schema().findType(written.sourceId()))
            && field.transform().toString().equals(written.transform().toString())) {
          match = field;
        }
      }
      if (match == null || written.transform().isVoid() || !matched.add(match.fieldId())) {
        return false;
      }
    }
    return true;
  }

  private static long fieldCount(PartitionSpec spec) {
    return spec.fields().stream().filter(field -> !field.transform().isVoid()).count();
  }
}
