package io.floe.spark.catalog;

import io.floe.spark.commit.TableLoader;
import io.floe.spark.read.ChangelogScanBuilder;
import io.floe.spark.streaming.FloeStreaming;
import io.floe.spark.types.SparkSchemas;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A table's changelog as Spark sees it, loaded as {@code <table>.changes} (the official runtime's
 * name): read-only, its rows the table's columns followed by {@code _change_type}, {@code
 * _change_ordinal} and {@code _commit_snapshot_id}, one row per row that a snapshot added
 * ({@code INSERT}) or removed ({@code DELETE}), read as {@link ChangelogScanBuilder} plans it.
 * Copy-on-write rewrites show as the carry-over pairs they are (the same row deleted and inserted
 * in one snapshot); the procedure {@code create_changelog_view} removes them.
 *
 * <p>With a loader it also reads as a stream ({@code spark.readStream.table("cat.db.t.changes")}),
 * through the {@code streaming} package's changelog source; without one a streaming read fails with
 * a message that says what to do instead, rather than Spark's bare "does not support micro-batch
 * scan".
 */
public final class FloeChangelogTable implements SupportsRead {
  /** The name a changelog is loaded by, after its table's name. */
  public static final String NAME = "changes";

  private static final Set<TableCapability> CAPABILITIES =
      EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ);

  private final Table table;
  private final TableLoader loader;

  /**
   * @param table the table whose changes are read, at its current metadata
   * @param loader how a stream source loads the table again; null for no streaming reads
   */
  public FloeChangelogTable(Table table, TableLoader loader) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.loader = loader;
  }

  public Table table() {
    return table;
  }

  @Override
  public String name() {
    return table.name() + "." + NAME;
  }

  @Override
  public StructType schema() {
    return SparkSchemas.toSpark(ChangelogScanBuilder.changelogSchema(table));
  }

  @Override
  public Map<String, String> properties() {
    return Map.of("provider", "iceberg");
  }

  @Override
  public Set<TableCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    ChangelogScanBuilder builder = new ChangelogScanBuilder(table, name(), options);
    return loader == null ? builder : builder.withStreaming(FloeStreaming.changelogSource(loader));
  }

  @Override
  public String toString() {
    return "FloeChangelogTable{" + name() + "}";
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof FloeChangelogTable)) {
      return false;
    }
    FloeChangelogTable that = (FloeChangelogTable) other;
    return table.name().equals(that.table.name()) && Objects.equals(table.uuid(), that.table.uuid());
  }

  @Override
  public int hashCode() {
    return Objects.hash(table.name());
  }
}
