package io.floe.spark.procedures;

import io.floe.spark.util.Unchecked;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/**
 * The procedures a Floe catalog serves in its namespace {@value #NAMESPACE}, by name. Names are
 * matched case-insensitively, as Spark matches function names and as the official runtime does.
 */
public final class Procedures {
  /** The namespace procedures live in. */
  public static final String NAMESPACE = "system";

  private static final Map<String, Function<ProcedureContext, BaseProcedure>> PROCEDURES =
      procedures();

  private Procedures() {}

  private static Map<String, Function<ProcedureContext, BaseProcedure>> procedures() {
    Map<String, Function<ProcedureContext, BaseProcedure>> all = new TreeMap<>();
    all.put(RollbackToSnapshotProcedure.NAME, RollbackToSnapshotProcedure::new);
    all.put(RollbackToTimestampProcedure.NAME, RollbackToTimestampProcedure::new);
    all.put(SetCurrentSnapshotProcedure.NAME, SetCurrentSnapshotProcedure::new);
    all.put(CherrypickSnapshotProcedure.NAME, CherrypickSnapshotProcedure::new);
    all.put(FastForwardProcedure.NAME, FastForwardProcedure::new);
    all.put(AncestorsOfProcedure.NAME, AncestorsOfProcedure::new);
    all.put(PublishChangesProcedure.NAME, PublishChangesProcedure::new);
    all.put(ExpireSnapshotsProcedure.NAME, ExpireSnapshotsProcedure::new);
    all.put(RegisterTableProcedure.NAME, RegisterTableProcedure::new);
    all.put(RewriteManifestsProcedure.NAME, RewriteManifestsProcedure::new);
    all.put(RewriteDataFilesProcedure.NAME, RewriteDataFilesProcedure::new);
    all.put(RemoveOrphanFilesProcedure.NAME, RemoveOrphanFilesProcedure::new);
    all.put(AddFilesProcedure.NAME, AddFilesProcedure::new);
    all.put(ComputeTableStatsProcedure.NAME, ComputeTableStatsProcedure::new);
    all.put(RewritePositionDeleteFilesProcedure.NAME, RewritePositionDeleteFilesProcedure::new);
    all.put(CreateChangelogViewProcedure.NAME, CreateChangelogViewProcedure::new);
    all.put(ComputePartitionStatsProcedure.NAME, ComputePartitionStatsProcedure::new);
    all.put(RewriteTablePathProcedure.NAME, RewriteTablePathProcedure::new);
    all.put(SnapshotTableProcedure.NAME, SnapshotTableProcedure::new);
    all.put(MigrateTableProcedure.NAME, MigrateTableProcedure::new);
    return Map.copyOf(all);
  }

  /**
   * The procedure an identifier names.
   *
   * @throws org.apache.spark.sql.AnalysisException naming the procedure and listing the known ones
   *     when there is none (Spark wraps any other exception thrown here in "Failed to load
   *     routine", hiding the reason)
   */
  public static UnboundProcedure load(ProcedureContext context, Identifier ident) {
    String qualified = context.catalogName() + "." + String.join(".", ident.namespace());
    if (!servesNamespace(ident.namespace())) {
      throw Unchecked.analysisError(
          "Cannot find procedure "
              + qualified
              + "."
              + ident.name()
              + ": procedures of catalog "
              + context.catalogName()
              + " are in namespace "
              + NAMESPACE
              + " ("
              + context.catalogName()
              + "."
              + NAMESPACE
              + "."
              + ident.name()
              + ")");
    }
    Function<ProcedureContext, BaseProcedure> procedure =
        PROCEDURES.get(ident.name().toLowerCase(Locale.ROOT));
    if (procedure == null) {
      throw Unchecked.analysisError(
          "Cannot find procedure "
              + qualified
              + "."
              + ident.name()
              + "; known procedures: "
              + String.join(", ", new TreeMap<>(PROCEDURES).keySet()));
    }
    return procedure.apply(context);
  }

  /** The procedures of a namespace: all of them in {@value #NAMESPACE}, none elsewhere. */
  public static Identifier[] list(String[] namespace) {
    if (!servesNamespace(namespace)) {
      return new Identifier[0];
    }
    return new TreeMap<>(PROCEDURES)
        .keySet().stream().map(name -> Identifier.of(namespace, name)).toArray(Identifier[]::new);
  }

  private static boolean servesNamespace(String[] namespace) {
    return namespace.length == 1 && namespace[0].equalsIgnoreCase(NAMESPACE);
  }
}
