/**
 * The manifest planner: reads a snapshot's manifests on the driver in parallel, prunes manifests
 * and entries by partition and column metrics, and produces the snapshot's file tasks, falling
 * back to Iceberg's table scan where it cannot plan a snapshot. It imports nothing else of Floe's
 * read path.
 *
 * <p>Internal to Floe: types here are public only so that driver planning can use them; they are
 * no API and may change in any release.
 */
package io.floe.spark.read.plan.manifest;
