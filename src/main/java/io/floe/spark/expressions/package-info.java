/**
 * Translation of Spark's DataSource V2 filter predicates into Iceberg expressions.
 *
 * <p>{@link io.floe.spark.expressions.SparkPredicates} is the only public type; the rest of the
 * package resolves columns, converts Spark's internal literal values and builds the Iceberg
 * expressions for single comparisons.
 */
package io.floe.spark.expressions;
