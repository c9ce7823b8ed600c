package io.floe.spark.read.exec;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types.MessageTypeBuilder;
import org.junit.jupiter.api.Test;

/** Which predicates {@link ParquetStatsGuard} leaves to Iceberg's row-group filters. */
class ParquetStatsGuardTest {
  private static final Schema TABLE =
      new Schema(
          optional(1, "id", Types.LongType.get()),
          optional(2, "ts", Types.TimestampType.withZone()),
          optional(3, "local", Types.TimestampType.withoutZone()),
          optional(4, "t", Types.TimeType.get()));

  private static MessageType file(
      LogicalTypeAnnotation tsAnnotation, PrimitiveTypeName tsType, LogicalTypeAnnotation time) {
    MessageTypeBuilder builder = org.apache.parquet.schema.Types.buildMessage();
    builder.optional(PrimitiveTypeName.INT64).id(1).named("id");
    builder.optional(tsType).as(tsAnnotation).id(2).named("ts");
    builder
        .optional(PrimitiveTypeName.INT64)
        .as(LogicalTypeAnnotation.timestampType(false, TimeUnit.MICROS))
        .id(3)
        .named("local");
    builder
        .optional(time.equals(LogicalTypeAnnotation.timeType(false, TimeUnit.MILLIS))
                ? PrimitiveTypeName.INT32
                : PrimitiveTypeName.INT64)
        .as(time)
        .id(4)
        .named("t");
    return builder.named("table");
  }

  private static final Expression FILTER =
      Expressions.and(
          Expressions.and(Expressions.greaterThan("ts", 5L), Expressions.equal("id", 1L)),
          Expressions.and(Expressions.lessThan("local", 7L), Expressions.equal("t", 3L)));

  @Test
  void keepsEveryPredicateWhenTimestampsAndTimesAreMicros() {
    MessageType micros =
        file(
            LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS),
            PrimitiveTypeName.INT64,
            LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS));
    assertThat(ParquetStatsGuard.prunable(FILTER, TABLE, micros, true)).isSameAs(FILTER);
  }

  @Test
  void dropsPredicatesOnMillisTimestampsAndMillisTimes() {
    MessageType millis =
        file(
            LogicalTypeAnnotation.timestampType(true, TimeUnit.MILLIS),
            PrimitiveTypeName.INT64,
            LogicalTypeAnnotation.timeType(false, TimeUnit.MILLIS));
    assertThat(ParquetStatsGuard.prunable(FILTER, TABLE, millis, true).toString())
        .isEqualTo(
            Expressions.and(Expressions.equal("id", 1L), Expressions.lessThan("local", 7L))
                .toString());
  }

  @Test
  void dropsPredicatesOnInt96TimestampsEvenUnderNot() {
    MessageType int96 =
        file(null, PrimitiveTypeName.INT96, LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS));
    Expression notInRange =
        Expressions.not(
            Expressions.and(Expressions.greaterThan("ts", 5L), Expressions.lessThan("ts", 9L)));
    assertThat(ParquetStatsGuard.prunable(notInRange, TABLE, int96, true).op())
        .isEqualTo(Expression.Operation.TRUE);
    Expression either = Expressions.or(Expressions.equal("id", 1L), Expressions.equal("ts", 2L));
    assertThat(ParquetStatsGuard.prunable(either, TABLE, int96, true).op())
        .isEqualTo(Expression.Operation.TRUE);
  }

  @Test
  void findsTemporalColumnsOnlyWhenTheResidualNamesThem() {
    assertThat(ParquetStatsGuard.namesGuardedColumn(Expressions.equal("id", 1L), TABLE, true))
        .isFalse();
    assertThat(ParquetStatsGuard.namesGuardedColumn(FILTER, TABLE, true)).isTrue();
  }
}
