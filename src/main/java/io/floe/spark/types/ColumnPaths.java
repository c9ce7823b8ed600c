package io.floe.spark.types;

/**
 * Builds the dotted column paths used in error messages, with Iceberg's names for the parts of a
 * list ({@code element}) and a map ({@code key}, {@code value}).
 */
final class ColumnPaths {
  private ColumnPaths() {}

  static String child(String parent, String name) {
    return parent.isEmpty() ? name : parent + "." + name;
  }

  static String element(String list) {
    return child(list, "element");
  }

  static String key(String map) {
    return child(map, "key");
  }

  static String value(String map) {
    return child(map, "value");
  }

  /** Describes a value's place for a message: the column when there is one, else just the type. */
  static String describe(String path, String typeName) {
    return path.isEmpty()
        ? "type " + typeName
        : "column '" + path + "' of type " + typeName;
  }
}
