package io.floe.spark.extensions;

import java.util.Collections;
import java.util.Iterator;
import java.util.Objects;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * An extension statement as the procedure Spark runs for it: the parser hands Spark a {@code CALL}
 * of this procedure, already resolved, and Spark 4.1 runs it once while analysing the statement
 * (as it runs any {@code CALL}), returning no rows. It takes no arguments: it carries its parsed
 * statement.
 *
 * <p>When called it resolves the table ({@link ExtensionTarget}), commits the statement's change
 * to the live table, and then makes the catalog and Spark's cached plans forget the old state, also
 * when the commit failed (its outcome may be unknown).
 */
final class ExtensionCommand implements UnboundProcedure, BoundProcedure {
  private final ExtensionStatement statement;

  ExtensionCommand(ExtensionStatement statement) {
    this.statement = Objects.requireNonNull(statement, "statement is null");
  }

  ExtensionStatement statement() {
    return statement;
  }

  @Override
  public String name() {
    return "ALTER TABLE " + Names.quoted(statement.table()) + " " + statement.action();
  }

  @Override
  public String description() {
    return name();
  }

  @Override
  public BoundProcedure bind(StructType inputType) {
    return this;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[0];
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  @Override
  public Iterator<Scan> call(InternalRow input) {
    SparkSession spark = SparkSession.active();
    boolean caseSensitive = spark.sessionState().conf().caseSensitiveAnalysis();
    ExtensionTarget target = ExtensionTarget.resolve(spark, statement);
    Table live = target.live();
    try {
      statement.applyTo(live, caseSensitive);
    } catch (IllegalArgumentException | ValidationException e) {
      throw ExtensionErrors.refused(statement.action(), target.quotedName(), e);
    } finally {
      target.invalidate(spark);
    }
    return Collections.emptyIterator();
  }

  @Override
  public String toString() {
    return "ExtensionCommand{" + name() + "}";
  }
}
