package io.floe.spark.procedures;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.datasketches.common.Family;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What each task of {@code compute_table_stats} runs on an executor: one theta sketch per column
 * (the Alpha family with the default seed, as the official runtime's), updated with each non-null
 * value in Iceberg's single-value serialization, returned compacted as bytes; the driver unions
 * the tasks' sketches. The same bytes in the same sketch make the two runtimes' statistics
 * interchangeable.
 *
 * <p>Carries the columns' Iceberg types (as the official runtime derives them from Spark's types)
 * and their Spark types.
 */
public final class ThetaSketchTask
    implements FlatMapFunction<Iterator<InternalRow>, ThetaSketchTask.Sketches> {
  /** One task's compact sketches, one per column in order, as they travel to the driver. */
  public record Sketches(List<byte[]> columns) implements java.io.Serializable {
    public Sketches {
      columns = List.copyOf(Objects.requireNonNull(columns, "columns is null"));
    }
  }

  private final List<Type> icebergTypes;
  private final List<DataType> sparkTypes;

  public ThetaSketchTask(List<Type> icebergTypes, List<DataType> sparkTypes) {
    this.icebergTypes = List.copyOf(Objects.requireNonNull(icebergTypes, "icebergTypes is null"));
    this.sparkTypes = List.copyOf(Objects.requireNonNull(sparkTypes, "sparkTypes is null"));
  }

  public List<Type> icebergTypes() {
    return icebergTypes;
  }

  public List<DataType> sparkTypes() {
    return sparkTypes;
  }

  @Override
  public Iterator<Sketches> call(Iterator<InternalRow> rows) {
    List<UpdateSketch> sketches = new ArrayList<>();
    for (int i = 0; i < icebergTypes.size(); i++) {
      sketches.add(UpdateSketch.builder().setFamily(Family.ALPHA).build());
    }
    while (rows.hasNext()) {
      InternalRow row = rows.next();
      for (int i = 0; i < sketches.size(); i++) {
        if (!row.isNullAt(i)) {
          Object value = icebergValue(row.get(i, sparkTypes.get(i)));
          sketches.get(i).update(Conversions.toByteBuffer(icebergTypes.get(i), value));
        }
      }
    }
    List<byte[]> compact = new ArrayList<>(sketches.size());
    sketches.forEach(sketch -> compact.add(sketch.compact().toByteArray()));
    return List.of(new Sketches(compact)).iterator();
  }

  private static Object icebergValue(Object value) {
    if (value instanceof UTF8String) {
      return value.toString();
    } else if (value instanceof Decimal) {
      return ((Decimal) value).toJavaBigDecimal();
    } else if (value instanceof byte[]) {
      return ByteBuffer.wrap((byte[]) value);
    }
    return value;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ThetaSketchTask
        && icebergTypes.equals(((ThetaSketchTask) other).icebergTypes)
        && sparkTypes.equals(((ThetaSketchTask) other).sparkTypes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(icebergTypes, sparkTypes);
  }

  @Override
  public String toString() {
    return "ThetaSketchTask{types=" + icebergTypes + "}";
  }
}
