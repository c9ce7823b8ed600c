package io.floe.spark.types;

import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * The format-version rule of Iceberg's {@code variant} type: only format version 3 tables store it.
 * DDL checks a new table's schema and an added column here before anything is created or
 * committed, so a v2 table refuses a variant column with a message that names the column and the
 * format version, instead of Iceberg's later schema-compatibility failure.
 */
public final class VariantColumns {
  /** The first Iceberg format version with the variant type. */
  public static final int MIN_FORMAT_VERSION = 3;

  private VariantColumns() {}

  /**
   * Refuses a schema with a variant column, at any depth, on a table of an older format version.
   *
   * @param action what is refused, as in "create table db.t"
   * @throws IllegalArgumentException naming the first variant column and both format versions
   */
  public static void requireSupported(String action, Schema schema, int formatVersion) {
    Objects.requireNonNull(action, "action is null");
    Objects.requireNonNull(schema, "schema is null");
    if (formatVersion >= MIN_FORMAT_VERSION) {
      return;
    }
    for (Types.NestedField field : TypeUtil.indexById(schema.asStruct()).values()) {
      if (field.type().isVariantType()) {
        throw refused(action, schema.findColumnName(field.fieldId()), formatVersion);
      }
    }
  }

  /**
   * Refuses a column of type {@code type} (or with a variant nested in it) on a table of an older
   * format version.
   *
   * @param column the column's full name
   * @throws IllegalArgumentException naming the column and both format versions
   */
  public static void requireSupported(String action, String column, Type type, int formatVersion) {
    Objects.requireNonNull(action, "action is null");
    Objects.requireNonNull(type, "type is null");
    if (formatVersion >= MIN_FORMAT_VERSION) {
      return;
    }
    if (containsVariant(type)) {
      throw refused(action, column, formatVersion);
    }
  }

  private static boolean containsVariant(Type type) {
    if (type.isVariantType()) {
      return true;
    }
    if (type.isNestedType()) {
      for (Types.NestedField field : type.asNestedType().fields()) {
        if (containsVariant(field.type())) {
          return true;
        }
      }
    }
    return false;
  }

  private static IllegalArgumentException refused(String action, String column, int formatVersion) {
    return new IllegalArgumentException(
        "Cannot " + action + ": column " + column + " has type variant, which needs Iceberg format "
            + "version " + MIN_FORMAT_VERSION + " (the table is v" + formatVersion
            + "; set TBLPROPERTIES ('format-version'='3'))");
  }
}
