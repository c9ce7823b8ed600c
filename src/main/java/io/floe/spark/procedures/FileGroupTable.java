package io.floe.spark.procedures;

import io.floe.spark.read.FloeScan;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The rows of one compaction file group as a Spark table: it only reads, and every scan of it is
 * the one {@link FloeScan} planned on the driver from the group's file tasks, whatever Spark pushes
 * (the group is read whole, in the table's schema, deletes applied). It lives for one rewrite job
 * and is never in a catalog.
 */
final class FileGroupTable implements SupportsRead {
  private final String name;
  private final FloeScan scan;

  /**
   * @param name the name the job's plan shows
   * @param scan the group's planned scan
   */
  FileGroupTable(String name, FloeScan scan) {
    this.name = Objects.requireNonNull(name, "name is null");
    this.scan = Objects.requireNonNull(scan, "scan is null");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public StructType schema() {
    return scan.readSchema();
  }

  @Override
  public Set<TableCapability> capabilities() {
    return Set.of(TableCapability.BATCH_READ);
  }

  @Override
  public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
    return () -> scan;
  }
}
