package io.floe.spark.procedures;

import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Declares procedure parameters the way the official runtime does: required, or NULL by default.
 */
final class Parameters {
  static final DataType STRING_ARRAY = DataTypes.createArrayType(DataTypes.StringType);
  static final DataType LONG_ARRAY = DataTypes.createArrayType(DataTypes.LongType);
  static final DataType STRING_MAP =
      DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType);

  private Parameters() {}

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
