package io.floe.spark.streaming;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.encryption.PlaintextEncryptionManager;

/**
 * Writes the manifest of one stream epoch's data files on the driver, in the thread that commits,
 * for {@link io.floe.spark.commit.Committer#commitManifest}: Iceberg's own append writes it on its
 * shared worker pool while the committing thread polls that pool every 10 ms.
 *
 * <p>Only where the result is the snapshot an ordinary fast append would commit: the manifest must
 * inherit the snapshot's id (format v2 or later, or snapshot id inheritance enabled; else Iceberg
 * would rewrite it), the table writes plaintext metadata, and asks for no per-partition summaries
 * (which Iceberg cannot count from a manifest). Elsewhere {@link #canWrite} says no and the sink
 * appends the files as before.
 */
final class EpochManifest {
  private EpochManifest() {}

  /** Whether a manifest written here commits exactly what appending {@code files} would. */
  static boolean canWrite(Table table, List<DataFile> files) {
    if (files.isEmpty() || !(table instanceof HasTableOperations)) {
      return false;
    }
    TableOperations ops = ((HasTableOperations) table).operations();
    TableMetadata metadata = ops.current();
    boolean inherits =
        metadata.formatVersion() > 1
            || metadata.propertyAsBoolean(
                TableProperties.SNAPSHOT_ID_INHERITANCE_ENABLED,
                TableProperties.SNAPSHOT_ID_INHERITANCE_ENABLED_DEFAULT);
    int specId = files.get(0).specId();
    for (DataFile file : files) {
      if (file.specId() != specId) {
        return false;
      }
    }
    return inherits
        && metadata.spec(specId) != null
        && ops.encryption() instanceof PlaintextEncryptionManager
        && metadata.propertyAsInt(TableProperties.WRITE_PARTITION_SUMMARY_LIMIT, 0) <= 0;
  }

  /**
   * Writes one manifest of the files, all of one partition spec, next to the table's other
   * metadata. A failure deletes what was written and rethrows.
   */
  static ManifestFile write(Table table, List<DataFile> files) {
    TableOperations ops = ((HasTableOperations) table).operations();
    TableMetadata metadata = ops.current();
    PartitionSpec spec = metadata.spec(files.get(0).specId());
    String location =
        ops.metadataFileLocation(FileFormat.AVRO.addExtension(UUID.randomUUID() + "-m0"));
    ManifestWriter<DataFile> writer =
        ManifestFiles.write(
            metadata.formatVersion(), spec, ops.io().newOutputFile(location), null,
            manifestWriterProperties(metadata));
    try {
      try (writer) {
        files.forEach(writer::add);
      }
      return writer.toManifestFile();
    } catch (IOException | RuntimeException e) {
      try {
        ops.io().deleteFile(location);
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      if (e instanceof IOException) {
        throw new UncheckedIOException(
            "Cannot write the manifest of a stream epoch to " + table.name(), (IOException) e);
      }
      throw (RuntimeException) e;
    }
  }

  /**
   * The summary values that a fast append counts from each appended file but not from an
   * appended manifest; without them the snapshot's {@code total-files-size} would stay where the
   * previous snapshot left it.
   */
  static Map<String, String> summaryProperties(List<DataFile> files) {
    long bytes = 0;
    Set<Object> partitions = new HashSet<>();
    for (DataFile file : files) {
      bytes += file.fileSizeInBytes();
      partitions.add(file.partition());
    }
    Map<String, String> properties = new HashMap<>();
    if (bytes > 0) {
      properties.put(SnapshotSummary.ADDED_FILE_SIZE_PROP, Long.toString(bytes));
    }
    properties.put(SnapshotSummary.CHANGED_PARTITION_COUNT_PROP, Integer.toString(partitions.size()));
    return properties;
  }

  /** The manifest settings Iceberg's own snapshot producer writes with. */
  private static Map<String, String> manifestWriterProperties(TableMetadata metadata) {
    Map<String, String> properties = new HashMap<>();
    properties.put(
        TableProperties.AVRO_COMPRESSION,
        metadata.property(
            TableProperties.MANIFEST_COMPRESSION, TableProperties.MANIFEST_COMPRESSION_DEFAULT));
    String level =
        metadata.property(
            TableProperties.MANIFEST_COMPRESSION_LEVEL,
            TableProperties.MANIFEST_COMPRESSION_LEVEL_DEFAULT);
    if (level != null) {
      properties.put(TableProperties.AVRO_COMPRESSION_LEVEL, level);
    }
    return properties;
  }
}
