package io.floe.spark.catalog;

import java.util.Objects;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A read view of a table held at one metadata version: {@link #current()} and {@link #refresh()}
 * always give that version, while files are read, located and decrypted through the live table's
 * operations. Commits are refused; writes go through a table loaded from the catalog.
 *
 * <p>It lets a cached live table be refreshed by one query while another query keeps the schema
 * and snapshot it was analysed with.
 */
final class PinnedTableOperations implements TableOperations {
  private final TableOperations live;
  private final TableMetadata metadata;
  private final String tableName;

  /**
   * @param live the operations of the live table, which serve files, encryption and snapshot ids
   * @param metadata the metadata version this view holds
   * @param tableName the table's name, for errors
   */
  PinnedTableOperations(TableOperations live, TableMetadata metadata, String tableName) {
    this.live = Objects.requireNonNull(live, "live is null");
    this.metadata = Objects.requireNonNull(metadata, "metadata is null");
    this.tableName = Objects.requireNonNull(tableName, "tableName is null");
  }

  TableMetadata metadata() {
    return metadata;
  }

  @Override
  public TableMetadata current() {
    return metadata;
  }

  @Override
  public TableMetadata refresh() {
    return metadata;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata updated) {
    throw new UnsupportedOperationException(
        "Cannot commit to " + tableName + " through a read view of metadata "
            + metadata.metadataFileLocation() + ": load the table from its catalog to change it");
  }

  @Override
  public FileIO io() {
    return live.io();
  }

  @Override
  public EncryptionManager encryption() {
    return live.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return live.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    // from the held version, so that files go where its properties say
    return LocationProviders.locationsFor(metadata.location(), metadata.properties());
  }

  @Override
  public long newSnapshotId() {
    return live.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return live.requireStrictCleanup();
  }
}
