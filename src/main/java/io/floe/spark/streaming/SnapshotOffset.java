package io.floe.spark.streaming;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Objects;
import org.apache.iceberg.util.JsonUtil;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * Where a stream source stands: the next data file to read is the one at {@code position} among
 * the files snapshot {@code snapshotId} added (Iceberg's {@code MicroBatches} numbering), or among
 * all its live files when {@code scanAllFiles}. Its JSON is the official runtime's ({@code
 * version}, {@code snapshot_id}, {@code position}, {@code scan_all_files}), so a checkpoint's
 * offsets read the same in both; Floe adds {@code table_uuid}, which the official runtime ignores,
 * to tell a checkpoint of another table.
 */
public final class SnapshotOffset extends Offset {
  /** Before any snapshot: the table had none (or none after the stream's start time). */
  public static final SnapshotOffset START = new SnapshotOffset(-1L, -1L, false, null);

  private static final int VERSION = 1;

  private final long snapshotId;
  private final long position;
  private final boolean scanAllFiles;
  private final String tableUuid;

  /**
   * @param tableUuid the table's UUID, or null when unknown (an offset the official runtime wrote)
   */
  public SnapshotOffset(long snapshotId, long position, boolean scanAllFiles, String tableUuid) {
    this.snapshotId = snapshotId;
    this.position = position;
    this.scanAllFiles = scanAllFiles;
    this.tableUuid = tableUuid;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public long position() {
    return position;
  }

  public boolean scanAllFiles() {
    return scanAllFiles;
  }

  public String tableUuid() {
    return tableUuid;
  }

  public boolean isStart() {
    return snapshotId == START.snapshotId && position == START.position;
  }

  /**
   * @throws IllegalArgumentException when the JSON is not an offset of version 1
   */
  public static SnapshotOffset fromJson(String json) {
    Objects.requireNonNull(json, "json is null");
    JsonNode node;
    try {
      node = JsonUtil.mapper().readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read stream offset: not JSON: " + json, e);
    }
    if (node == null || !node.isObject() || !node.has("version")) {
      throw new IllegalArgumentException("Cannot read stream offset: not a Floe or Iceberg offset: " + json);
    }
    int version = JsonUtil.getInt("version", node);
    if (version != VERSION) {
      throw new IllegalArgumentException(
          "Cannot read stream offset: version " + version + " is not supported (only " + VERSION + "): " + json);
    }
    return new SnapshotOffset(
        JsonUtil.getLong("snapshot_id", node),
        JsonUtil.getLong("position", node),
        JsonUtil.getBool("scan_all_files", node),
        node.has("table_uuid") ? JsonUtil.getString("table_uuid", node) : null);
  }

  @Override
  public String json() {
    StringWriter writer = new StringWriter();
    try (JsonGenerator generator = JsonUtil.factory().createGenerator(writer)) {
      generator.writeStartObject();
      generator.writeNumberField("version", VERSION);
      generator.writeNumberField("snapshot_id", snapshotId);
      generator.writeNumberField("position", position);
      generator.writeBooleanField("scan_all_files", scanAllFiles);
      if (tableUuid != null) {
        generator.writeStringField("table_uuid", tableUuid);
      }
      generator.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write stream offset " + this, e);
    }
    return writer.toString();
  }

  /** Offsets are equal when they stand at the same place; the table UUID is only checked. */
  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof SnapshotOffset)) {
      return false;
    }
    SnapshotOffset that = (SnapshotOffset) other;
    return snapshotId == that.snapshotId
        && position == that.position
        && scanAllFiles == that.scanAllFiles;
  }

  @Override
  public int hashCode() {
    return Objects.hash(snapshotId, position, scanAllFiles);
  }

  @Override
  public String toString() {
    return "SnapshotOffset{snapshot=" + snapshotId + ", position=" + position
        + (scanAllFiles ? ", all files" : "") + "}";
  }
}
