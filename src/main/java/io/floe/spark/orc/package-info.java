/**
 * Spark column vectors over the vectors ORC's reader fills ({@code VectorizedRowBatch} of the ORC
 * library Iceberg is built against, its Hive storage classes under {@code org.apache.orc.storage}):
 * each adapter reads ORC's arrays in place, so a batch is handed to Spark without copying. It
 * knows ORC and Spark's column vectors and nothing of Iceberg planning or of Floe's read path: it
 * imports no {@code io.floe.spark.read} package.
 *
 * <p>Internal to Floe: types here are public only so that the executor readers can use them; they
 * are no API and may change in any release.
 */
package io.floe.spark.orc;
