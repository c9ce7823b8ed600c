/**
 * Floe's read path as Spark's DataSource V2 sees it: the scan builder, the scans, the batch, the
 * input partitions and the reader factory, and the read options they resolve. These are the plan
 * pieces that cross from driver to executors.
 *
 * <p>Imports point one way: this package uses driver planning ({@link io.floe.spark.read.plan}) and
 * the executor readers ({@link io.floe.spark.read.exec}); neither of those imports this package,
 * and nothing under {@code read} imports {@code io.floe.spark.catalog}. This package is internal
 * to Floe: users name only the classes of {@code io.floe.spark}.
 */
package io.floe.spark.read;
