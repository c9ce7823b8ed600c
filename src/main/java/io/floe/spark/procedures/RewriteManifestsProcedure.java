package io.floe.spark.procedures;

import io.floe.spark.commit.Committer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.PropertyUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code rewrite_manifests(table [, use_caching, spec_id, sort_by])}: rewrites the data manifests
 * of one partition spec (the current one by default) of the current snapshot into about {@code
 * ceil(total size / commit.manifest.target-size-bytes)} manifests, clustered by the partition
 * fields ({@code sort_by} names which, in order), through Iceberg core's {@code RewriteManifests}:
 * one snapshot of operation {@code replace} whose summary carries {@code floe.commit-id}. Like the
 * official runtime it does nothing when the spec has one manifest that needs no splitting.
 *
 * <p>Differences from the official runtime: the manifests are read and written on the driver, not
 * by a Spark job, so {@code use_caching} (which caches that job's input) is accepted and has no
 * effect; delete manifests are kept as they are, where the official runtime also rewrites them.
 */
final class RewriteManifestsProcedure extends BaseProcedure {
  static final String NAME = "rewrite_manifests";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter USE_CACHING =
      Parameters.optional("use_caching", DataTypes.BooleanType);
  private static final ProcedureParameter SPEC_ID =
      Parameters.optional("spec_id", DataTypes.IntegerType);
  private static final ProcedureParameter SORT_BY =
      Parameters.optional("sort_by", Parameters.STRING_ARRAY);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, USE_CACHING, SPEC_ID, SORT_BY};

  private static final StructType OUTPUT =
      Parameters.output(
            new StructField(
                "rewritten_manifests_count", DataTypes.IntegerType, false, Metadata.empty()),
          Parameters.column("added_manifests_count", DataTypes.IntegerType, false));

  RewriteManifestsProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    // read only to check its type: it has no effect here (see the class comment)
    args.optionalBoolean(USE_CACHING);
    Integer specId = args.optionalInt(SPEC_ID);
    List<String> sortBy = args.optionalStringList(SORT_BY);
    if (sortBy != null && sortBy.isEmpty()) {
      throw args.invalid(SORT_BY, "must not be empty when given");
    }
    return modifyTable(ident, table -> rewrite(table, args, specId, sortBy));
  }

  private InternalRow[] rewrite(
      Table table, ProcedureArgs args, Integer specId, List<String> sortBy) {
    PartitionSpec spec = specId == null ? table.spec() : table.specs().get(specId);
    if (spec == null) {
      throw args.invalid(
          SPEC_ID,
          "names no partition spec of "
              + table.name()
              + "; its spec ids are "
              + table.specs().keySet());
    }
    List<Integer> positions = clusteringPositions(table, args, spec, sortBy);
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return nothingRewritten();
    }
    List<ManifestFile> matching =
        current.dataManifests(table.io()).stream()
            .filter(manifest -> manifest.partitionSpecId() == spec.specId())
            .collect(Collectors.toList());
    long targetBytes =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.MANIFEST_TARGET_SIZE_BYTES,
            TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
    long totalBytes = matching.stream().mapToLong(ManifestFile::length).sum();
    int count = (int) Math.max(1, (totalBytes + targetBytes - 1) / targetBytes);
    if (matching.isEmpty() || (count == 1 && matching.size() == 1)) {
      return nothingRewritten();
    }
    Map<String, Integer> ranges =
        ManifestClustering.assign(matching, table.io(), table.specs(), spec, positions, count);
    Set<String> rewritten = matching.stream().map(ManifestFile::path).collect(Collectors.toSet());
    table
        .rewriteManifests()
        .rewriteIf(manifest -> rewritten.contains(manifest.path()))
        .clusterBy(file -> ranges.getOrDefault(file.location(), count))
        .set(Committer.COMMIT_ID_KEY, UUID.randomUUID().toString())
        .commit();
    table.refresh();
    Map<String, String> summary = table.currentSnapshot().summary();
    return new InternalRow[] {
      row(
          Integer.parseInt(summary.getOrDefault(SnapshotSummary.REPLACED_MANIFESTS_COUNT, "0")),
          Integer.parseInt(summary.getOrDefault(SnapshotSummary.CREATED_MANIFESTS_COUNT, "0")))
    };
  }

  private List<Integer> clusteringPositions(
      Table table, ProcedureArgs args, PartitionSpec spec, List<String> sortBy) {
    List<String> names =
        spec.fields().stream().map(PartitionField::name).collect(Collectors.toList());
    if (sortBy == null) {
      List<Integer> all = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        all.add(i);
      }
      return all;
    }
    List<String> unknown =
        sortBy.stream().filter(name -> !names.contains(name)).collect(Collectors.toList());
    if (!unknown.isEmpty()) {
      throw args.invalid(
          SORT_BY,
          "names "
              + unknown
              + ", not partition fields of spec "
              + spec.specId()
              + " of "
              + table.name()
              + " (its fields: "
              + names
              + ")");
    }
    return sortBy.stream().map(names::indexOf).collect(Collectors.toList());
  }

  private static InternalRow[] nothingRewritten() {
    return new InternalRow[] {row(0, 0)};
  }
}
