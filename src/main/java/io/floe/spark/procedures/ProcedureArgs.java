package io.floe.spark.procedures;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * The arguments of one call, read by parameter. Spark hands them over in the order of the declared
 * parameters, already cast to the declared types, with NULL for every optional one left out.
 * Reading a required argument that is NULL, or a map with a key the procedure does not know, fails
 * naming the argument or the key. Reading a parameter with the accessor of another type is a bug in
 * the procedure and fails as one.
 */
final class ProcedureArgs {
  private final String procedure;
  private final Map<String, Integer> ordinals;
  private final Map<String, ProcedureParameter> parameters;
  private final InternalRow row;

  ProcedureArgs(String procedure, ProcedureParameter[] declared, InternalRow row) {
    this.procedure = Objects.requireNonNull(procedure, "procedure is null");
    this.row = Objects.requireNonNull(row, "row is null");
    this.ordinals = new HashMap<>();
    this.parameters = new HashMap<>();
    for (int i = 0; i < declared.length; i++) {
      ordinals.put(declared[i].name(), i);
      parameters.put(declared[i].name(), declared[i]);
    }
  }

  String string(ProcedureParameter parameter) {
    return required(parameter, optionalString(parameter));
  }

  String optionalString(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, DataTypes.StringType);
    return row.isNullAt(ordinal) ? null : row.getUTF8String(ordinal).toString();
  }

  long longValue(ProcedureParameter parameter) {
    return required(parameter, optionalLong(parameter));
  }

  Long optionalLong(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, DataTypes.LongType);
    return row.isNullAt(ordinal) ? null : row.getLong(ordinal);
  }

  Integer optionalInt(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, DataTypes.IntegerType);
    return row.isNullAt(ordinal) ? null : row.getInt(ordinal);
  }

  Boolean optionalBoolean(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, DataTypes.BooleanType);
    return row.isNullAt(ordinal) ? null : row.getBoolean(ordinal);
  }

  /** A TIMESTAMP argument in milliseconds since the epoch (Spark's microseconds, truncated). */
  long timestampMillis(ProcedureParameter parameter) {
    return required(parameter, optionalTimestampMillis(parameter));
  }

  Long optionalTimestampMillis(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, DataTypes.TimestampType);
    return row.isNullAt(ordinal)
        ? null
        : Math.floorDiv(row.getLong(ordinal), TimeUnit.MILLISECONDS.toMicros(1));
  }

  /**
   * An ARRAY&lt;BIGINT&gt; argument; null when not given. A NULL element fails naming the argument.
   */
  List<Long> optionalLongList(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, Parameters.LONG_ARRAY);
    if (row.isNullAt(ordinal)) {
      return null;
    }
    ArrayData array = row.getArray(ordinal);
    List<Long> values = new ArrayList<>(array.numElements());
    for (int i = 0; i < array.numElements(); i++) {
      if (array.isNullAt(i)) {
        throw invalid(parameter, "contains NULL");
      }
      values.add(array.getLong(i));
    }
    return Collections.unmodifiableList(values);
  }

  /**
   * An ARRAY&lt;STRING&gt; argument; null when not given. A NULL element fails naming the argument.
   */
  List<String> optionalStringList(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, Parameters.STRING_ARRAY);
    if (row.isNullAt(ordinal)) {
      return null;
    }
    ArrayData array = row.getArray(ordinal);
    List<String> values = new ArrayList<>(array.numElements());
    for (int i = 0; i < array.numElements(); i++) {
      if (array.isNullAt(i)) {
        throw invalid(parameter, "contains NULL");
      }
      values.add(array.getUTF8String(i).toString());
    }
    return Collections.unmodifiableList(values);
  }

  /**
   * A MAP&lt;STRING, STRING&gt; of options, empty when not given. Keys are matched
   * case-insensitively against the known ones and returned in lower case.
   *
   * @throws IllegalArgumentException naming the first unknown key and listing the known ones, or
   *     naming a key whose value is NULL
   */
  Map<String, String> options(ProcedureParameter parameter, Set<String> knownKeys) {
    int ordinal = ordinal(parameter, Parameters.STRING_MAP);
    if (row.isNullAt(ordinal)) {
      return Map.of();
    }
    MapData map = row.getMap(ordinal);
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < map.numElements(); i++) {
      String key = map.keyArray().getUTF8String(i).toString();
      String normalized = key.toLowerCase(Locale.ROOT);
      if (!knownKeys.contains(normalized)) {
        throw invalid(
            parameter,
            "has an unknown key '"
                + key
                + "'; known keys: "
                + String.join(", ", new TreeSet<>(knownKeys)));
      }
      if (map.valueArray().isNullAt(i)) {
        throw invalid(parameter, "has a NULL value for key '" + key + "'");
      }
      options.put(normalized, map.valueArray().getUTF8String(i).toString());
    }
    return Collections.unmodifiableMap(options);
  }

  /**
   * A MAP&lt;STRING, STRING&gt; argument with free keys, as given; empty when not given. A NULL
   * value fails naming the argument and the key.
   */
  Map<String, String> anyOptions(ProcedureParameter parameter) {
    int ordinal = ordinal(parameter, Parameters.STRING_MAP);
    if (row.isNullAt(ordinal)) {
      return Map.of();
    }
    MapData map = row.getMap(ordinal);
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < map.numElements(); i++) {
      String key = map.keyArray().getUTF8String(i).toString();
      if (map.valueArray().isNullAt(i)) {
        throw invalid(parameter, "has a NULL value for key '" + key + "'");
      }
      values.put(key, map.valueArray().getUTF8String(i).toString());
    }
    return Collections.unmodifiableMap(values);
  }

  /** A failure naming the procedure and the argument. */
  IllegalArgumentException invalid(ProcedureParameter parameter, String why) {
    return new IllegalArgumentException(
        "Cannot call " + procedure + ": argument '" + parameter.name() + "' " + why);
  }

  private <T> T required(ProcedureParameter parameter, T value) {
    if (value == null) {
      throw invalid(parameter, "is required and must not be NULL");
    }
    return value;
  }

  private int ordinal(ProcedureParameter parameter, DataType type) {
    Integer ordinal = ordinals.get(parameter.name());
    if (ordinal == null || parameters.get(parameter.name()) != parameter) {
      throw new IllegalStateException(
          "Parameter " + parameter.name() + " is not a parameter of " + procedure);
    }
    if (!parameter.dataType().sameType(type)) {
      throw new IllegalStateException(
          "Parameter "
              + parameter.name()
              + " of "
              + procedure
              + " is "
              + parameter.dataType().catalogString()
              + ", not "
              + type.catalogString());
    }
    return ordinal;
  }
}
