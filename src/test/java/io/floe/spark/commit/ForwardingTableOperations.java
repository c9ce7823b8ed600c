package io.floe.spark.commit;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A real table's {@link TableOperations} passed through, for test catalogs that wrap them to watch
 * or disturb a few calls (refresh, commit) and leave the rest to the real operations they carry.
 */
public abstract class ForwardingTableOperations implements TableOperations {
  protected final TableOperations ops;

  protected ForwardingTableOperations(TableOperations ops) {
    this.ops = ops;
  }

  @Override
  public TableMetadata current() {
    return ops.current();
  }

  @Override
  public TableMetadata refresh() {
    return ops.refresh();
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    ops.commit(base, metadata);
  }

  @Override
  public FileIO io() {
    return ops.io();
  }

  @Override
  public EncryptionManager encryption() {
    return ops.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return ops.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return ops.locationProvider();
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    return ops.temp(uncommittedMetadata);
  }

  @Override
  public long newSnapshotId() {
    return ops.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return ops.requireStrictCleanup();
  }
}
