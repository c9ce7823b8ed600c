package io.floe.spark.util;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * Quotes names the way Spark's identifier parser reads them back: each part in backticks, a
 * backtick inside doubled, parts joined by dots. A quoted name survives dots and backticks in
 * column names when it is handed to {@code Expressions.column} or {@code FieldReference}.
 */
public final class Identifiers {
  private Identifiers() {}

  /** One name part, quoted. */
  public static String quote(String part) {
    return "`" + part.replace("`", "``") + "`";
  }

  /**
   * The full path of a (possibly nested) column of {@code schema}, every part quoted; null when
   * the schema has no field with that id.
   *
   * @param parents each nested field's parent id, from {@code TypeUtil.indexParents}
   */
  public static String quotedPath(Schema schema, Map<Integer, Integer> parents, int fieldId) {
    Deque<String> parts = new ArrayDeque<>();
    Integer id = fieldId;
    while (id != null) {
      Types.NestedField field = schema.findField(id);
      if (field == null) {
        return null;
      }
      parts.addFirst(quote(field.name()));
      id = parents.get(id);
    }
    return String.join(".", parts);
  }
}
