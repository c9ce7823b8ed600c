package io.floe.spark.util;

import org.apache.spark.sql.connector.metric.CustomTaskMetric;

/**
 * One value of a custom metric, as readers, writers and scans report it to Spark: the metric's
 * name and the value measured.
 */
public record MetricValue(String name, long value) implements CustomTaskMetric {}
