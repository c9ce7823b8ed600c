package io.floe.spark.extensions;

import io.floe.spark.util.LocalRows;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * A view statement (or, as {@link ExtensionCommand}, a table statement) as the procedure Spark runs
 * for it: the parser hands Spark a resolved {@code CALL} of it, and Spark 4.1 runs it once while
 * analysing the statement. Each subclass is one statement; it carries what the parser read and returns the rows
 * of its {@link #schema()} (none for a statement that only changes the catalog).
 */
abstract class ViewCommand implements UnboundProcedure, BoundProcedure {
  /** The statement's output columns; empty for a statement without output. */
  abstract StructType schema();

  /** Runs the statement. */
  abstract List<InternalRow> run(SparkSession spark);

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
    List<InternalRow> rows = run(SparkSession.active());
    StructType schema = schema();
    return schema.isEmpty()
        ? Collections.emptyIterator()
        : List.<Scan>of(new LocalRows("CommandRows", schema, rows.toArray(new InternalRow[0]))).iterator();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + name() + "}";
  }
}
