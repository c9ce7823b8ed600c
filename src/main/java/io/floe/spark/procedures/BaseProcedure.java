package io.floe.spark.procedures;

import io.floe.spark.util.LocalRows;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * What every procedure shares: it is its own bound form (no overloads), its arguments are checked
 * when Spark binds the call ({@link ArgumentBinding}), and a call returns one result set of the
 * procedure's declared output schema.
 *
 * <p>A subclass declares its parameters and output schema as constants, reads its arguments in
 * {@link #run} and either only reads the table ({@link #readTable}) or changes it ({@link
 * #modifyTable}, which drops Spark's cached plans of the table afterwards). It checks every
 * argument before its first commit, so that bad input leaves the table unchanged.
 */
abstract class BaseProcedure implements UnboundProcedure, BoundProcedure {
  private final ProcedureContext context;
  private final String name;
  private final ProcedureParameter[] declaredParameters;
  private final StructType outputType;

  /**
   * @param name the procedure's name in the {@code system} namespace
   * @param declaredParameters the parameters, in the order Spark passes the arguments
   * @param outputType the schema of the rows {@link #run} returns
   */
  BaseProcedure(
      ProcedureContext context,
      String name,
      ProcedureParameter[] declaredParameters,
      StructType outputType) {
    this.context = Objects.requireNonNull(context, "context is null");
    this.name = Objects.requireNonNull(name, "name is null");
    this.declaredParameters = Objects.requireNonNull(declaredParameters, "declaredParameters is null");
    this.outputType = Objects.requireNonNull(outputType, "outputType is null");
  }

  @Override
  public final String name() {
    return name;
  }

  /** The declared parameters, in the order Spark passes the arguments. */
  final ProcedureParameter[] declaredParameters() {
    return declaredParameters;
  }

  /** The schema of the rows {@link #run} returns. */
  final StructType outputType() {
    return outputType;
  }

  /** Runs the procedure; the returned rows follow {@link #outputType()}. */
  abstract InternalRow[] run(ProcedureArgs args);

  @Override
  public final BoundProcedure bind(StructType inputType) {
    ArgumentBinding.check(qualifiedName(), declaredParameters(), inputType);
    return this;
  }

  @Override
  public final ProcedureParameter[] parameters() {
    return declaredParameters().clone();
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  @Override
  public final Iterator<Scan> call(InternalRow input) {
    ProcedureArgs args = new ProcedureArgs(qualifiedName(), declaredParameters(), input);
    Scan result = new LocalRows("ProcedureResult", outputType(), run(args));
    return List.of(result).iterator();
  }

  @Override
  public String description() {
    return qualifiedName();
  }

  /** {@code <catalog>.system.<name>}, as messages show it. */
  final String qualifiedName() {
    return context.catalogName() + "." + Procedures.NAMESPACE + "." + name();
  }

  final ProcedureContext context() {
    return context;
  }

  /** The table a string argument names, resolved in this catalog. */
  final TableIdentifier tableArgument(ProcedureArgs args, ProcedureParameter parameter) {
    return context.tableIdentifier(qualifiedName(), parameter.name(), args.string(parameter));
  }

  /** Runs {@code action} on the table, loaded fresh, without changing it. */
  final <T> T readTable(TableIdentifier ident, Function<Table, T> action) {
    return action.apply(context.loadTable(qualifiedName(), ident));
  }

  /**
   * Runs {@code action} on the table, loaded fresh, then drops Spark's cached plans of the table
   * (also when the action failed: its commit may have landed).
   */
  final <T> T modifyTable(TableIdentifier ident, Function<Table, T> action) {
    Table table = context.loadTable(qualifiedName(), ident);
    try {
      return action.apply(table);
    } finally {
      context.refreshCached(ident);
    }
  }

  /** A failure naming this procedure. */
  final IllegalArgumentException failure(String why) {
    return new IllegalArgumentException("Cannot call " + qualifiedName() + ": " + why);
  }

  static InternalRow row(Object... values) {
    return new GenericInternalRow(values);
  }
}
