package io.floe.spark.expressions;

import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Expressions;

/**
 * A visitor that rebuilds an Iceberg expression as it is: constants and {@code NOT}/{@code
 * AND}/{@code OR} come out unchanged, so that a subclass only says what becomes of each predicate
 * (renamed, dropped, kept).
 */
public abstract class ExpressionRebuilder extends ExpressionVisitors.ExpressionVisitor<Expression> {
  @Override
  public Expression alwaysTrue() {
    return Expressions.alwaysTrue();
  }

  @Override
  public Expression alwaysFalse() {
    return Expressions.alwaysFalse();
  }

  @Override
  public Expression not(Expression result) {
    return Expressions.not(result);
  }

  @Override
  public Expression and(Expression left, Expression right) {
    return Expressions.and(left, right);
  }

  @Override
  public Expression or(Expression left, Expression right) {
    return Expressions.or(left, right);
  }
}
