package io.floe.spark.extensions;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.CTESubstitution$;
import org.apache.spark.sql.catalyst.analysis.GetColumnByOrdinal;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute$;
import org.apache.spark.sql.catalyst.analysis.UnresolvedFunction;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression$;
import org.apache.spark.sql.catalyst.expressions.UpCast;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias$;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.connector.catalog.View;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Function1;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.AbstractPartialFunction;

/**
 * Turns a view into the plan it stands for, the way the official runtime reads a view: the stored
 * SQL parsed, every relation name and every function name other than a built-in one (also in CTEs
 * and subqueries) qualified with the view's default catalog and namespace, views it names expanded
 * in turn, and the output projected onto the
 * stored schema ({@code UpCast} to each stored type, renamed to the stored column names, with their
 * comments). Columns are picked by the query's stored column names where those are unique, else by
 * position. Spark's analyzer resolves the rest.
 *
 * <p>A view reached again along its own chain of views fails with the cycle it found, as does a
 * chain deeper than {@code spark.sql.view.maxNestedViewDepth}.
 */
final class ViewExpander {
  private final SparkSession spark;
  private final CatalogManager catalogs;

  ViewExpander(SparkSession spark) {
    this.spark = Objects.requireNonNull(spark, "spark is null");
    this.catalogs = spark.sessionState().catalogManager();
  }

  /** The plan of {@code view} (named {@code ref}), reached along {@code path} (views, outermost first). */
  LogicalPlan expand(ViewRef ref, View view, List<List<String>> path) {
    List<String> name = ref.parts();
    List<List<String>> along = new ArrayList<>(path);
    along.add(name);
    if (path.stream().anyMatch(seen -> normalized(seen).equals(normalized(name)))) {
      throw ViewErrors.cycle(
          ref.quoted(), along.stream().map(Names::quoted).collect(Collectors.joining(" -> ")));
    }
    int maxDepth = spark.sessionState().conf().maxNestedViewDepth();
    if (along.size() > maxDepth) {
      throw ViewErrors.message(
          String.format(
              "Cannot read view %s: views nest deeper than spark.sql.view.maxNestedViewDepth (%d)",
              ref.quoted(), maxDepth));
    }
    List<String> defaults = new ArrayList<>();
    defaults.add(view.currentCatalog());
    defaults.addAll(Arrays.asList(view.currentNamespace()));
    LogicalPlan body = qualify(qualifyFunctions(parse(ref, view), defaults), defaults, along);
    StructType schema = view.schema();
    List<String> byName = columnsByName(view);
    List<NamedExpression> columns = new ArrayList<>();
    for (int pos = 0; pos < schema.fields().length; pos++) {
      StructField field = schema.fields()[pos];
      Expression column =
          byName != null
              ? UnresolvedAttribute$.MODULE$.quoted(byName.get(pos))
              : new GetColumnByOrdinal(pos, field.dataType());
      columns.add(
          new Alias(
              new UpCast(column, field.dataType(), emptySeq()),
              field.name(),
              NamedExpression$.MODULE$.newExprId(),
              emptySeq(),
              Option.apply(field.metadata()),
              emptySeq()));
    }
    return SubqueryAlias$.MODULE$.apply(
        CollectionConverters.asScala(name).toSeq(),
        new Project(CollectionConverters.asScala(columns).toSeq(), body));
  }

  /**
   * The query's own column names to pick the view's columns by, or null to pick them by position.
   * By name (as Spark reads its own views) a view over {@code SELECT *} still reads the right
   * columns after its table gained or reordered columns; by position (as the official runtime
   * reads every view) when the names are not stored, do not match the schema in number, or repeat.
   */
  private List<String> columnsByName(View view) {
    List<String> names = Arrays.asList(view.queryColumnNames());
    if (names.size() != view.schema().fields().length) {
      return null;
    }
    boolean caseSensitive = spark.sessionState().conf().caseSensitiveAnalysis();
    long distinct =
        names.stream().map(n -> caseSensitive ? n : n.toLowerCase(Locale.ROOT)).distinct().count();
    return distinct == names.size() ? names : null;
  }

  /**
   * {@code plan} with every relation name qualified with {@code defaults} (a catalog and namespace)
   * and every view it names expanded, reached along {@code path}.
   */
  LogicalPlan qualify(LogicalPlan plan, List<String> defaults, List<List<String>> path) {
    LogicalPlan substituted = CTESubstitution$.MODULE$.apply(plan);
    return substituted.transformUpWithSubqueries(
        new AbstractPartialFunction<LogicalPlan, LogicalPlan>() {
          @Override
          public boolean isDefinedAt(LogicalPlan node) {
            return node instanceof UnresolvedRelation;
          }

          @Override
          public <A1 extends LogicalPlan, B1> B1 applyOrElse(A1 node, Function1<A1, B1> otherwise) {
            if (!(node instanceof UnresolvedRelation relation)) {
              return otherwise.apply(node);
            }
            List<String> qualified =
                qualified(CollectionConverters.asJava(relation.multipartIdentifier()), defaults);
            Optional<ViewRef> ref = ViewRef.resolve(catalogs, qualified);
            Optional<View> view = ref.flatMap(ViewRef::load);
            @SuppressWarnings("unchecked")
            B1 result =
                (B1)
                    (view.isPresent()
                        ? expand(ref.get(), view.get(), path)
                        : new UnresolvedRelation(
                            CollectionConverters.asScala(qualified).toSeq(),
                            relation.options(),
                            relation.isStreaming()));
            return result;
          }
        });
  }

  /**
   * {@code plan} with every function name that is not a built-in function qualified with {@code
   * defaults}, as the official runtime reads a view and as Spark resolved the name when the view
   * was created: a persistent function {@code f} of the namespace current then is read as {@code
   * cat.db.f} from any current namespace, and a temporary function of the same name (which a view
   * can never reference) does not shadow it. Done before relations are expanded, so that a nested
   * view's functions get its own defaults.
   */
  private LogicalPlan qualifyFunctions(LogicalPlan plan, List<String> defaults) {
    return plan.transformAllExpressionsWithSubqueries(
        new AbstractPartialFunction<Expression, Expression>() {
          @Override
          public boolean isDefinedAt(Expression expression) {
            return expression instanceof UnresolvedFunction function
                && !function.isInternal()
                && needsQualifier(CollectionConverters.asJava(function.nameParts()));
          }

          @Override
          public <A1 extends Expression, B1> B1 applyOrElse(A1 node, Function1<A1, B1> otherwise) {
            if (!(node instanceof UnresolvedFunction function)
                || function.isInternal()
                || !needsQualifier(CollectionConverters.asJava(function.nameParts()))) {
              return otherwise.apply(node);
            }
            List<String> qualified =
                qualified(CollectionConverters.asJava(function.nameParts()), defaults);
            @SuppressWarnings("unchecked")
            B1 result =
                (B1)
                    function.copy(
                        CollectionConverters.asScala(qualified).toSeq(),
                        function.arguments(),
                        function.isDistinct(),
                        function.filter(),
                        function.ignoreNulls(),
                        function.orderingWithinGroup(),
                        function.isInternal());
            return result;
          }
        });
  }

  private boolean needsQualifier(List<String> parts) {
    if (parts.size() == 1) {
      return !catalogs.v1SessionCatalog().isBuiltinFunction(new FunctionIdentifier(parts.get(0)));
    }
    return !catalogs.isCatalogRegistered(parts.get(0));
  }

  private List<String> qualified(List<String> parts, List<String> defaults) {
    List<String> qualified = new ArrayList<>();
    if (parts.size() == 1) {
      qualified.addAll(defaults);
    } else if (!catalogs.isCatalogRegistered(parts.get(0))) {
      qualified.add(defaults.get(0));
    }
    qualified.addAll(parts);
    return qualified;
  }

  private LogicalPlan parse(ViewRef ref, View view) {
    String sql;
    try {
      sql = view.query();
    } catch (IllegalStateException e) {
      throw ViewErrors.message(e.getMessage());
    }
    try {
      return spark.sessionState().sqlParser().parseQuery(sql);
    } catch (ParseException e) {
      throw ViewErrors.message(
          String.format("Cannot read view %s: its SQL does not parse: %s", ref.quoted(), e.getMessage()));
    }
  }

  private static List<String> normalized(List<String> parts) {
    return parts.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList();
  }

  private static <T> scala.collection.immutable.Seq<T> emptySeq() {
    return CollectionConverters.asScala(List.<T>of()).toSeq();
  }
}
