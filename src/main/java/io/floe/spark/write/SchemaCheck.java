package io.floe.spark.write;

import io.floe.spark.types.SparkSchemas;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/** Checks, on the driver, that the rows Spark will hand the writers line up with the table. */
final class SchemaCheck {
  private SchemaCheck() {}

  static void check(String tableName, Schema tableSchema, StructType input) {
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
  }

  /** Same type, ignoring nullability (checked per row) and comments. */
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
}
