package io.floe.spark.procedures;

import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.Metadata;

/**
 * Declares procedure parameters the way the official runtime does: required, or NULL by default.
 */
final class Parameters {
  static final DataType STRING_ARRAY = DataTypes.createArrayType(DataTypes.StringType);
  static final DataType LONG_ARRAY = DataTypes.createArrayType(DataTypes.LongType);
  static final DataType STRING_MAP =
      DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType);

  /** The {@code table} argument every procedure takes first: the table's name in this catalog. */
  static final ProcedureParameter TABLE = required("table", DataTypes.StringType);

  private Parameters() {}

  /** An output schema of the given columns. */
  static StructType output(StructField... columns) {
    return new StructType(columns);
  }

  /** One output column. */
  static StructField column(String name, DataType type, boolean nullable) {
    return new StructField(name, type, nullable, Metadata.empty());
  }

  /** A parameter every call must give. */
  static ProcedureParameter required(String name, DataType type) {
    return ProcedureParameter.in(name, type).build();
  }

  /** A parameter that is NULL when the call leaves it out. */
  static ProcedureParameter optional(String name, DataType type) {
    return ProcedureParameter.in(name, type).defaultValue("NULL").build();
  }

  static boolean isRequired(ProcedureParameter parameter) {
    return parameter.defaultValue() == null;
  }
}
