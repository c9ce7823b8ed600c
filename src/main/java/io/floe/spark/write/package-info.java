/**
 * The plan pieces of a Floe write that Spark sees: the write builder, the planned write with its
 * required distribution and ordering, the batch write that commits on the driver, the writer
 * factory shipped to executors and the commit message that comes back, with the values they carry
 * ({@link io.floe.spark.write.WriteContext}, {@link io.floe.spark.write.WriteOptions}).
 *
 * <p>Internal: public because Spark and Floe's catalog reach them, not an API. The executor side
 * (data writers, the Parquet row writer) is in {@code io.floe.spark.write.exec}, which never
 * imports this package; nothing here imports a catalog.
 */
package io.floe.spark.write;
