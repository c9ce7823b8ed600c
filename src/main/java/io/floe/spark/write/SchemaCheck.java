package io.floe.spark.write;

import io.floe.spark.types.SparkSchemas;
import java.util.Locale;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Checks, on the driver, that the rows Spark will hand the writers line up with the table: the same
 * number of columns with the same types, position by position. As in the official runtime, {@code
 * check-ordering} (default true) also requires each column, and each nested struct field, to carry
 * the name of the table's at its position, and {@code check-nullability} (default true) refuses
 * input that may hold NULL where the table's column, struct field, list element or map value is
 * required. With {@code check-nullability=false} such input is planned, and each row is still
 * checked as it is written: a NULL in a required column fails the write.
 */
final class SchemaCheck {
  private SchemaCheck() {}

  static void check(
      String tableName,
      Schema tableSchema,
      StructType input,
      boolean checkNullability,
      boolean checkOrdering) {
    StructType expected = SparkSchemas.toSpark(tableSchema);
    if (expected.fields().length != input.fields().length) {
      throw new IllegalArgumentException(
          String.format(
              "Cannot write to %s: the table has %d columns but the data has %d (%s)",
              tableName, expected.fields().length, input.fields().length, input.simpleString()));
    }
    for (int i = 0; i < expected.fields().length; i += 1) {
      StructField want = expected.fields()[i];
      StructField got = input.fields()[i];
      if (!sameType(want.dataType(), got.dataType())) {
        throw new IllegalArgumentException(
            String.format(
                "Cannot write to %s: column '%s' is %s but the data's column '%s' is %s",
                tableName, want.name(), want.dataType().simpleString(), got.name(),
                got.dataType().simpleString()));
      }
    }
    if (checkOrdering) {
      checkNames(tableName, "", expected, input);
    }
    if (checkNullability) {
      checkNulls(tableName, "", expected, input);
    }
  }

  /** Same type, ignoring nullability and comments. */
  private static boolean sameType(DataType want, DataType got) {
    if (want instanceof StructType && got instanceof StructType) {
      StructField[] wantFields = ((StructType) want).fields();
      StructField[] gotFields = ((StructType) got).fields();
      if (wantFields.length != gotFields.length) {
        return false;
      }
      for (int i = 0; i < wantFields.length; i += 1) {
        if (!sameType(wantFields[i].dataType(), gotFields[i].dataType())) {
          return false;
        }
      }
      return true;
    }
    if (want instanceof ArrayType && got instanceof ArrayType) {
      return sameType(((ArrayType) want).elementType(), ((ArrayType) got).elementType());
    }
    if (want instanceof MapType && got instanceof MapType) {
      return sameType(((MapType) want).keyType(), ((MapType) got).keyType())
          && sameType(((MapType) want).valueType(), ((MapType) got).valueType());
    }
    return want.equals(got);
  }

  /** Struct fields carry the table's names position by position (types already match). */
  private static void checkNames(String tableName, String path, DataType want, DataType got) {
    if (want instanceof StructType) {
      StructField[] wantFields = ((StructType) want).fields();
      StructField[] gotFields = ((StructType) got).fields();
      for (int i = 0; i < wantFields.length; i += 1) {
        String name = path + wantFields[i].name();
        if (!wantFields[i].name().toLowerCase(Locale.ROOT)
            .equals(gotFields[i].name().toLowerCase(Locale.ROOT))) {
          throw new IllegalArgumentException(
              String.format(
                  "Cannot write to %s: column '%s' is out of order: the data has '%s' in its place"
                      + " (option '%s'=false skips this check)",
                  tableName, name, path + gotFields[i].name(), WriteOptions.CHECK_ORDERING));
        }
        checkNames(tableName, name + ".", wantFields[i].dataType(), gotFields[i].dataType());
      }
    } else if (want instanceof ArrayType) {
      checkNames(
          tableName, path + "element.", ((ArrayType) want).elementType(),
          ((ArrayType) got).elementType());
    } else if (want instanceof MapType) {
      checkNames(tableName, path + "key.", ((MapType) want).keyType(), ((MapType) got).keyType());
      checkNames(
          tableName, path + "value.", ((MapType) want).valueType(), ((MapType) got).valueType());
    }
  }

  /** Input that may hold NULL goes nowhere the table requires a value (types already match). */
  private static void checkNulls(String tableName, String path, DataType want, DataType got) {
    if (want instanceof StructType) {
      StructField[] wantFields = ((StructType) want).fields();
      StructField[] gotFields = ((StructType) got).fields();
      for (int i = 0; i < wantFields.length; i += 1) {
        String name = path + wantFields[i].name();
        if (!wantFields[i].nullable() && gotFields[i].nullable()) {
          throw nullable(tableName, name);
        }
        checkNulls(tableName, name + ".", wantFields[i].dataType(), gotFields[i].dataType());
      }
    } else if (want instanceof ArrayType) {
      ArrayType wantArray = (ArrayType) want;
      ArrayType gotArray = (ArrayType) got;
      if (!wantArray.containsNull() && gotArray.containsNull()) {
        throw nullable(tableName, path + "element");
      }
      checkNulls(tableName, path + "element.", wantArray.elementType(), gotArray.elementType());
    } else if (want instanceof MapType) {
      MapType wantMap = (MapType) want;
      MapType gotMap = (MapType) got;
      if (!wantMap.valueContainsNull() && gotMap.valueContainsNull()) {
        throw nullable(tableName, path + "value");
      }
      checkNulls(tableName, path + "key.", wantMap.keyType(), gotMap.keyType());
      checkNulls(tableName, path + "value.", wantMap.valueType(), gotMap.valueType());
    }
  }

  private static IllegalArgumentException nullable(String tableName, String column) {
    return new IllegalArgumentException(
        String.format(
            "Cannot write to %s: column '%s' is required but the data's may be NULL"
                + " (option '%s'=false checks each row instead)",
            tableName, column, WriteOptions.CHECK_NULLABILITY));
  }
}
