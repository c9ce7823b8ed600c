package io.floe.spark.procedures;

import io.floe.spark.util.Identifiers;
import io.floe.spark.read.ChangelogScanBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.OrderUtils;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code create_changelog_view(table [, changelog_view, options, compute_updates,
 * identifier_columns, net_changes])}: registers a temporary view of the table's changes, read from
 * its changelog ({@code <table>.changes}, with {@code options} as its read options, such as {@code
 * start-snapshot-id}) and cleaned as the official runtime cleans them ({@link ChangelogRows}):
 *
 * <ul>
 *   <li>by default, carry-over rows (a row a copy-on-write rewrite deleted and inserted again
 *       unchanged in one snapshot) are removed;
 *   <li>with {@code compute_updates} (the default when {@code identifier_columns} are given), a
 *       DELETE and an INSERT of the same identifier columns in one snapshot become {@code
 *       UPDATE_BEFORE} and {@code UPDATE_AFTER}; the identifier columns default to the table's
 *       identifier fields;
 *   <li>with {@code net_changes}, changes that cancel over the whole range (a row inserted, then
 *       deleted) are removed too; it cannot be combined with {@code compute_updates}.
 * </ul>
 *
 * <p>The view is named {@code changelog_view}, by default {@code `<table>_changes`}; the output
 * column {@code changelog_view} is that name. The view is lazy: it reads the changelog when
 * queried, over the snapshots its options name (or the table's snapshots then). Read-only.
 */
final class CreateChangelogViewProcedure extends BaseProcedure {
  static final String NAME = "create_changelog_view";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter CHANGELOG_VIEW =
      Parameters.optional("changelog_view", DataTypes.StringType);
  private static final ProcedureParameter OPTIONS =
      Parameters.optional("options", Parameters.STRING_MAP);
  private static final ProcedureParameter COMPUTE_UPDATES =
      Parameters.optional("compute_updates", DataTypes.BooleanType);
  private static final ProcedureParameter IDENTIFIER_COLUMNS =
      Parameters.optional("identifier_columns", Parameters.STRING_ARRAY);
  private static final ProcedureParameter NET_CHANGES =
      Parameters.optional("net_changes", DataTypes.BooleanType);
  // the official runtime's order, which positional calls rely on
  private static final ProcedureParameter[] PARAMETERS = {
    TABLE, CHANGELOG_VIEW, OPTIONS, COMPUTE_UPDATES, IDENTIFIER_COLUMNS, NET_CHANGES
  };

  private static final StructType OUTPUT =
      Parameters.output(Parameters.column("changelog_view", DataTypes.StringType, false));

  /** The name the catalog serves a table's changelog by, after the table's name. */
  private static final String CHANGELOG_TABLE = "changes";
  private static final String CHANGE_TYPE = MetadataColumns.CHANGE_TYPE.name();
  private static final String CHANGE_ORDINAL = MetadataColumns.CHANGE_ORDINAL.name();
  private static final String COMMIT_SNAPSHOT_ID = MetadataColumns.COMMIT_SNAPSHOT_ID.name();

  CreateChangelogViewProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    Map<String, String> options = args.anyOptions(OPTIONS);
    boolean netChanges = Boolean.TRUE.equals(args.optionalBoolean(NET_CHANGES));
    List<String> givenIdentifiers = args.optionalStringList(IDENTIFIER_COLUMNS);
    List<String> identifiers =
        givenIdentifiers != null
            ? givenIdentifiers
            : readTable(ident, table -> new ArrayList<>(table.schema().identifierFieldNames()));
    Boolean computeUpdatesArg = args.optionalBoolean(COMPUTE_UPDATES);
    boolean computeUpdates =
        computeUpdatesArg != null ? computeUpdatesArg : givenIdentifiers != null;

    String changelog = changelogName(ident);
    // the view reads lazily: check its read options now, so a bad one fails the call, not a query
    // (building the scan resolves its range; its changes are planned only when read)
    readTable(
        ident,
        table ->
            new ChangelogScanBuilder(
                    table, table.name() + "." + CHANGELOG_TABLE, new CaseInsensitiveStringMap(options))
                .build());
    Dataset<Row> changes = context().spark().read().options(options).table(changelog);
    StructType schema = changes.schema();
    checkOrderable(schema, identifiers);
    for (String column : identifiers) {
      if (!Arrays.asList(schema.fieldNames()).contains(column)) {
        throw failure(
            "identifier column '" + column + "' is not a column of " + context().quoted(ident));
      }
    }

    Dataset<Row> view;
    if (computeUpdates) {
      if (netChanges) {
        throw failure("Not support net changes with update images");
      }
      if (identifiers.isEmpty()) {
        throw failure("Cannot compute the update images because identifier columns are not set");
      }
      view = updateImages(changes, identifiers);
    } else {
      view = carryoversRemoved(changes, netChanges);
    }
    String viewName =
        args.optionalString(CHANGELOG_VIEW) != null
            ? args.optionalString(CHANGELOG_VIEW)
            : "`" + ident.name() + "_changes`";
    view.createOrReplaceTempView(viewName);
    return new InternalRow[] {row(UTF8String.fromString(viewName))};
  }

  /** The official runtime's rule: without identifier columns, every column must sort. */
  private void checkOrderable(StructType schema, List<String> identifiers) {
    Set<String> unorderable = new LinkedHashSet<>();
    for (StructField field : schema.fields()) {
      if (!OrderUtils.isOrderable(field.dataType())) {
        unorderable.add(field.name());
      }
    }
    if (identifiers.isEmpty() && !unorderable.isEmpty()) {
      throw failure(
          "Identifier field is required as table contains unorderable columns: " + unorderable);
    }
  }

  /** Clustered and sorted by the identifier columns and the change ordinal, then by type. */
  private static Dataset<Row> updateImages(Dataset<Row> changes, List<String> identifiers) {
    StructType schema = changes.schema();
    List<String> key = new ArrayList<>(identifiers);
    key.add(CHANGE_ORDINAL);
    List<String> sort = new ArrayList<>(key);
    sort.add(CHANGE_TYPE);
    List<String> sameRow = new ArrayList<>(Arrays.asList(schema.fieldNames()));
    sameRow.remove(CHANGE_TYPE);
    return clusteredAndSorted(changes, key, sort)
        .mapPartitions(
            ChangelogRows.computeUpdates(
                indices(schema, key),
                schema.fieldIndex(CHANGE_TYPE),
                indices(schema, sameRow),
                String.join(",", identifiers)),
            Encoders.row(schema));
  }

  /**
   * Without net changes, grouped by every column but the change type (carry-overs are within one
   * snapshot); with net changes, by the table's columns only, sorted by ordinal and type.
   */
  private static Dataset<Row> carryoversRemoved(Dataset<Row> changes, boolean netChanges) {
    StructType schema = changes.schema();
    List<String> key = new ArrayList<>(Arrays.asList(schema.fieldNames()));
    key.remove(CHANGE_TYPE);
    if (netChanges) {
      key.remove(CHANGE_ORDINAL);
      key.remove(COMMIT_SNAPSHOT_ID);
    }
    List<String> sort = new ArrayList<>(key);
    if (netChanges) {
      sort.add(CHANGE_ORDINAL);
    }
    sort.add(CHANGE_TYPE);
    int[] keyIndices = indices(schema, key);
    int changeType = schema.fieldIndex(CHANGE_TYPE);
    return clusteredAndSorted(changes, key, sort)
        .mapPartitions(
            netChanges
                ? ChangelogRows.removeNetCarryovers(keyIndices, changeType)
                : ChangelogRows.removeCarryovers(keyIndices, changeType),
            Encoders.row(schema));
  }

  private static Dataset<Row> clusteredAndSorted(
      Dataset<Row> changes, List<String> key, List<String> sort) {
    return changes
        .repartition(columns(changes, key))
        .sortWithinPartitions(columns(changes, sort));
  }

  private static Column[] columns(Dataset<Row> changes, List<String> names) {
    return names.stream().map(name -> changes.col(Identifiers.quote(name))).toArray(Column[]::new);
  }

  private static int[] indices(StructType schema, List<String> names) {
    return names.stream().mapToInt(schema::fieldIndex).toArray();
  }

  private String changelogName(TableIdentifier ident) {
    List<String> namespace = new ArrayList<>(Arrays.asList(ident.namespace().levels()));
    namespace.add(ident.name());
    return context()
        .quoted(TableIdentifier.of(Namespace.of(namespace.toArray(new String[0])), CHANGELOG_TABLE));
  }
}
