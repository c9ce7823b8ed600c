package io.floe.spark.read;

import io.floe.spark.expressions.SparkPredicates;
import io.floe.spark.read.exec.ReadSettings;
import io.floe.spark.read.plan.ChangelogPlanner;
import io.floe.spark.read.plan.DriverMetrics;
import io.floe.spark.types.SparkSchemas;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.iceberg.ChangelogUtil;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Builds the scan of a table's changelog ({@code <table>.changes}): resolves the snapshot range
 * from the read options ({@link ChangelogRange}), prunes columns, and converts the predicates on
 * table columns into a filter that prunes files. Every predicate also goes back to Spark, which
 * evaluates it on each row after the scan.
 */
public final class ChangelogScanBuilder
    implements ScanBuilder, SupportsPushDownV2Filters, SupportsPushDownRequiredColumns {
  /** The change columns after the table's columns, in this order. */
  public static final List<String> CHANGE_COLUMNS =
      List.of(
          MetadataColumns.CHANGE_TYPE.name(),
          MetadataColumns.CHANGE_ORDINAL.name(),
          MetadataColumns.COMMIT_SNAPSHOT_ID.name());

  private final Table table;
  private final String name;
  private final ReadOptions options;
  private final ChangelogRange range;
  // why the range options do not resolve, for a batch read; a stream resolves them itself
  private final IllegalArgumentException rangeFailure;
  private final Map<String, String> givenOptions;
  private ChangelogStreamFactory streams;
  private final List<Predicate> pushed = new ArrayList<>();
  private Expression filter = Expressions.alwaysTrue();
  private StructType requested;

  /**
   * @param table the table whose changes are read
   * @param name the changelog's name, for messages and plans
   * @param options the read options
   * @throws IllegalArgumentException for an unknown option or a time travel option; a range
   *     {@link ChangelogRange} refuses fails a batch read when it is built ({@link #build})
   */
  public ChangelogScanBuilder(Table table, String name, CaseInsensitiveStringMap options) {
    this.table = Objects.requireNonNull(table, "table is null");
    this.name = Objects.requireNonNull(name, "name is null");
    Objects.requireNonNull(options, "options is null");
    this.options =
        ReadOptions.resolve(
            ChangelogRange.withoutRangeTimestamps(options.asCaseSensitiveMap()),
            SQLConf.get(),
            table.properties());
    if (this.options.timeTravel() != null) {
      throw new IllegalArgumentException(
          "Cannot read " + name + ": a changelog takes no time travel (" + this.options.timeTravel()
              + "); choose its snapshots with " + StreamingReadOptionNames.START_SNAPSHOT_ID + ", "
              + StreamingReadOptionNames.END_SNAPSHOT_ID + ", " + ChangelogRange.START_TIMESTAMP
              + " and " + ChangelogRange.END_TIMESTAMP);
    }
    ChangelogRange resolved;
    IllegalArgumentException failure = null;
    try {
      resolved = ChangelogRange.fromOptions(name, table, options.asCaseSensitiveMap());
    } catch (IllegalArgumentException e) {
      // Spark builds a stream's scan as it builds a batch read's, and a stream gives
      // start-snapshot-id its own meaning and errors (and refuses the other range options by
      // name): the failure is a batch read's, raised by build() when the scan cannot stream, else
      // by the built scan's toBatch()
      resolved = new ChangelogRange(null, null, true);
      failure = e;
    }
    this.range = resolved;
    this.rangeFailure = failure;
    this.givenOptions = Map.copyOf(options.asCaseSensitiveMap());
  }

  /**
   * Lets the scans this builds run as a stream source, built by {@code factory}; without it a
   * streaming read fails saying what to do instead.
   */
  public ChangelogScanBuilder withStreaming(ChangelogStreamFactory factory) {
    this.streams = Objects.requireNonNull(factory, "factory is null");
    return this;
  }

  /** The schema of a table's changelog: the table's columns, then the change columns. */
  public static Schema changelogSchema(Table table) {
    return ChangelogUtil.changelogSchema(table.schema());
  }

  /** The error of a streaming read of a changelog, which Floe does not offer. */
  public static UnsupportedOperationException noStreaming(String name) {
    return new UnsupportedOperationException(
        "Cannot read " + name + " as a stream: streaming reads of a changelog are not supported;"
            + " read it in batches with the options " + StreamingReadOptionNames.START_SNAPSHOT_ID
            + " and " + StreamingReadOptionNames.END_SNAPSHOT_ID + ", or stream the table itself");
  }

  @Override
  public Predicate[] pushPredicates(Predicate[] predicates) {
    for (Predicate predicate : predicates) {
      Optional<Expression> converted =
          SparkPredicates.convert(predicate, table.schema(), options.caseSensitive());
      if (converted.isPresent()) {
        pushed.add(predicate);
        filter = Expressions.and(filter, converted.get());
      }
    }
    return predicates;
  }

  @Override
  public Predicate[] pushedPredicates() {
    return pushed.toArray(new Predicate[0]);
  }

  @Override
  public void pruneColumns(StructType requiredSchema) {
    this.requested = requiredSchema;
  }

  /**
   * @throws IllegalArgumentException when the range options make no batch read and the scan cannot
   *     stream
   */
  @Override
  public Scan build() {
    if (rangeFailure != null && streams == null) {
      throw rangeFailure;
    }
    Schema tableSchema = table.schema();
    List<String> changeColumns = new ArrayList<>();
    Schema dataSchema = tableSchema;
    if (requested != null) {
      StructType dataFields = new StructType();
      List<String> asked = new ArrayList<>();
      for (StructField field : requested.fields()) {
        String column = changeColumn(field.name());
        if (column == null) {
          dataFields = dataFields.add(field);
        } else {
          asked.add(column);
        }
      }
      dataSchema = SparkSchemas.prune(tableSchema, dataFields, options.caseSensitive());
      CHANGE_COLUMNS.stream().filter(asked::contains).forEach(changeColumns::add);
    } else {
      changeColumns.addAll(CHANGE_COLUMNS);
    }
    List<Types.NestedField> readFields = new ArrayList<>(dataSchema.columns());
    for (String column : changeColumns) {
      readFields.add(changelogSchema(table).findField(column));
    }
    StructType readSchema = SparkSchemas.toSpark(new Schema(readFields));
    Expression planFilter = filter;
    Supplier<ChangelogPlanner.Plan> planning =
        () ->
            range.empty()
                ? new ChangelogPlanner.Plan(List.of(), new DriverMetrics(0, 0, 0))
                : ChangelogPlanner.plan(
                    table, name, range.startSnapshotId(), range.endSnapshotId(), planFilter,
                    options.planOptions());
    ReadSettings settings =
        new ReadSettings(
            name, table.io(), tableSchema, dataSchema, options.caseSensitive(),
            options.batchSize(), options.prefetchFiles(),
            options.nameMapping() == null ? null : NameMappingParser.fromJson(options.nameMapping()));
    ChangelogRangePlanner rangePlanner =
        new ChangelogRangePlanner(name, planFilter, options.planOptions());
    ChangelogStreamFactory factory = streams;
    ChangelogScan[] scan = new ChangelogScan[1];
    // a stream starts where its own options say (start-snapshot-id, stream-from-timestamp) and
    // refuses the rest of a batch range, as a table stream does: the factory's stream resolves them
    Function<String, MicroBatchStream> stream =
        factory == null
            ? null
            : checkpoint -> factory.create(scan[0], rangePlanner, givenOptions, checkpoint);
    scan[0] =
        new ChangelogScan(
            name, range, readSchema, planning, new ChangelogReaderFactory(settings, changeColumns),
            stream);
    return rangeFailure == null ? scan[0] : new StreamOnlyScan(scan[0], name, rangeFailure);
  }

  /** The change column a requested name is, or null for a table column. */
  private String changeColumn(String requestedName) {
    for (String column : CHANGE_COLUMNS) {
      boolean same =
          options.caseSensitive()
              ? column.equals(requestedName)
              : column.toLowerCase(Locale.ROOT).equals(requestedName.toLowerCase(Locale.ROOT));
      if (same) {
        return column;
      }
    }
    return null;
  }
}
