/**
 * Floe's own Parquet decoder: reads the pages of a Parquet file's row groups into Spark column
 * vectors (flat columns by {@link io.floe.spark.parquet.FlatParquetReader}, other schemas through
 * Spark's vectorized reader with Floe's dictionary vectors), reusing page and row-group buffers
 * across the files of a partition. It knows Parquet and Spark's column vectors and nothing of
 * Iceberg planning or of Floe's read path: it imports no {@code io.floe.spark.read} package.
 *
 * <p>Internal to Floe: types here are public only so that the executor readers can use them; they
 * are no API and may change in any release.
 */
package io.floe.spark.parquet;
