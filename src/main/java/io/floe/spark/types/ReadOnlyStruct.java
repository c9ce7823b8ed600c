package io.floe.spark.types;

import java.util.Objects;
import org.apache.iceberg.StructLike;

/**
 * One row's values in Iceberg's internal representation, as a {@link StructLike} that cannot be
 * changed: what Floe hands to Iceberg's converters and accessors for rows it builds itself (an
 * aggregate answer row, a {@code position_deletes} row). Wraps the array it is given, without a
 * copy; the caller does not change it afterwards.
 */
public final class ReadOnlyStruct implements StructLike {
  private final Object[] values;
  private final String refusal;

  /**
   * @param values the row's values, in field order
   * @param refusal the message of the exception {@link #set} throws, saying what the row is
   */
  public ReadOnlyStruct(Object[] values, String refusal) {
    this.values = Objects.requireNonNull(values, "values is null");
    this.refusal = Objects.requireNonNull(refusal, "refusal is null");
  }

  @Override
  public int size() {
    return values.length;
  }

  @Override
  public <T> T get(int pos, Class<T> javaClass) {
    return javaClass.cast(values[pos]);
  }

  @Override
  public <T> void set(int pos, T value) {
    throw new UnsupportedOperationException(refusal);
  }
}
