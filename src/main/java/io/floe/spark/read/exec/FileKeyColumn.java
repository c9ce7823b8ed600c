package io.floe.spark.read.exec;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.iceberg.types.Types;

/**
 * Floe's metadata column {@code _floe_file_key}: a 64-bit key of the location of the data file a row
 * was read from (the first eight bytes of the location's SHA-256).
 *
 * <p>It exists so that a copy-on-write MERGE need not carry {@code _file}. Spark carries every
 * metadata column a MERGE asks for through its join of target and source and through the write's
 * shuffle, for every target row; a location is about 150 bytes, the key 8. The MERGE's runtime
 * group filter only has to name the files to rewrite, and a key names them: two files with one key
 * (a chance of about n² / 2⁶⁵ for n files) only make the MERGE rewrite a file it need not, whose
 * rows it copies unchanged. The key is therefore never a row's identity: merge-on-read writes
 * still carry {@code _file}.
 *
 * <p>Readers serve it as a per-file constant, like {@code _file}.
 */
public final class FileKeyColumn {
  /** The column's name, as Spark and users see it. */
  public static final String NAME = "_floe_file_key";

  /** The column's Iceberg field id, beside Iceberg's own reserved metadata ids. */
  public static final int FIELD_ID = Integer.MAX_VALUE - 1001;

  /** The column as an Iceberg field, for read schemas. */
  public static final Types.NestedField FIELD =
      Types.NestedField.required(
          FIELD_ID, NAME, Types.LongType.get(), "Key of the location of the row's data file");

  private FileKeyColumn() {}

  /** The key of a data file's location. */
  public static long of(String location) {
    byte[] digest;
    try {
      digest =
          MessageDigest.getInstance("SHA-256").digest(location.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot key file " + location + ": no SHA-256 in this JVM", e);
    }
    long key = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      key = (key << 8) | (digest[i] & 0xFF);
    }
    return key;
  }

  /** Whether a column name is this column's. */
  public static boolean named(String name, boolean caseSensitive) {
    return caseSensitive ? NAME.equals(name) : NAME.equalsIgnoreCase(name);
  }
}
