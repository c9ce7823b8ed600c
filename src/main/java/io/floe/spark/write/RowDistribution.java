package io.floe.spark.write;

import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.expressions.SortOrder;

/**
 * How a planned write asks Spark to spread and sort its rows: what {@link DistributedWrite}
 * hands to Spark's {@code RequiresDistributionAndOrdering}. Implemented by the distribution of an
 * insert or overwrite ({@link WriteDistribution}) and by the row-level package's for delta rows.
 */
public interface RowDistribution {
  /** How rows are spread over writer tasks. */
  Distribution distribution();

  /** Whether Spark must keep to the distribution exactly rather than split a large cluster. */
  boolean strictlyRequired();

  /** The shuffle partition size to ask Spark for, or 0 for Spark's own. */
  long advisoryPartitionSizeBytes();

  /** How each task's rows are sorted; empty for no order. */
  SortOrder[] ordering();
}
