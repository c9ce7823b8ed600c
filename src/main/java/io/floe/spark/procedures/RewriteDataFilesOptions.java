package io.floe.spark.procedures;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewriteFilePlanner;
import org.apache.iceberg.actions.RewriteDataFiles;
import org.apache.iceberg.actions.SizeBasedFileRewritePlanner;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The {@code options} of {@code rewrite_data_files}, with the official runtime's keys, defaults and
 * checks: those of Iceberg core's planner ({@code target-file-size-bytes}, {@code
 * min-file-size-bytes}, {@code max-file-size-bytes}, {@code min-input-files}, {@code rewrite-all},
 * {@code max-file-group-size-bytes}, {@code delete-file-threshold}, {@code delete-ratio-threshold},
 * {@code rewrite-job-order}, {@code max-files-to-rewrite}, {@code output-spec-id}), those of the
 * run ({@code max-concurrent-file-group-rewrites}, {@code partial-progress.*}, {@code
 * use-starting-sequence-number}, {@code remove-dangling-deletes}), for {@code sort} the
 * shuffle's {@code compression-factor} and {@code shuffle-partitions-per-file} (only 1, which needs
 * no extension), and for a z-order {@code max-output-size} and {@code var-length-contribution}. The planner checks its own values when it is made.
 */
final class RewriteDataFilesOptions {
  static final String SHUFFLE_PARTITIONS_PER_FILE = "shuffle-partitions-per-file";
  static final String COMPRESSION_FACTOR = "compression-factor";
  static final String MAX_OUTPUT_SIZE = "max-output-size";
  static final String VAR_LENGTH_CONTRIBUTION = "var-length-contribution";

  private static final Set<String> COMMON =
      Set.of(
          RewriteDataFiles.MAX_CONCURRENT_FILE_GROUP_REWRITES,
          RewriteDataFiles.MAX_FILE_GROUP_SIZE_BYTES,
          RewriteDataFiles.PARTIAL_PROGRESS_ENABLED,
          RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS,
          RewriteDataFiles.PARTIAL_PROGRESS_MAX_FAILED_COMMITS,
          RewriteDataFiles.TARGET_FILE_SIZE_BYTES,
          RewriteDataFiles.USE_STARTING_SEQUENCE_NUMBER,
          RewriteDataFiles.REWRITE_JOB_ORDER,
          RewriteDataFiles.OUTPUT_SPEC_ID,
          RewriteDataFiles.REMOVE_DANGLING_DELETES,
          BinPackRewriteFilePlanner.MAX_FILES_TO_REWRITE,
          BinPackRewriteFilePlanner.DELETE_FILE_THRESHOLD,
          BinPackRewriteFilePlanner.DELETE_RATIO_THRESHOLD,
          SizeBasedFileRewritePlanner.MIN_FILE_SIZE_BYTES,
          SizeBasedFileRewritePlanner.MAX_FILE_SIZE_BYTES,
          SizeBasedFileRewritePlanner.MIN_INPUT_FILES,
          SizeBasedFileRewritePlanner.REWRITE_ALL);

  /** The keys a strategy accepts. */
  static Set<String> knownKeys(boolean sort, boolean zOrder) {
    Set<String> keys = new HashSet<>(COMMON);
    if (sort) {
      keys.add(COMPRESSION_FACTOR);
      keys.add(SHUFFLE_PARTITIONS_PER_FILE);
    }
    if (zOrder) {
      keys.add(MAX_OUTPUT_SIZE);
      keys.add(VAR_LENGTH_CONTRIBUTION);
    }
    return Set.copyOf(keys);
  }

  private final Map<String, String> options;
  private final boolean sort;
  private final String strategyName;

  /**
   * @param options the given options, keys already checked against {@link #knownKeys}
   * @param sort whether the groups are sorted (then the shuffle's options apply)
   * @param strategyName the strategy, as job descriptions show it
   * @throws IllegalArgumentException naming the option whose value is invalid
   */
  RewriteDataFilesOptions(Map<String, String> options, boolean sort, String strategyName) {
    this.options = Map.copyOf(options);
    this.sort = sort;
    this.strategyName = strategyName;
    positive(RewriteDataFiles.MAX_CONCURRENT_FILE_GROUP_REWRITES, maxConcurrentRewrites());
    if (partialProgress()) {
      positive(RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS, maxCommits());
    }
    if (sort) {
      int perFile = PropertyUtil.propertyAsInt(options, SHUFFLE_PARTITIONS_PER_FILE, 1);
      if (perFile != 1) {
        throw new IllegalArgumentException(
            "option '" + SHUFFLE_PARTITIONS_PER_FILE + "' must be 1 (Floe writes each shuffle "
                + "partition as its own file), not " + perFile);
      }
      positive(MAX_OUTPUT_SIZE, maxOutputSize());
      positive(VAR_LENGTH_CONTRIBUTION, varLengthContribution());
      if (compressionFactor() <= 0) {
        throw new IllegalArgumentException(
            "option '" + COMPRESSION_FACTOR + "' is set to " + compressionFactor()
                + " but must be > 0");
      }
    }
  }

  private static void positive(String key, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(
          "option '" + key + "' is set to " + value + " but must be > 0");
    }
  }

  String strategyName() {
    return strategyName;
  }

  int maxConcurrentRewrites() {
    return PropertyUtil.propertyAsInt(
        options,
        RewriteDataFiles.MAX_CONCURRENT_FILE_GROUP_REWRITES,
        RewriteDataFiles.MAX_CONCURRENT_FILE_GROUP_REWRITES_DEFAULT);
  }

  boolean partialProgress() {
    return PropertyUtil.propertyAsBoolean(
        options,
        RewriteDataFiles.PARTIAL_PROGRESS_ENABLED,
        RewriteDataFiles.PARTIAL_PROGRESS_ENABLED_DEFAULT);
  }

  int maxCommits() {
    return PropertyUtil.propertyAsInt(
        options,
        RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS,
        RewriteDataFiles.PARTIAL_PROGRESS_MAX_COMMITS_DEFAULT);
  }

  int maxFailedCommits() {
    return PropertyUtil.propertyAsInt(
        options, RewriteDataFiles.PARTIAL_PROGRESS_MAX_FAILED_COMMITS, maxCommits());
  }

  boolean useStartingSequenceNumber() {
    return PropertyUtil.propertyAsBoolean(
        options,
        RewriteDataFiles.USE_STARTING_SEQUENCE_NUMBER,
        RewriteDataFiles.USE_STARTING_SEQUENCE_NUMBER_DEFAULT);
  }

  boolean removeDanglingDeletes() {
    return PropertyUtil.propertyAsBoolean(
        options,
        RewriteDataFiles.REMOVE_DANGLING_DELETES,
        RewriteDataFiles.REMOVE_DANGLING_DELETES_DEFAULT);
  }

  /** For a z-order: how many bytes of the interleaved value to keep. */
  int maxOutputSize() {
    return PropertyUtil.propertyAsInt(options, MAX_OUTPUT_SIZE, Integer.MAX_VALUE);
  }

  /** For a z-order: how many bytes of a string or binary column take part. */
  int varLengthContribution() {
    return PropertyUtil.propertyAsInt(
        options, VAR_LENGTH_CONTRIBUTION, org.apache.iceberg.util.ZOrderByteUtils.PRIMITIVE_BUFFER_SIZE);
  }

  private double compressionFactor() {
    return PropertyUtil.propertyAsDouble(options, COMPRESSION_FACTOR, 1.0);
  }

  /**
   * Iceberg core's planner for the table, initialised with these options (it checks the sizes,
   * thresholds and spec id and fails naming the option). For a sort, the number of output files
   * of a group is scaled by {@code compression-factor}, as in the official runtime.
   */
  BinPackRewriteFilePlanner newPlanner(
      Table table, Expression filter, long startingSnapshotId, boolean caseSensitive) {
    BinPackRewriteFilePlanner planner =
        sort
            ? new ShufflingPlanner(
                table, filter, startingSnapshotId, caseSensitive, compressionFactor())
            : new BinPackRewriteFilePlanner(table, filter, startingSnapshotId, caseSensitive);
    Map<String, String> plannerOptions = new java.util.HashMap<>(options);
    plannerOptions.remove(COMPRESSION_FACTOR);
    plannerOptions.remove(SHUFFLE_PARTITIONS_PER_FILE);
    plannerOptions.remove(MAX_OUTPUT_SIZE);
    plannerOptions.remove(VAR_LENGTH_CONTRIBUTION);
    planner.init(plannerOptions);
    return planner;
  }

  /** Iceberg's bin-pack planner with the output file count scaled for a shuffling rewrite. */
  private static final class ShufflingPlanner extends BinPackRewriteFilePlanner {
    private final double compressionFactor;

    ShufflingPlanner(
        Table table,
        Expression filter,
        long startingSnapshotId,
        boolean caseSensitive,
        double compressionFactor) {
      super(table, filter, startingSnapshotId, caseSensitive);
      this.compressionFactor = compressionFactor;
    }

    @Override
    protected int expectedOutputFiles(long inputSize) {
      return Math.max(1, super.expectedOutputFiles((long) (inputSize * compressionFactor)));
    }
  }
}
