package io.floe.spark.procedures;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.catalyst.analysis.AnsiTypeCoercion$;
import org.apache.spark.sql.catalyst.analysis.TypeCoercion$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal$;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * Checks the arguments of a CALL against a procedure's parameters when Spark binds it, before
 * anything runs: too many positional arguments, an unknown or repeated name, and a missing required
 * argument each fail naming the argument and the procedure, and so does an argument whose type
 * Spark cannot implicitly cast to its parameter's (the same rule Spark then applies to cast it). A
 * value that has a castable type but does not convert ({@code snapshot_id => 'abc'}) fails later,
 * in Spark's cast, with Spark's message naming the value.
 */
final class ArgumentBinding {
  private ArgumentBinding() {}

  static void check(String procedure, ProcedureParameter[] parameters, StructType input) {
    Map<String, ProcedureParameter> byName = new HashMap<>();
    for (ProcedureParameter parameter : parameters) {
      byName.put(parameter.name().toLowerCase(Locale.ROOT), parameter);
    }
    Map<String, Boolean> given = new HashMap<>();
    StructField[] fields = input.fields();
    for (int i = 0; i < fields.length; i++) {
      StructField field = fields[i];
      ProcedureParameter parameter;
      if (isByName(field)) {
        parameter = byName.get(field.name().toLowerCase(Locale.ROOT));
        if (parameter == null) {
          throw new IllegalArgumentException(
              "Cannot call "
                  + procedure
                  + ": unknown argument '"
                  + field.name()
                  + "'; its arguments are "
                  + names(parameters));
        }
      } else if (i < parameters.length) {
        parameter = parameters[i];
      } else {
        throw new IllegalArgumentException(
            "Cannot call "
                + procedure
                + ": it takes at most "
                + parameters.length
                + " arguments ("
                + names(parameters)
                + "), got "
                + fields.length);
      }
      if (given.put(parameter.name(), true) != null) {
        throw new IllegalArgumentException(
            "Cannot call " + procedure + ": argument '" + parameter.name() + "' is given twice");
      }
      if (!castable(field.dataType(), parameter.dataType())) {
        throw new IllegalArgumentException(
            "Cannot call "
                + procedure
                + ": argument '"
                + parameter.name()
                + "' must be "
                + parameter.dataType().sql()
                + ", not "
                + field.dataType().sql());
      }
    }
    for (ProcedureParameter parameter : parameters) {
      if (Parameters.isRequired(parameter) && !given.containsKey(parameter.name())) {
        throw new IllegalArgumentException(
            "Cannot call "
                + procedure
                + ": missing required argument '"
                + parameter.name()
                + "' ("
                + parameter.dataType().sql()
                + ")");
      }
    }
  }

  /**
   * Whether Spark's argument coercion (ANSI or not, as the session says) casts one to the other.
   */
  private static boolean castable(DataType from, DataType to) {
    Expression value = Literal$.MODULE$.create(null, from);
    Option<Expression> cast =
        SQLConf.get().ansiEnabled()
            ? AnsiTypeCoercion$.MODULE$.implicitCast(value, to)
            : TypeCoercion$.MODULE$.implicitCast(value, to);
    return cast.isDefined();
  }

  private static boolean isByName(StructField field) {
    return field.metadata().contains(ProcedureParameter.BY_NAME_METADATA_KEY)
        && field.metadata().getBoolean(ProcedureParameter.BY_NAME_METADATA_KEY);
  }

  private static String names(ProcedureParameter[] parameters) {
    return Stream.of(parameters).map(ProcedureParameter::name).collect(Collectors.joining(", "));
  }
}
