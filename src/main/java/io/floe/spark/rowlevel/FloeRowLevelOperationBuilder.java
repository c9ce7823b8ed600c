package io.floe.spark.rowlevel;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.read.ScanPlanShare;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;

/**
 * Spark's entry to a DELETE, UPDATE or MERGE on a Floe table: picks copy-on-write or merge-on-read
 * from the table's properties and builds that operation.
 *
 * <p>Carries the table as the statement loaded it, the loader the driver commits through, the
 * branch the table's name selects (or null), Spark's description of the operation, and where a
 * copy-on-write operation offers its scan's plan to the scan of Spark's group filter (the table's
 * {@link ScanPlanShare}, or null to plan that scan on its own).
 */
public final class FloeRowLevelOperationBuilder implements RowLevelOperationBuilder {
  private final Table table;
  private final TableLoader loader;
  private final String branch;
  private final RowLevelOperationInfo info;
  private final ScanPlanShare plans;

  public FloeRowLevelOperationBuilder(
      Table table, TableLoader loader, String branch, RowLevelOperationInfo info) {
    this(table, loader, branch, info, null);
  }

  public FloeRowLevelOperationBuilder(
      Table table,
      TableLoader loader,
      String branch,
      RowLevelOperationInfo info,
      ScanPlanShare plans) {
    this.plans = plans;
    this.table = Objects.requireNonNull(table, "table is null");
    this.loader = Objects.requireNonNull(loader, "loader is null");
    this.branch = branch;
    this.info = Objects.requireNonNull(info, "info is null");
  }

  @Override
  public RowLevelOperation build() {
    RowLevelMode mode = RowLevelMode.of(table.name(), info.command(), table.properties());
    return mode == RowLevelMode.COPY_ON_WRITE
        ? new CopyOnWriteOperation(table, loader, branch, info, plans)
        : new MergeOnReadOperation(table, loader, branch, info);
  }
}
