/**
 * Internal: the executor side of a Floe write. One task's data writer, the clustered and fanout
 * partitioning writers, the row partition key, the Parquet row writer, the row-to-record conversion
 * that feeds Iceberg's ORC and Avro writers, and the write metrics; and
 * one merge-on-read task's delta writer with its position-delete and deletion-vector writers.
 *
 * <p>Not an API. Types here are public only so that the plan pieces in {@code io.floe.spark.write}
 * can build them; they may change in any release. Nothing here imports {@code io.floe.spark.write}
 * or any catalog: a writer task gets what it needs in a {@link
 * io.floe.spark.write.exec.DataWriterSettings} and hands its files back through a function.
 */
package io.floe.spark.write.exec;
