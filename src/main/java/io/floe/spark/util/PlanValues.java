package io.floe.spark.util;

import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.FileIO;

/**
 * Equality, hashing and display for the Iceberg values that plan pieces carry but that do not
 * define value equality themselves (schemas, FileIO).
 */
public final class PlanValues {
  private PlanValues() {}

  public static int schemaHash(Schema schema) {
    return schema == null ? 0 : schema.asStruct().hashCode();
  }

  public static boolean sameSpec(PartitionSpec left, PartitionSpec right) {
    return left == right
        || (left != null && right != null && left.specId() == right.specId() && left.compatibleWith(right));
  }

  /** FileIO instances are equal when they are of one class with the same properties. */
  public static boolean sameIo(FileIO left, FileIO right) {
    if (left == right) {
      return true;
    }
    return left != null
        && right != null
        && left.getClass().equals(right.getClass())
        && Objects.equals(ioProperties(left), ioProperties(right));
  }

  public static int ioHash(FileIO io) {
    return io == null ? 0 : Objects.hash(io.getClass().getName(), ioProperties(io));
  }

  /** The FileIO's properties, or an empty map for an implementation that does not expose them. */
  public static Map<String, String> ioProperties(FileIO io) {
    try {
      Map<String, String> properties = io.properties();
      return properties == null ? Map.of() : properties;
    } catch (UnsupportedOperationException e) {
      return Map.of();
    }
  }

  /** A readable, secret-free description of a FileIO. */
  public static String describeIo(FileIO io) {
    return io == null
        ? "null"
        : io.getClass().getSimpleName() + Redaction.redact(ioProperties(io));
  }
}
