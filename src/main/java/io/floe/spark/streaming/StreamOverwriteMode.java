package io.floe.spark.streaming;

import io.floe.spark.read.StreamingReadOptionNames;
import java.util.Locale;

/**
 * What a stream source does with an {@code overwrite} snapshot (copy-on-write or merge-on-read
 * DML, INSERT OVERWRITE), from the read option {@value
 * StreamingReadOptionNames#STREAMING_OVERWRITE_MODE}.
 */
public enum StreamOverwriteMode {
  /**
   * The official runtime's behaviour: the snapshot fails the stream, or is passed over with
   * {@value StreamingReadOptionNames#SKIP_OVERWRITE_SNAPSHOTS}.
   */
  NONE(StreamingReadOptionNames.OVERWRITE_MODE_NONE),
  /**
   * The stream reads the rows of the data files the snapshot added, as it reads an append's; the
   * rows it deleted are not emitted.
   */
  ADDED_ROWS(StreamingReadOptionNames.OVERWRITE_MODE_ADDED_ROWS);

  private final String value;

  StreamOverwriteMode(String value) {
    this.value = value;
  }

  /** The option value that selects this mode. */
  public String value() {
    return value;
  }

  /**
   * The mode a value names, ignoring case and surrounding blanks.
   *
   * @throws IllegalArgumentException naming the option and the allowed values for any other value
   */
  static StreamOverwriteMode parse(String tableName, String given) {
    String wanted = given.trim().toLowerCase(Locale.ROOT);
    for (StreamOverwriteMode mode : values()) {
      if (mode.value.equals(wanted)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "Cannot read " + tableName + " as a stream: option '"
            + StreamingReadOptionNames.STREAMING_OVERWRITE_MODE + "' must be '"
            + NONE.value + "' or '" + ADDED_ROWS.value + "', not '" + given + "'");
  }
}
