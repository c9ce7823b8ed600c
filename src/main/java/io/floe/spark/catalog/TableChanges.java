package io.floe.spark.catalog;

import io.floe.spark.types.SparkSchemas;
import io.floe.spark.types.VariantColumns;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.catalog.DefaultValue;
import org.apache.spark.sql.connector.catalog.TableChange;

/**
 * Applies Spark's ALTER TABLE changes to an Iceberg table in one transaction: either every change
 * lands or none does. Iceberg decides which type changes are safe widenings. ADD COLUMN ... DEFAULT
 * and ALTER COLUMN ... SET DEFAULT set Iceberg's defaults on format v3 tables ({@link
 * ColumnDefaults}).
 */
final class TableChanges {
  private TableChanges() {}

  static void apply(Table table, List<TableChange> changes) {
    Transaction transaction = table.newTransaction();
    UpdateSchema schema = null;
    UpdateProperties properties = null;
    for (TableChange change : changes) {
      if (change instanceof TableChange.SetProperty) {
        TableChange.SetProperty set = (TableChange.SetProperty) change;
        if (TableDefinition.DERIVED_PROPERTIES.contains(set.property())) {
          throw new IllegalArgumentException(
              "Cannot set property '" + set.property() + "' of " + table.name()
                  + ": it is derived from the table's state and cannot be set");
        }
        if ("location".equalsIgnoreCase(set.property())) {
          transaction.updateLocation().setLocation(set.value()).commit();
          continue;
        }
        properties = properties == null ? transaction.updateProperties() : properties;
        properties.set(set.property(), set.value());
      } else if (change instanceof TableChange.RemoveProperty) {
        properties = properties == null ? transaction.updateProperties() : properties;
        properties.remove(((TableChange.RemoveProperty) change).property());
      } else if (change instanceof TableChange.ColumnChange) {
        schema = schema == null ? transaction.updateSchema() : schema;
        applyColumnChange(table, schema, (TableChange.ColumnChange) change);
      } else {
        throw new UnsupportedOperationException(
            "Cannot alter table " + table.name() + ": unsupported change " + change);
      }
    }
    if (schema != null) {
      schema.commit();
    }
    if (properties != null) {
      properties.commit();
    }
    transaction.commitTransaction();
  }

  private static void applyColumnChange(
      Table table, UpdateSchema update, TableChange.ColumnChange change) {
    String name = String.join(".", change.fieldNames());
    if (change instanceof TableChange.AddColumn) {
      TableChange.AddColumn add = (TableChange.AddColumn) change;
      Type type = SparkSchemas.toIceberg(add.dataType());
      VariantColumns.requireSupported(
          "add column " + name + " to " + table.name(), name, type, TableUtil.formatVersion(table));
      String parent = add.fieldNames().length > 1
          ? String.join(".", Arrays.copyOf(add.fieldNames(), add.fieldNames().length - 1))
          : null;
      String leaf = add.fieldNames()[add.fieldNames().length - 1];
      Literal<?> defaultValue = null;
      if (add.defaultValue() != null) {
        String action = "add column " + name + " to " + table.name();
        ColumnDefaults.requireFormat(action, name, TableUtil.formatVersion(table));
        defaultValue =
            ColumnDefaults.constant(
                action, Types.NestedField.optional(0, name, type), add.defaultValue());
      }
      if (defaultValue != null) {
        // existing rows read the default (initial-default), so even a required column is safe
        if (add.isNullable()) {
          update.addColumn(parent, leaf, type, add.comment(), defaultValue);
        } else {
          update.addRequiredColumn(parent, leaf, type, add.comment(), defaultValue);
        }
        move(update, name, add.position());
        return;
      }
      if (!add.isNullable()) {
        // rows already written have no value for the column: a required column would make every
        // existing data file unreadable
        // Iceberg's words first: scripts written for the official runtime match on them
        throw new IllegalArgumentException(
            "Incompatible change: cannot add required column: " + name + ". Cannot add column "
                + name + " to " + table.name()
                + ": a new column must be nullable, rows already written have no value for it");
      }
      update.addColumn(parent, leaf, type, add.comment());
      move(update, name, add.position());
    } else if (change instanceof TableChange.RenameColumn) {
      update.renameColumn(name, ((TableChange.RenameColumn) change).newName());
    } else if (change instanceof TableChange.DeleteColumn) {
      TableChange.DeleteColumn delete = (TableChange.DeleteColumn) change;
      if (Boolean.TRUE.equals(delete.ifExists()) && table.schema().findField(name) == null) {
        return;
      }
      update.deleteColumn(name);
    } else if (change instanceof TableChange.UpdateColumnType) {
      Type type = SparkSchemas.toIceberg(((TableChange.UpdateColumnType) change).newDataType());
      if (!type.isPrimitiveType()) {
        throw new UnsupportedOperationException(
            "Cannot change type of column " + name + " in " + table.name()
                + ": only primitive types can be widened, not to " + type);
      }
      update.updateColumn(name, type.asPrimitiveType());
    } else if (change instanceof TableChange.UpdateColumnNullability) {
      if (((TableChange.UpdateColumnNullability) change).nullable()) {
        update.makeColumnOptional(name);
      } else {
        update.requireColumn(name);
      }
    } else if (change instanceof TableChange.UpdateColumnDefaultValue) {
      updateDefault(table, update, name, (TableChange.UpdateColumnDefaultValue) change);
    } else if (change instanceof TableChange.UpdateColumnComment) {
      update.updateColumnDoc(name, ((TableChange.UpdateColumnComment) change).newComment());
    } else if (change instanceof TableChange.UpdateColumnPosition) {
      move(update, name, ((TableChange.UpdateColumnPosition) change).position());
    } else {
      throw new UnsupportedOperationException(
          "Cannot alter column " + name + " of " + table.name() + ": unsupported change "
              + change.getClass().getSimpleName().toLowerCase(Locale.ROOT));
    }
  }

  /** ALTER COLUMN ... SET DEFAULT / DROP DEFAULT: the write default; existing rows keep theirs. */
  private static void updateDefault(
      Table table, UpdateSchema update, String name, TableChange.UpdateColumnDefaultValue change) {
    Types.NestedField field = table.schema().findField(name);
    if (field == null) {
      throw new IllegalArgumentException(
          "Cannot set the default of column " + name + " of " + table.name() + ": no such column");
    }
    String action = "set the default of column " + name + " of " + table.name();
    DefaultValue value = change.newCurrentDefault();
    if (value == null) {
      update.updateColumnDefault(name, null);
      return;
    }
    ColumnDefaults.requireFormat(action, name, TableUtil.formatVersion(table));
    update.updateColumnDefault(name, ColumnDefaults.constant(action, field, value));
  }

  private static void move(UpdateSchema update, String name, TableChange.ColumnPosition position) {
    if (position instanceof TableChange.First) {
      update.moveFirst(name);
    } else if (position instanceof TableChange.After) {
      String after = ((TableChange.After) position).column();
      int dot = name.lastIndexOf('.');
      update.moveAfter(name, dot < 0 ? after : name.substring(0, dot + 1) + after);
    }
  }
}
