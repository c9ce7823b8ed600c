package io.floe.spark.extensions;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.ResolvedProcedure;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParameterContext;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.Call;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.execution.ExplainMode;
import org.apache.spark.sql.execution.command.ExplainCommand;
import org.apache.spark.sql.internal.VariableSubstitution;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's SQL parser with the official Iceberg runtime's DDL extensions added: a statement that
 * starts like one of them ({@link ExtensionParser}) is parsed here, after Spark's {@code ${var}}
 * substitution, into a {@code CALL} of an already resolved {@link ExtensionCommand}, which Spark
 * runs as it runs any {@code CALL}; {@code EXPLAIN} of one shows that command without running
 * it. Every other statement, and every expression, identifier, type
 * and query, goes to Spark's parser unchanged; a view statement Spark's parser produced that names
 * a view catalog becomes a {@code CALL} of its {@link ViewCommand} ({@link ViewStatements}).
 */
public final class FloeExtensionsParser implements ParserInterface {
  /** {@code EXPLAIN [mode] <statement>}: group 1 the mode, if any, group 2 the statement. */
  private static final Pattern EXPLAIN =
      Pattern.compile(
          "\\s*EXPLAIN\\s+(?:(EXTENDED|FORMATTED|CODEGEN|COST)\\s+)?(.*)",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  private final SparkSession session;
  private final ParserInterface delegate;

  /**
   * @param session the session the parser serves (its catalogs resolve view statements), or null
   *     for a parser of the extension statements only
   * @param delegate the parser of the session (Spark's, or another extension's)
   */
  public FloeExtensionsParser(SparkSession session, ParserInterface delegate) {
    this.session = session;
    this.delegate = Objects.requireNonNull(delegate, "delegate is null");
  }

  /** A parser of the extension statements only, without view statements. */
  public FloeExtensionsParser(ParserInterface delegate) {
    this(null, delegate);
  }

  @Override
  public LogicalPlan parsePlan(String sqlText) throws ParseException {
    Optional<LogicalPlan> extension = extensionPlan(sqlText);
    return extension.isPresent() ? extension.get() : withViews(delegate.parsePlan(sqlText));
  }

  private LogicalPlan withViews(LogicalPlan parsed) {
    if (session == null) {
      return parsed;
    }
    if (parsed instanceof ExplainCommand explain) {
      LogicalPlan inner = withViews(explain.logicalPlan());
      return inner == explain.logicalPlan() ? parsed : explain.copy(inner, explain.mode());
    }
    return ViewStatements.command(session, parsed)
        .map(command -> call(command.name(), command))
        .orElse(parsed);
  }

  @Override
  public LogicalPlan parsePlanWithParameters(String sqlText, ParameterContext parameterContext)
      throws ParseException {
    // the extension statements take no parameter markers
    Optional<LogicalPlan> extension = extensionPlan(sqlText);
    return extension.isPresent()
        ? extension.get()
        : withViews(delegate.parsePlanWithParameters(sqlText, parameterContext));
  }

  private static Optional<LogicalPlan> extensionPlan(String sqlText) {
    String substituted = new VariableSubstitution().substitute(sqlText);
    Matcher explain = EXPLAIN.matcher(substituted);
    if (explain.matches()) {
      // EXPLAIN of an extension statement shows the command it runs, without running it
      ExplainMode mode = ExplainMode.fromString(explain.group(1) == null ? "simple" : explain.group(1));
      return ExtensionParser.parse(explain.group(2))
          .map(statement -> new ExplainCommand(call(statement), mode));
    }
    return ExtensionParser.parse(substituted).map(FloeExtensionsParser::call);
  }

  private static LogicalPlan call(ExtensionStatement statement) {
    ExtensionCommand command = new ExtensionCommand(statement);
    return call(command.name(), command);
  }

  private static LogicalPlan call(String name, BoundProcedure command) {
    ResolvedProcedure procedure =
        new ResolvedProcedure(
            ExtensionProcedures.INSTANCE, Identifier.of(new String[0], name), command);
    Seq<Expression> noArguments = CollectionConverters.asScala(List.<Expression>of()).toSeq();
    return new Call(procedure, noArguments, true);
  }

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    return delegate.parseTableIdentifier(sqlText);
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  @Override
  public Seq<String> parseMultipartIdentifier(String sqlText) throws ParseException {
    return delegate.parseMultipartIdentifier(sqlText);
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return delegate.parseQuery(sqlText);
  }

  @Override
  public StructType parseRoutineParam(String sqlText) throws ParseException {
    return delegate.parseRoutineParam(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }
}
