/**
 * The executor readers: read the tasks of one input partition as Spark rows or columnar batches,
 * applying delete files, filling metadata and constant columns and prefetching files ahead. Each
 * reader takes a {@link io.floe.spark.read.exec.ReadSettings} and its tasks, never the factory
 * that made it or the input partition. Parquet data files are decoded by {@link
 * io.floe.spark.parquet}; this package never plans and never imports {@code io.floe.spark.read}
 * itself.
 *
 * <p>Internal to Floe: types here are public only so that the reader factory can build them; they
 * are no API and may change in any release.
 */
package io.floe.spark.read.exec;
