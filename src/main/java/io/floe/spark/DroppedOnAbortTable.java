package io.floe.spark;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;

/**
 * A table of Spark's built-in catalog created for a CREATE TABLE ... AS SELECT that {@link
 * FloeSessionCatalog} cannot stage: the table exists from the start, and is dropped again when
 * Spark aborts the statement. Only for providers that are neither Iceberg nor one Spark runs as a
 * V1 command itself (Spark's file sources take their own path and never come here).
 */
final class DroppedOnAbortTable implements StagedTable, SupportsWrite {
  private final TableCatalog catalog;
  private final Identifier ident;
  private final Table table;

  DroppedOnAbortTable(TableCatalog catalog, Identifier ident, Table table) {
    this.catalog = Objects.requireNonNull(catalog, "catalog is null");
    this.ident = Objects.requireNonNull(ident, "ident is null");
    this.table = Objects.requireNonNull(table, "table is null");
  }

  @Override
  public void commitStagedChanges() {
    // the table was created when it was staged; the write committed its rows
  }

  @Override
  public void abortStagedChanges() {
    catalog.dropTable(ident);
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (!(table instanceof SupportsWrite)) {
      throw new UnsupportedOperationException(
          "Cannot write to table " + table.name() + ": its provider does not support writes");
    }
    return ((SupportsWrite) table).newWriteBuilder(info);
  }

  @Override
  public String name() {
    return table.name();
  }

  @Override
  public Column[] columns() {
    return table.columns();
  }

  @Override
  public Transform[] partitioning() {
    return table.partitioning();
  }

  @Override
  public Map<String, String> properties() {
    return table.properties();
  }

  @Override
  public Set<TableCapability> capabilities() {
    return table.capabilities();
  }
}
