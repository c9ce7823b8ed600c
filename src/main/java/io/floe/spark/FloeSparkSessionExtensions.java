package io.floe.spark;

import io.floe.spark.extensions.FloeExtensionsParser;
import io.floe.spark.extensions.InsertInPlace;
import io.floe.spark.extensions.MergeTargetPruning;
import io.floe.spark.extensions.UpdateInPlace;
import io.floe.spark.extensions.ViewResolution;
import org.apache.spark.sql.SparkSessionExtensions;
import scala.Function1;
import scala.runtime.BoxedUnit;

/**
 * Floe's Spark session extensions: {@code
 * spark.sql.extensions=io.floe.spark.FloeSparkSessionExtensions}. They add the DDL that Spark's
 * parser lacks and the official runtime's {@code IcebergSparkSessionExtensions} adds, with the same
 * grammar, for tables of any Floe catalog ({@link FloeCatalog}, {@link FloeSessionCatalog}):
 *
 * <ul>
 *   <li>{@code ALTER TABLE t ADD PARTITION FIELD <transform> [AS name]}, {@code DROP PARTITION
 *       FIELD <transform | name>}, {@code REPLACE PARTITION FIELD <transform | name> WITH
 *       <transform> [AS name]};
 *   <li>{@code ALTER TABLE t WRITE [DISTRIBUTED BY PARTITION] [LOCALLY] ORDERED BY ...}, {@code
 *       WRITE UNORDERED}, {@code WRITE DISTRIBUTED BY PARTITION};
 *   <li>{@code ALTER TABLE t SET IDENTIFIER FIELDS ...}, {@code DROP IDENTIFIER FIELDS ...};
 *   <li>{@code ALTER TABLE t CREATE [OR REPLACE] BRANCH|TAG ...}, {@code REPLACE BRANCH|TAG ...},
 *       {@code DROP BRANCH|TAG [IF EXISTS] ...}.
 * </ul>
 *
 * <p>They also serve the views of view catalogs ({@link FloeCatalog} over REST, or JDBC with {@code
 * jdbc.schema-version=V1}), which Spark 4.1 does not resolve itself: CREATE [OR REPLACE] VIEW, ALTER
 * VIEW ... AS, ALTER VIEW ... SET/UNSET TBLPROPERTIES, DROP VIEW, SHOW VIEWS, SHOW CREATE TABLE and
 * DESCRIBE of a view, and reading a view (an analyzer rule, {@link ViewResolution}).
 *
 * <p>A planner strategy ({@link MergeTargetPruning}) lets an updating merge-on-read MERGE skip target
 * files at run time, as Spark already lets a deleting one. Another ({@link UpdateInPlace}) lets a
 * copy-on-write UPDATE that keeps every row in its partition skip the shuffle under its write, and
 * a third ({@link InsertInPlace}) does the same for an INSERT whose rows come from files
 * partitioned as the table it writes.
 *
 * <p>Every other statement goes to Spark's parser unchanged. Spark instantiates this class by name
 * and applies it once per session.
 */
public final class FloeSparkSessionExtensions implements Function1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectParser((session, parser) -> new FloeExtensionsParser(session, parser));
    extensions.injectResolutionRule(ViewResolution::new);
    extensions.injectPlannerStrategy(session -> new MergeTargetPruning());
    extensions.injectPlannerStrategy(session -> new UpdateInPlace());
    extensions.injectPlannerStrategy(session -> new InsertInPlace());
    return BoxedUnit.UNIT;
  }
}
