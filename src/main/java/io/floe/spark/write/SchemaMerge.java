package io.floe.spark.write;

import io.floe.spark.types.SparkSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Plans the schema of a {@code merge-schema} write on the driver, without committing anything: the
 * table's schema with the data's new columns added (at the end, optional) and its widened types
 * applied (int to bigint, float to double, a decimal's precision), as Iceberg's {@code
 * UpdateSchema.unionByNameWith} merges them. The write's files are written with that schema; the
 * same change is committed with the data, in one commit ({@code Committer.commit(request,
 * schema)}).
 *
 * <p>A column the table requires stays required. The data must have the table's columns in the
 * table's order, followed by its new columns: rows are written as they come, column by column.
 */
final class SchemaMerge {
  private SchemaMerge() {}

  /**
   * The table as the write sees it: a view of its metadata with the merged schema (never
   * committed).
   *
   * @throws IllegalArgumentException naming the column when a change is no allowed widening (a
   *     string column given ints, a narrowed decimal, ...), or when the data's columns are not the
   *     table's in order followed by new ones
   */
  static Table plan(Table table, StructType input, boolean caseSensitive) {
    Transaction planned = table.newTransaction();
    try {
      planned
          .updateSchema()
          .caseSensitive(caseSensitive)
          .unionByNameWith(SparkSchemas.toIceberg(keepRequired(table.schema(), input, caseSensitive)))
          .commit();
    } catch (IllegalArgumentException | IllegalStateException | ValidationException e) {
      throw new IllegalArgumentException(
          "Cannot write to " + table.name() + " with " + WriteOptions.MERGE_SCHEMA + ": " + e.getMessage(), e);
    }
    Schema merged = planned.table().schema();
    List<String> expected =
        merged.columns().stream().map(Types.NestedField::name).collect(Collectors.toList());
    List<String> given = new ArrayList<>();
    for (StructField field : input.fields()) {
      given.add(field.name());
    }
    if (!sameNames(expected, given, caseSensitive)) {
      throw new IllegalArgumentException(
          "Cannot write to " + table.name() + " with " + WriteOptions.MERGE_SCHEMA
              + ": the data's columns " + given + " must be the table's columns in order, followed by"
              + " the new ones: " + expected);
    }
    return planned.table();
  }

  /** The input with the table's required top-level columns kept required, so a merge never relaxes them. */
  private static StructType keepRequired(Schema schema, StructType input, boolean caseSensitive) {
    StructField[] fields = input.fields().clone();
    for (int i = 0; i < fields.length; i += 1) {
      Types.NestedField column =
          caseSensitive ? schema.findField(fields[i].name()) : schema.caseInsensitiveFindField(fields[i].name());
      if (column != null && column.isRequired() && fields[i].nullable()) {
        fields[i] = new StructField(fields[i].name(), fields[i].dataType(), false, fields[i].metadata());
      }
    }
    return new StructType(fields);
  }

  private static boolean sameNames(List<String> expected, List<String> given, boolean caseSensitive) {
    if (expected.size() != given.size()) {
      return false;
    }
    for (int i = 0; i < expected.size(); i += 1) {
      String want = caseSensitive ? expected.get(i) : expected.get(i).toLowerCase(Locale.ROOT);
      String got = caseSensitive ? given.get(i) : given.get(i).toLowerCase(Locale.ROOT);
      if (!want.equals(got)) {
        return false;
      }
    }
    return true;
  }
}
