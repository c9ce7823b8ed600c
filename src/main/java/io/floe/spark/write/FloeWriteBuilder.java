package io.floe.spark.write;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.expressions.SparkPredicates;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsOverwriteV2;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Turns Spark's write request (append, overwrite by filter, truncate, dynamic overwrite) into a
 * {@link FloeWrite}: fixes the schema, spec, starting snapshot and commit id on the driver.
 */
public final class FloeWriteBuilder implements SupportsOverwriteV2, SupportsDynamicOverwrite {
  private final Table table;
  private final TableLoader loader;
  private final LogicalWriteInfo info;
  private final String branch;
  private WriteMode mode = WriteMode.APPEND;
  private Expression overwriteFilter;
  private StreamingWriteFactory streaming;

  /**
   * @param branch the branch the table's name selects ({@code <table>.branch_<name>}), or null; a
   *     {@code branch} write option, if given, must name the same branch
   */
  public FloeWriteBuilder(Table table, TableLoader loader, LogicalWriteInfo info, String branch) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.loader = Objects.requireNonNull(loader, "loader is null");
    this.info = Objects.requireNonNull(info, "info is null");
    this.branch = branch;
  }

  /** Lets the built write run as a stream's sink ({@link FloeWrite#toStreaming()}). */
  public FloeWriteBuilder withStreaming(StreamingWriteFactory factory) {
    this.streaming = Objects.requireNonNull(factory, "factory is null");
    return this;
  }

  @Override
  public boolean canOverwrite(Predicate[] predicates) {
    return convert(predicates).isPresent();
  }

  @Override
  public FloeWriteBuilder overwrite(Predicate[] predicates) {
    Expression filter =
        convert(predicates)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "Cannot overwrite "
                            + table.name()
                            + ": the condition cannot be converted exactly to an Iceberg filter"));
    this.mode = WriteMode.OVERWRITE_BY_FILTER;
    this.overwriteFilter = filter;
    return this;
  }

  @Override
  public FloeWriteBuilder truncate() {
    this.mode = WriteMode.OVERWRITE_BY_FILTER;
    this.overwriteFilter = Expressions.alwaysTrue();
    return this;
  }

  @Override
  public FloeWriteBuilder overwriteDynamicPartitions() {
    this.mode = WriteMode.REPLACE_PARTITIONS;
    this.overwriteFilter = null;
    return this;
  }

  @Override
  public Write build() {
    WriteOptions options =
        WriteOptions.resolve(
            table.name(), info.options().asCaseSensitiveMap(), SQLConf.get(), table.properties());
    if (branch != null) {
      options = options.onBranch(table.name(), branch);
    }
    if (options.outputSpecId() != null && !table.specs().containsKey(options.outputSpecId())) {
      throw new IllegalArgumentException(
          "Cannot write to " + table.name() + ": option '" + WriteOptions.OUTPUT_SPEC_ID
              + "' names no partition spec of the table: " + options.outputSpecId() + " (specs: "
              + new TreeSet<>(table.specs().keySet()) + ")");
    }
    Long validateFrom = options.validateFromSnapshotId();
    if (validateFrom != null && table.snapshot(validateFrom) == null) {
      throw new IllegalArgumentException(
          "Cannot write to " + table.name() + ": option '" + WriteOptions.VALIDATE_FROM_SNAPSHOT_ID
              + "' names no snapshot of the table: " + validateFrom);
    }
    // a merge-schema write is planned and written with the merged schema, committed with its data
    Table planned =
        options.mergeSchema()
            ? SchemaMerge.plan(table, info.schema(), SQLConf.get().caseSensitiveAnalysis())
            : table;
    SchemaCheck.check(
        table.name(), planned.schema(), info.schema(), options.checkNullability(),
        options.checkOrdering());
    Snapshot start =
        options.branch() == null ? table.currentSnapshot() : table.snapshot(options.branch());
    String commitId = options.commitId() != null ? options.commitId() : UUID.randomUUID().toString();
    return new FloeWrite(
        new WriteContext(
            loader,
            SerializableTable.copyOf(planned),
            mode,
            overwriteFilter,
            commitId,
            start == null ? null : start.snapshotId(),
            options),
        streaming,
        info.queryId());
  }

  private Optional<Expression> convert(Predicate[] predicates) {
    Expression filter = Expressions.alwaysTrue();
    for (Predicate predicate : predicates) {
      Optional<Expression> converted =
          SparkPredicates.convertExact(predicate, table.schema(), SQLConf.get().caseSensitiveAnalysis());
      if (converted.isEmpty()) {
        return Optional.empty();
      }
      filter = Expressions.and(filter, converted.get());
    }
    return Optional.of(filter);
  }
}
