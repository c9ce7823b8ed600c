package io.floe.spark.catalog;

import io.floe.spark.commit.CommitRequest;
import io.floe.spark.commit.Committer;
import io.floe.spark.commit.TableLoader;
import io.floe.spark.commit.WriteMode;
import io.floe.spark.read.FloeScanBuilder;
import io.floe.spark.read.ScanPlanShare;
import io.floe.spark.read.TimeTravel;
import io.floe.spark.read.exec.FileKeyColumn;
import io.floe.spark.rowlevel.FloeRowLevelOperationBuilder;
import io.floe.spark.rowlevel.MetadataDelete;
import io.floe.spark.streaming.FloeStreaming;
import io.floe.spark.types.SparkSchemas;
import io.floe.spark.types.Transforms;
import io.floe.spark.write.FloeWriteBuilder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.MetadataColumn;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.catalog.SupportsMetadataColumns;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TruncatableTable;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Floe table as Spark sees it: an Iceberg table (or metadata table), optionally pinned to a
 * snapshot for time travel, and the loader the driver uses to commit writes to it.
 *
 * <p>Schema and partitioning are those of the pinned snapshot, or of the table's current metadata.
 */
public class FloeTable
    implements SupportsRead,
        SupportsWrite,
        SupportsMetadataColumns,
        TruncatableTable,
        SupportsRowLevelOperations,
        SupportsDeleteV2 {
  private static final Set<TableCapability> DATA_CAPABILITIES =
      EnumSet.of(
          TableCapability.BATCH_READ,
          TableCapability.BATCH_WRITE,
          TableCapability.TRUNCATE,
          TableCapability.OVERWRITE_BY_FILTER,
          TableCapability.OVERWRITE_DYNAMIC,
          TableCapability.STREAMING_WRITE,
          TableCapability.MICRO_BATCH_READ);
  private static final Set<TableCapability> READ_ONLY = EnumSet.of(TableCapability.BATCH_READ);
  /** Whether {@code MERGE WITH SCHEMA EVOLUTION} may change the table's schema (default true). */
  public static final String AUTO_SCHEMA_EVOLUTION = "write.spark.auto-schema-evolution.enabled";

  private final Table table;
  private final TableLoader loader;
  private final Long snapshotId;
  private final Schema schema;
  private final String branch;
  // a copy-on-write operation's scan plan, offered to the scan of Spark's group filter
  private final ScanPlanShare plans = new ScanPlanShare();

  /**
   * @param table the Iceberg table or metadata table
   * @param loader how the driver loads the table again to commit; null for read-only tables
   * @param travel the snapshot to read (time travel), or null for the current state; it also picks
   *     the schema Spark sees (see {@link TimeTravel#schema})
   * @throws IllegalArgumentException when the table has no snapshot the time travel names
   */
  public FloeTable(Table table, TableLoader loader, TimeTravel travel) {
    this(table, loader, travel, null);
  }

  private FloeTable(Table table, TableLoader loader, TimeTravel travel, String branch) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.loader = loader;
    this.snapshotId = travel == null ? null : travel.snapshotId(table);
    this.schema = travel == null ? table.schema() : travel.schema(table);
    this.branch = branch;
  }

  /**
   * The table as {@code <table>.branch_<name>} names it: reads see the branch's head in the table's
   * current schema, writes commit to the branch (creating it from main's head when it does not
   * exist yet, as a write with the {@code branch} option does).
   */
  public static FloeTable onBranch(Table table, TableLoader loader, String branch) {
    Objects.requireNonNull(branch, "branch is null");
    SnapshotRef ref = table.refs().get(branch);
    if (ref != null && !ref.isBranch()) {
      throw new IllegalArgumentException(
          "Cannot use " + table.name() + ".branch_" + branch + ": '" + branch + "' is a tag, not a branch");
    }
    TimeTravel travel = ref == null ? null : new TimeTravel(TimeTravel.Kind.REF, branch, 0);
    return new FloeTable(table, loader, travel, branch);
  }

  /** The branch this table names ({@code branch_<name>}), or null. */
  public String branch() {
    return branch;
  }

  public Table table() {
    return table;
  }

  public TableLoader loader() {
    return loader;
  }

  public Long snapshotId() {
    return snapshotId;
  }

  @Override
  public String name() {
    return table.name();
  }

  /**
   * The table's UUID: Spark 4.1 tells a table dropped and created again under the same name from
   * the one a plan (or a cached plan) was analyzed against by it.
   */
  @Override
  public String id() {
    UUID uuid = table.uuid();
    return uuid == null ? null : uuid.toString();
  }

  @Override
  public StructType schema() {
    return SparkSchemas.toSpark(schema);
  }

  /** The columns, with the write defaults of format v3 tables as DEFAULTs that INSERT fills in. */
  @Override
  public Column[] columns() {
    boolean anyDefault = schema.columns().stream().anyMatch(field -> field.writeDefault() != null);
    return anyDefault ? ColumnDefaults.columns(schema) : SupportsRead.super.columns();
  }

  @Override
  public Transform[] partitioning() {
    return isMetadataTable() ? new Transform[0] : Transforms.toSpark(table.spec());
  }

  @Override
  public Map<String, String> properties() {
    Map<String, String> properties = new HashMap<>(table.properties());
    properties.put("provider", "iceberg");
    if (!isMetadataTable()) {
      properties.put("location", table.location());
      properties.put(
          "format",
          "iceberg/" + table.properties().getOrDefault(TableProperties.DEFAULT_FILE_FORMAT, "parquet"));
      if (table instanceof HasTableOperations) {
        properties.put(
            "format-version",
            String.valueOf(((HasTableOperations) table).operations().current().formatVersion()));
      }
      Snapshot current = table.currentSnapshot();
      properties.put("current-snapshot-id", current == null ? "none" : String.valueOf(current.snapshotId()));
      if (!table.sortOrder().isUnsorted()) {
        properties.put("sort-order", table.sortOrder().toString());
      }
    }
    return properties;
  }

  @Override
  public Set<TableCapability> capabilities() {
    if (isMetadataTable() || (snapshotId != null && branch == null)) {
      return READ_ONLY;
    }
    Set<TableCapability> capabilities = EnumSet.copyOf(DATA_CAPABILITIES);
    // write.spark.accept-any-schema: Spark hands writes the data's own columns (for merge-schema)
    if (PropertyUtil.propertyAsBoolean(
        table.properties(), TableProperties.SPARK_WRITE_ACCEPT_ANY_SCHEMA, false)) {
      capabilities.add(TableCapability.ACCEPT_ANY_SCHEMA);
    }
    // MERGE WITH SCHEMA EVOLUTION: Spark adds the source's new columns and widens types through
    // alterTable before it plans the MERGE; the property and its default are the official runtime's
    if (PropertyUtil.propertyAsBoolean(table.properties(), AUTO_SCHEMA_EVOLUTION, true)) {
      capabilities.add(TableCapability.AUTOMATIC_SCHEMA_EVOLUTION);
    }
    return capabilities;
  }

  @Override
  public MetadataColumn[] metadataColumns() {
    if (isMetadataTable()) {
      return new MetadataColumn[0];
    }
    List<MetadataColumn> columns =
        new ArrayList<>(
            List.of(
                new FloeMetadataColumn(MetadataColumns.FILE_PATH.name(), DataTypes.StringType, false),
                new FloeMetadataColumn(MetadataColumns.ROW_POSITION.name(), DataTypes.LongType, false),
                new FloeMetadataColumn(MetadataColumns.SPEC_ID.name(), DataTypes.IntegerType, false),
                new FloeMetadataColumn(
                    MetadataColumns.PARTITION_COLUMN_NAME,
                    SparkSchemas.toSpark(Partitioning.partitionType(table)),
                    true),
                // a short stand-in for _file that a copy-on-write MERGE carries instead
                new FloeMetadataColumn(FileKeyColumn.NAME, DataTypes.LongType, false)));
    // row lineage (format v3): NULL only for files committed before an upgrade to v3. A rewrite
    // keeps a row's id when it updates or copies the row; an updated row's sequence number is
    // NULL in the new file, so it reads the commit's (the spec's rules)
    if (table instanceof HasTableOperations && TableUtil.supportsRowLineage(table)) {
      columns.add(
          FloeMetadataColumn.preserving(
              MetadataColumns.ROW_ID.name(), DataTypes.LongType, false, true, true));
      columns.add(
          FloeMetadataColumn.preserving(
              MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name(), DataTypes.LongType,
              false, false, false));
    }
    return columns.toArray(new MetadataColumn[0]);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    if (branch != null && snapshotId == null) {
      throw new IllegalArgumentException(
          "Cannot read " + table.name() + ".branch_" + branch + ": branch '" + branch + "' does not exist");
    }
    FloeScanBuilder builder =
        new FloeScanBuilder(table, snapshotId, schema, options).sharingPlansWith(plans);
    return loader == null || branch != null ? builder : builder.withStreaming(FloeStreaming.source(loader));
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    if (loader == null || isMetadataTable()) {
      throw new UnsupportedOperationException("Cannot write to " + name() + ": the table is read-only");
    }
    if (snapshotId != null && branch == null) {
      throw new UnsupportedOperationException(
          "Cannot write to " + name() + " as of snapshot " + snapshotId + ": time travel is read-only");
    }
    return new FloeWriteBuilder(table, loader, info, branch).withStreaming(FloeStreaming.sink());
  }

  /** DELETE, UPDATE and MERGE: copy-on-write or merge-on-read, as the table's properties say. */
  @Override
  public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
    if (loader == null || isMetadataTable()) {
      throw new UnsupportedOperationException(
          "Cannot " + info.command().name() + " " + name() + ": the table is read-only");
    }
    if (snapshotId != null && branch == null) {
      throw new UnsupportedOperationException(
          "Cannot " + info.command().name() + " " + name() + " as of snapshot " + snapshotId
              + ": time travel is read-only");
    }
    return new FloeRowLevelOperationBuilder(table, loader, branch, info, plans);
  }

  /**
   * Whether a DELETE with this condition can remove whole data files without a job (see {@link
   * MetadataDelete}); when not, Spark plans the row-level operation instead.
   */
  @Override
  public boolean canDeleteWhere(Predicate[] predicates) {
    if (readOnly()) {
      return false;
    }
    return MetadataDelete.canDelete(table, branch, predicates);
  }

  /** A metadata-only DELETE: one DeleteFiles of the files {@link #canDeleteWhere} accepted. */
  @Override
  public void deleteWhere(Predicate[] predicates) {
    if (readOnly()) {
      throw new UnsupportedOperationException("Cannot delete from " + name() + ": the table is read-only");
    }
    MetadataDelete.run(loader, branch, predicates);
  }

  /**
   * TRUNCATE TABLE: removes every row in one snapshot (operation {@code delete}) that carries a
   * fresh commit id; an empty table is left without a new snapshot.
   */
  @Override
  public boolean truncateTable() {
    if (readOnly()) {
      throw new UnsupportedOperationException("Cannot truncate " + name() + ": the table is read-only");
    }
    Table live = loader.load();
    Snapshot current = branch == null ? live.currentSnapshot() : live.snapshot(branch);
    if (current == null) {
      return true;
    }
    CommitRequest request =
        new CommitRequest(
            WriteMode.OVERWRITE_BY_FILTER,
            List.of(),
            Expressions.alwaysTrue(),
            UUID.randomUUID().toString(),
            false,
            current.snapshotId(),
            branch,
            null,
            Map.of(),
            null,
            null);
    new Committer(live, name()).commit(request);
    return true;
  }

  /** Whether nothing may change the table through this object: no loader, metadata, time travel. */
  private boolean readOnly() {
    return loader == null || isMetadataTable() || (snapshotId != null && branch == null);
  }

  private boolean isMetadataTable() {
    return table instanceof BaseMetadataTable;
  }

  @Override
  public String toString() {
    return "FloeTable{" + name() + (branch == null ? "" : ", branch=" + branch)
        + (snapshotId == null ? "" : ", snapshot=" + snapshotId) + "}";
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (other == null || getClass() != other.getClass()) {
      return false;
    }
    FloeTable that = (FloeTable) other;
    return table.name().equals(that.table.name())
        && Objects.equals(table.uuid(), that.table.uuid())
        && Objects.equals(snapshotId, that.snapshotId)
        && Objects.equals(branch, that.branch);
  }

  @Override
  public int hashCode() {
    return Objects.hash(table.name(), snapshotId, branch);
  }
}
