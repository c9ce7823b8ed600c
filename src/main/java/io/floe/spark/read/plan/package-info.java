/**
 * Driver planning of a scan: plans its tasks once (the manifest planner in {@link
 * io.floe.spark.read.plan.manifest}), packs them into {@link io.floe.spark.read.plan.TaskGroup}s,
 * works out the layout the scan may promise Spark (key-grouped partitioning, ordering), applies
 * runtime filters, estimates statistics and answers aggregates from metadata. It never reads data
 * files and never imports {@code io.floe.spark.read} itself or the executor readers.
 *
 * <p>Internal to Floe: types here are public only so that the scan pieces in {@code
 * io.floe.spark.read} can use them; they are no API and may change in any release.
 */
package io.floe.spark.read.plan;
