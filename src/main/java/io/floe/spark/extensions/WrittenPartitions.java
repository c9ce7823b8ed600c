package io.floe.spark.extensions;

import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The partition of a written spec that a file's rows land in, told from the file's own partition
 * alone: it is what {@link InsertInPlace} packs the scan by when the rows of a write come from
 * files of another, finer spec.
 *
 * <p>It carries, for each field of the written spec, the position of the file's partition field it
 * is derived from and how. A written field derives from a read field of the same column (of the
 * same Iceberg type) when every value of the read field falls in one value of the written one:
 *
 * <ul>
 *   <li>the same transform;
 *   <li>a read {@code identity}: the written transform of the value itself;
 *   <li>{@code bucket[N]} to {@code bucket[M]} where M divides N: a hash modulo N, modulo M;
 *   <li>{@code truncate[W]} to {@code truncate[V]} where W divides V for numbers, and V is at most W
 *       for strings and binary: truncating the truncated value;
 *   <li>{@code hour}, {@code day} or {@code month} to a coarser one of these or {@code year}.
 * </ul>
 *
 * <p>The read spec may have more fields than the written one; a written field that derives from
 * none (a finer or unrelated transform, another column, a {@code void} field) has no derivation.
 */
final class WrittenPartitions implements Function<FileScanTask, Object> {
  private static final List<String> TIME_UNITS = List.of("hour", "day", "month", "year");

  private final int[] positions;
  private final List<UnaryOperator<Object>> derivations;

  private WrittenPartitions(int[] positions, List<UnaryOperator<Object>> derivations) {
    this.positions = positions;
    this.derivations = derivations;
  }

  /**
   * The derivation of every field of {@code written} from the fields of {@code read}; empty when a
   * written field derives from none.
   *
   * @param readColumns for each field of {@code written}, the read table's column its source column
   *     is read from, or null when it is not a column of that table
   */
  static Optional<WrittenPartitions> of(
      PartitionSpec written, List<Types.NestedField> readColumns, PartitionSpec read) {
    int[] positions = new int[written.fields().size()];
    List<UnaryOperator<Object>> derivations = new ArrayList<>(positions.length);
    for (int i = 0; i < positions.length; i++) {
      PartitionField field = written.fields().get(i);
      Types.NestedField column = readColumns.get(i);
      Type type = written.schema().findType(field.sourceId());
      if (column == null || !column.type().equals(type)) {
        return Optional.empty();
      }
      positions[i] = -1;
      for (int position = 0; position < read.fields().size() && positions[i] < 0; position++) {
        PartitionField candidate = read.fields().get(position);
        if (candidate.sourceId() != column.fieldId()) {
          continue;
        }
        Optional<UnaryOperator<Object>> derivation =
            derivation(candidate.transform(), field.transform(), type);
        if (derivation.isPresent()) {
          positions[i] = position;
          derivations.add(derivation.get());
        }
      }
      if (positions[i] < 0) {
        return Optional.empty();
      }
    }
    return Optional.of(new WrittenPartitions(positions, derivations));
  }

  /** The written partition of the task's rows: one value per written field. */
  @Override
  public Object apply(FileScanTask task) {
    StructLike partition = task.partition();
    List<Object> key = new ArrayList<>(positions.length);
    for (int i = 0; i < positions.length; i++) {
      Object value = derivations.get(i).apply(partition.get(positions[i], Object.class));
      // strings may come as Avro's Utf8 from one manifest and as String from another
      key.add(value instanceof CharSequence chars ? chars.toString() : value);
    }
    return key;
  }

  /** How a value of {@code read} gives the value of {@code written}, when it does. */
  static Optional<UnaryOperator<Object>> derivation(
      Transform<?, ?> read, Transform<?, ?> written, Type type) {
    if (read.isVoid() || written.isVoid()) {
      return Optional.empty();
    }
    String from = read.toString();
    String to = written.toString();
    if (from.equals(to)) {
      return Optional.of(value -> value);
    }
    if (read.isIdentity()) {
      return Optional.of(applying(written, type));
    }
    int fromBuckets = width(from, "bucket");
    int toBuckets = width(to, "bucket");
    if (fromBuckets > 0 && toBuckets > 0) {
      return fromBuckets % toBuckets == 0
          ? Optional.of(value -> value == null ? null : (Integer) value % toBuckets)
          : Optional.empty();
    }
    int fromWidth = width(from, "truncate");
    int toWidth = width(to, "truncate");
    if (fromWidth > 0 && toWidth > 0) {
      boolean coarser =
          switch (type.typeId()) {
            case INTEGER, LONG, DECIMAL -> toWidth % fromWidth == 0;
            case STRING, BINARY -> toWidth <= fromWidth;
            default -> false;
          };
      return coarser ? Optional.of(applying(written, type)) : Optional.empty();
    }
    int fromUnit = TIME_UNITS.indexOf(from);
    int toUnit = TIME_UNITS.indexOf(to);
    boolean time =
        type.typeId() == Type.TypeID.DATE
            || type.typeId() == Type.TypeID.TIMESTAMP
            || type.typeId() == Type.TypeID.TIMESTAMP_NANO;
    if (time && fromUnit >= 0 && toUnit > fromUnit) {
      return Optional.of(value -> value == null ? null : coarser((Integer) value, fromUnit, toUnit));
    }
    return Optional.empty();
  }

  @SuppressWarnings("unchecked")
  private static UnaryOperator<Object> applying(Transform<?, ?> transform, Type type) {
    Function<Object, Object> bound = ((Transform<Object, Object>) transform).bind(type);
    return value -> {
      // a bound transform reads a binary value from its position on
      Object input = value instanceof ByteBuffer buffer ? buffer.duplicate() : value;
      return input == null ? null : bound.apply(input);
    };
  }

  /** The {@code bucket[N]} or {@code truncate[W]} width of a transform's text, or 0. */
  private static int width(String transform, String name) {
    if (!transform.startsWith(name + "[") || !transform.endsWith("]")) {
      return 0;
    }
    return Integer.parseInt(transform.substring(name.length() + 1, transform.length() - 1));
  }

  /**
   * An ordinal of Iceberg's time transforms (hours, days, months or years since 1970-01-01, in
   * UTC) in a coarser unit.
   */
  private static int coarser(int ordinal, int fromUnit, int toUnit) {
    if (fromUnit == 0) {
      int day = Math.floorDiv(ordinal, 24);
      return toUnit == 1 ? day : coarser(day, 1, toUnit);
    }
    if (fromUnit == 1) {
      LocalDate date = LocalDate.ofEpochDay(ordinal);
      int years = date.getYear() - 1970;
      return toUnit == 2 ? years * 12 + date.getMonthValue() - 1 : years;
    }
    return Math.floorDiv(ordinal, 12);
  }
}
