package io.floe.spark.procedures;

import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.CatalogPlugin;
import org.apache.spark.sql.connector.catalog.FunctionCatalog;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code rewrite_data_files(table [, strategy, sort_order, options, where, branch])}: compacts
 * data files. Groups are planned on the driver by Iceberg core's bin-pack planner, rewritten as
 * Spark jobs through Floe's scan and writers, and committed as a {@code replace} snapshot (Iceberg's
 * {@code RewriteFiles}) carrying {@code floe.commit-id}; see {@link DataFileRewrite}.
 *
 * <p>{@code strategy} is {@code binpack} (the default without a {@code sort_order}) or {@code
 * sort}; a sort uses {@code sort_order} ({@link SortOrderText}, parsed by Floe with no SQL
 * extension) or else the table's order. {@code where} selects the files that may hold matching
 * rows. {@code sort_order => 'zorder(c1, c2)'} sorts each group by the interleaved bits of the
 * columns ({@link ZOrderValue}).
 */
final class RewriteDataFilesProcedure extends BaseProcedure {
  static final String NAME = "rewrite_data_files";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter STRATEGY =
      Parameters.optional("strategy", DataTypes.StringType);
  private static final ProcedureParameter SORT_ORDER =
      Parameters.optional("sort_order", DataTypes.StringType);
  private static final ProcedureParameter OPTIONS =
      Parameters.optional("options", Parameters.STRING_MAP);
  private static final ProcedureParameter WHERE =
      Parameters.optional("where", DataTypes.StringType);
  private static final ProcedureParameter BRANCH =
      Parameters.optional("branch", DataTypes.StringType);
  private static final ProcedureParameter[] PARAMETERS = {
    TABLE, STRATEGY, SORT_ORDER, OPTIONS, WHERE, BRANCH
  };

  private static final StructType OUTPUT =
      Parameters.output(
          Parameters.column("rewritten_data_files_count", DataTypes.IntegerType, false),
          Parameters.column("added_data_files_count", DataTypes.IntegerType, false),
          Parameters.column("rewritten_bytes_count", DataTypes.LongType, false),
          Parameters.column("failed_data_files_count", DataTypes.IntegerType, false),
          Parameters.column("removed_delete_files_count", DataTypes.IntegerType, false));

  RewriteDataFilesProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    String strategy = args.optionalString(STRATEGY);
    String sortOrderText = args.optionalString(SORT_ORDER);
    String where = args.optionalString(WHERE);
    String branch = args.optionalString(BRANCH);
    boolean sort = isSort(args, strategy, sortOrderText);
    SortOrderText parsed = null;
    if (sortOrderText != null) {
      try {
        parsed = SortOrderText.parse(sortOrderText);
      } catch (IllegalArgumentException e) {
        throw args.invalid(SORT_ORDER, e.getMessage());
      }
    }
    boolean zOrder = parsed != null && parsed.isZOrder();
    Map<String, String> options =
        args.options(OPTIONS, RewriteDataFilesOptions.knownKeys(sort, zOrder));
    RewriteDataFilesOptions resolved;
    try {
      resolved =
          new RewriteDataFilesOptions(
              options, sort, zOrder ? "Z-ORDER" : sort ? "SORT" : "BIN-PACK");
    } catch (IllegalArgumentException e) {
      throw args.invalid(OPTIONS, e.getMessage());
    }
    SparkSession spark = (SparkSession) context().spark();
    boolean caseSensitive = spark.sessionState().conf().caseSensitiveAnalysis();
    SortOrderText sortText = parsed;
    return modifyTable(
        ident,
        table -> {
          FileGroupRewriter.ZOrder zOrdering =
              zOrder ? zOrder(args, table, sortText, resolved, caseSensitive) : null;
          SortOrder order =
              sort && !zOrder ? sortOrder(args, table, sortText, caseSensitive) : null;
          Expression filter =
              where == null
                  ? Expressions.alwaysTrue()
                  : WhereFilter.convert(
                      spark, context().quoted(ident), table.schema(), where,
                      why -> args.invalid(WHERE, why));
          DataFileRewrite rewrite =
              new DataFileRewrite(
                  qualifiedName(), table, branch, resolved,
                  (live, startingSnapshotId) ->
                      new FileGroupRewriter(
                          spark, functions(), live, startingSnapshotId, order, zOrdering));
          DataFileRewrite.Outcome outcome = rewrite.run(filter, caseSensitive);
          return new InternalRow[] {
            row(
                outcome.rewrittenDataFiles(),
                outcome.addedDataFiles(),
                outcome.rewrittenBytes(),
                outcome.failedDataFiles(),
                outcome.removedDeleteFiles())
          };
        });
  }

  private static boolean isSort(ProcedureArgs args, String strategy, String sortOrder) {
    if (strategy == null) {
      return sortOrder != null;
    }
    switch (strategy.toLowerCase(Locale.ROOT)) {
      case "sort":
        return true;
      case "binpack":
        if (sortOrder != null) {
          throw args.invalid(
              SORT_ORDER, "cannot be used with strategy 'binpack'; use strategy 'sort'");
        }
        return false;
      default:
        throw args.invalid(
            STRATEGY, "must be 'binpack' or 'sort', not '" + strategy + "'");
    }
  }

  private SortOrder sortOrder(
      ProcedureArgs args, Table table, SortOrderText text, boolean caseSensitive) {
    if (text == null) {
      if (table.sortOrder().isUnsorted()) {
        throw args.invalid(
            SORT_ORDER,
            "is required for strategy 'sort': table " + table.name() + " has no sort order");
      }
      return table.sortOrder();
    }
    try {
      return text.toSortOrder(table.schema(), caseSensitive);
    } catch (IllegalArgumentException e) {
      throw args.invalid(SORT_ORDER, e.getMessage());
    }
  }

  /**
   * The z-order of the named columns, as the official runtime takes it: identity partition
   * columns are left out (they are constant within a group), and at least one column must remain.
   */
  private FileGroupRewriter.ZOrder zOrder(
      ProcedureArgs args,
      Table table,
      SortOrderText text,
      RewriteDataFilesOptions options,
      boolean caseSensitive) {
    java.util.Set<Integer> identity = table.spec().identitySourceIds();
    java.util.List<String> columns = new java.util.ArrayList<>();
    java.util.List<org.apache.spark.sql.types.DataType> types = new java.util.ArrayList<>();
    org.apache.spark.sql.types.StructType sparkSchema =
        io.floe.spark.types.SparkSchemas.toSpark(table.schema());
    for (String name : text.zOrderColumns()) {
      org.apache.iceberg.types.Types.NestedField field =
          caseSensitive ? table.schema().findField(name) : table.schema().caseInsensitiveFindField(name);
      if (field == null || table.schema().findColumnName(field.fieldId()).contains(".")) {
        throw args.invalid(
            SORT_ORDER, "names '" + name + "', not a top-level column of " + table.name());
      }
      if (identity.contains(field.fieldId())) {
        continue;
      }
      org.apache.spark.sql.types.DataType type = sparkSchema.apply(field.name()).dataType();
      if (!ZOrderValue.SUPPORTED.contains(type)) {
        throw args.invalid(
            SORT_ORDER,
            "cannot z-order column '" + field.name() + "' of type " + type.sql()
                + "; z-order takes numbers, strings, binaries, booleans, dates and timestamps");
      }
      columns.add(field.name());
      types.add(type);
    }
    if (columns.isEmpty()) {
      throw args.invalid(
          SORT_ORDER,
          "names only identity partition columns of " + table.name() + "; nothing to z-order by");
    }
    return new FileGroupRewriter.ZOrder(
        columns,
        new ZOrderValue(types, options.varLengthContribution(), options.maxOutputSize()));
  }

  private FunctionCatalog functions() {
    CatalogPlugin catalog =
        context().spark().sessionState().catalogManager().catalog(context().catalogName());
    return (FunctionCatalog) catalog;
  }
}
