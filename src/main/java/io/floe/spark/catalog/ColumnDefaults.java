package io.floe.spark.catalog;

import io.floe.spark.types.DefaultLiterals;
import io.floe.spark.types.SparkSchemas;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.ColumnDefaultValue;
import org.apache.spark.sql.connector.catalog.DefaultValue;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.LiteralValue;
import org.apache.spark.sql.types.DataType;

/**
 * Column DEFAULT values between Spark's DDL and Iceberg's schema. A DEFAULT of CREATE TABLE or ADD
 * COLUMN becomes both the field's {@code initial-default} (what rows written before the column
 * existed read) and its {@code write-default} (what an INSERT that leaves the column out writes);
 * ALTER COLUMN ... SET DEFAULT changes the write default only, as Iceberg's {@code
 * updateColumnDefault} does. Defaults need format version 3.
 *
 * <p>Iceberg keeps a default as a value, so only constant DEFAULT expressions are taken: {@code
 * DEFAULT current_date()} would otherwise be frozen to the day of the DDL and is refused.
 */
final class ColumnDefaults {
  /** The first Iceberg format version with default values. */
  static final int MIN_FORMAT_VERSION = 3;

  private ColumnDefaults() {}

  /** Whether any column of a CREATE or REPLACE TABLE has a DEFAULT. */
  static boolean anyDefault(Column[] columns) {
    for (Column column : columns) {
      if (column.defaultValue() != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * The schema of a new table with the columns' DEFAULTs as initial and write defaults.
   *
   * @throws IllegalArgumentException naming the column when a DEFAULT is not a constant or not a
   *     value of the column's type
   */
  static Schema withDefaults(String tableName, Schema schema, Column[] columns) {
    List<Types.NestedField> fields = new ArrayList<>(schema.columns());
    for (int i = 0; i < columns.length; i++) {
      ColumnDefaultValue value = columns[i].defaultValue();
      if (value == null) {
        continue;
      }
      Types.NestedField field = fields.get(i);
      org.apache.iceberg.expressions.Literal<?> literal =
          constant("create table " + tableName, field, value);
      fields.set(
          i,
          Types.NestedField.from(field).withInitialDefault(literal).withWriteDefault(literal).build());
    }
    return new Schema(fields);
  }

  /**
   * The Iceberg literal of a constant DEFAULT for a field.
   *
   * @param action what the statement does, for messages ("add column c to t")
   * @throws IllegalArgumentException naming the column when the DEFAULT is not a constant or not a
   *     value of the field's type
   */
  static org.apache.iceberg.expressions.Literal<?> constant(String action, Types.NestedField field, DefaultValue value) {
    // a connector Literal (booleans come as AlwaysTrue / AlwaysFalse, which are Literals too)
    if (!(value.getExpression() instanceof Literal<?> literal)) {
      throw new IllegalArgumentException(
          "Cannot " + action + ": the DEFAULT of column " + field.name() + " (" + value.getSql()
              + ") is not a constant; Iceberg stores a default as a value, so it would be frozen "
              + "to the value it has now");
    }
    if (literal.value() == null) {
      return null;
    }
    return DefaultLiterals.toIceberg(field.name(), literal.value(), field.type());
  }

  /** Refuses a DEFAULT on a table of a format version without default values. */
  static void requireFormat(String action, String column, int formatVersion) {
    if (formatVersion < MIN_FORMAT_VERSION) {
      throw new IllegalArgumentException(
          "Cannot " + action + ": column " + column + " has a DEFAULT, and default values need "
              + "Iceberg format version " + MIN_FORMAT_VERSION + " (the table is v" + formatVersion
              + "; set TBLPROPERTIES ('format-version'='3'))");
    }
  }

  /**
   * Spark's columns of a schema: each top-level field with a write default carries it as its
   * DEFAULT (what Spark's INSERT fills in for the omitted column), with the initial default as the
   * value existing rows have.
   */
  static Column[] columns(Schema schema) {
    List<Types.NestedField> fields = schema.columns();
    Column[] columns = new Column[fields.size()];
    for (int i = 0; i < columns.length; i++) {
      Types.NestedField field = fields.get(i);
      DataType type = SparkSchemas.toSpark(field.type());
      ColumnDefaultValue defaultValue = null;
      if (field.writeDefault() != null) {
        LiteralValue<?> write = DefaultLiterals.toSpark(field, field.writeDefault());
        LiteralValue<?> initial =
            field.initialDefault() == null
                ? null
                : DefaultLiterals.toSpark(field, field.initialDefault());
        defaultValue = new ColumnDefaultValue(DefaultLiterals.sql(write), write, initial);
      }
      columns[i] = Column.create(field.name(), type, field.isOptional(), field.doc(), defaultValue, null);
    }
    return columns;
  }
}
