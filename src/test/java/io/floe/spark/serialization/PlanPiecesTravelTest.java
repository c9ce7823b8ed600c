package io.floe.spark.serialization;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.commit.CommitStats;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeReaderFactory;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.exec.ReadSettings;
import io.floe.spark.write.FloeBatchWrite;
import io.floe.spark.write.FloeCommitMessage;
import io.floe.spark.write.FloeDataWriterFactory;
import io.floe.spark.write.FloeWrite;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.exec.DataWriterSettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.LogicalWriteInfoImpl;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plan pieces Floe ships between driver and executors, obtained from a real table through the
 * public connector API: each survives Java serialization and strict Kryo as an equal piece, each
 * rebuilt from its accessors through its public constructor equals the original, and the rebuilt
 * pieces read and write the same rows as the originals.
 */
class PlanPiecesTravelTest extends SparkTestBase {
  /** Secret values set on the catalog; they reach the FileIO's properties and the write's loader. */
  private static final String SECRET = "s3cr3t-Value-4711";
  private static final String TOKEN = "t0ken-Value-0815";
  private static final StructType SCHEMA =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("data", DataTypes.StringType)
          .add("category", DataTypes.StringType);
  /** Read options that put every file in its own input partition. */
  private static final CaseInsensitiveStringMap SMALL_SPLITS =
      new CaseInsensitiveStringMap(Map.of("split-size", "1000"));

  @BeforeAll
  static void configureCatalog() {
    spark.conf().set("spark.sql.catalog.secure", FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.secure.type", "hadoop");
    spark.conf().set("spark.sql.catalog.secure.warehouse", warehouse.resolve("secure").toUri().toString());
    spark.conf().set("spark.sql.catalog.secure.io-impl", HadoopFileIO.class.getName());
    spark.conf().set("spark.sql.catalog.secure.s3.secret-access-key", SECRET);
    spark.conf().set("spark.sql.catalog.secure.token", TOKEN);
    sql("CREATE NAMESPACE IF NOT EXISTS secure.db");
  }

  @Test
  void scanPiecesSurviveJavaAndKryoAndEqualTheirRebuilds() {
    createTable("scan_pieces");
    FloeScan scan = scan("scan_pieces", SMALL_SPLITS, null, null);
    FloeBatch batch = (FloeBatch) scan.toBatch();
    assertThat(batch.partitions()).hasSizeGreaterThan(1);

    assertTravels(scan, Rebuild::scan);
    assertTravels(batch, original -> new FloeBatch(original.partitions(), original.readerFactory()));
    assertTravels(batch.readerFactory(), Rebuild::readerFactory);
    for (FloeInputPartition partition : batch.partitions()) {
      assertTravels(partition, Rebuild::partition);
    }
    FileScanTask task = batch.partitions().get(0).tasks().get(0).asFileScanTask();
    assertThat(Travel.throughKryo(task)).satisfies(copy -> {
      assertThat(copy.file().location()).isEqualTo(task.file().location());
      assertThat(copy.residual().toString()).isEqualTo(task.residual().toString());
      assertThat(copy.spec().specId()).isEqualTo(task.spec().specId());
    });

    assertThat(scan.snapshotId()).isEqualTo(currentSnapshotId("scan_pieces"));
    assertThat(scan.metadataLocation()).endsWith(".metadata.json");
    assertThat(scan.toBatch()).isEqualTo(batch);
    assertThat(batch.planInputPartitions()).containsExactlyElementsOf(batch.partitions());
    assertThat(batch.createReaderFactory()).isSameAs(batch.readerFactory());
  }

  @Test
  void incrementalScanThatMayStreamPlansWhenItTravelsAndGivesTheSameBatch() {
    createTable("incremental_pieces");
    long first = SnapshotUtil.oldestAncestor(loadTable("incremental_pieces").table()).snapshotId();
    CaseInsensitiveStringMap options =
        new CaseInsensitiveStringMap(Map.of("start-snapshot-id", String.valueOf(first)));
    FloeScan deferred = (FloeScan) loadTable("incremental_pieces").newScanBuilder(options).build();
    Scan other = loadTable("incremental_pieces").newScanBuilder(options).build();
    assertThat(deferred.planned()).isFalse();
    assertThat(deferred.description()).contains("not planned");

    // Java serialization plans first; a copy made after planning also travels through Kryo
    Scan viaJava = Travel.throughJava(deferred);
    FloeBatch batch = (FloeBatch) other.toBatch();
    assertThat(batch.partitions()).isNotEmpty();
    assertThat(viaJava.toBatch()).isEqualTo(batch);
    assertThat(deferred.toBatch()).isEqualTo(batch);
    assertThat(Travel.throughKryo(deferred).toBatch()).isEqualTo(batch);
    assertThat(deferred.description()).doesNotContain("not planned");
  }

  @Test
  void scanOfATableThatMayStreamPlansOnlyForABatchUseOrWhenItTravels() {
    createTable("lazy_pieces");
    FloeScan eager = scan("lazy_pieces", SMALL_SPLITS, null, null);
    eager.toBatch();
    FloeScan built = scan("lazy_pieces", SMALL_SPLITS, null, null);
    assertThat(built.planned()).isFalse();
    assertThat(built.description()).contains("not planned");
    assertThat(built.readSchema()).isEqualTo(SCHEMA);
    assertThat(built.planned()).isFalse();

    // Java serialization (and Kryo's, which goes through it) plans first: the copy carries the plan
    FloeScan viaJava = Travel.throughJava(built);
    assertThat(built.planned()).isTrue();
    assertThat(viaJava.planned()).isTrue();
    assertThat(viaJava.partitions()).isEqualTo(eager.partitions()).hasSizeGreaterThan(1);
    assertThat(viaJava).isEqualTo(eager).hasSameHashCodeAs(eager);

    FloeScan viaKryo = Travel.throughKryo(scan("lazy_pieces", SMALL_SPLITS, null, null));
    assertThat(viaKryo.toBatch()).isEqualTo(eager.toBatch());
    assertThat(viaKryo.description()).doesNotContain("not planned").contains("groups=");

    // equality plans both sides, and a hash code taken before planning stays the same after it
    FloeScan first = scan("lazy_pieces", SMALL_SPLITS, null, null);
    int hash = first.hashCode();
    assertThat(first.planned()).isFalse();
    assertThat(first).isEqualTo(eager);
    assertThat(first.planned()).isTrue();
    assertThat(first.hashCode()).isEqualTo(hash);
  }

  @Test
  void rebuiltReaderFactoryAndPartitionsReadTheSameRowsAsTheOriginals() {
    createTable("scan_rows");
    FloeBatch batch = (FloeBatch) scan("scan_rows", SMALL_SPLITS, null, null).toBatch();
    List<List<Object>> expected = sqlRows("SELECT id, data, category FROM secure.db.scan_rows");

    assertThat(batch.partitions()).hasSize(9);
    List<List<Object>> original = Travel.read(batch.readerFactory(), batch.partitions(), SCHEMA);
    assertThat(original).hasSize(9).isEqualTo(expected);
    assertThat(readThrough(batch, Rebuild::any, SCHEMA)).isEqualTo(original);
    assertThat(readThrough(batch, Travel::throughJava, SCHEMA)).isEqualTo(original);
    assertThat(readThrough(batch, Travel::throughKryo, SCHEMA)).isEqualTo(original);
  }

  @Test
  void readerFactoriesEqualOnlyWithTheSameBatchSizePrefetchNameMappingAndVectorization() {
    createTable("factory_settings");
    FloeReaderFactory planned =
        ((FloeBatch) scan("factory_settings", SMALL_SPLITS, null, null).toBatch()).readerFactory();
    NameMapping mapping = MappingUtil.create(planned.settings().tableSchema());
    FloeReaderFactory tuned = factory(planned, false, 77, 0, mapping);

    assertTravels(tuned, Rebuild::readerFactory);
    assertThat(Rebuild.readerFactory(tuned)).isNotEqualTo(planned);
    assertThat(
            List.of(
                factory(tuned, false, 78, 0, mapping),
                factory(tuned, false, 77, 1, mapping),
                factory(tuned, false, 77, 0, null),
                factory(tuned, true, 77, 0, mapping)))
        .allSatisfy(other -> assertThat(other).isNotEqualTo(tuned));
  }

  private static FloeReaderFactory factory(
      FloeReaderFactory base,
      boolean vectorizationEnabled,
      int batchSize,
      int prefetchFiles,
      NameMapping nameMapping) {
    ReadSettings settings = base.settings();
    return new FloeReaderFactory(
        new ReadSettings(
            settings.tableName(), settings.io(), settings.tableSchema(), settings.readSchema(),
            settings.caseSensitive(), batchSize, prefetchFiles, nameMapping),
        vectorizationEnabled);
  }

  @Test
  void prunedAndFilteredScanTravelsAndReadsOnlyTheMatchingPartition() {
    createTable("scan_filtered");
    StructType pruned = new StructType().add("id", DataTypes.LongType).add("category", DataTypes.StringType);
    Predicate isB =
        new Predicate(
            "=",
            new Expression[] {
              Expressions.column("category"), Expressions.literal(UTF8String.fromString("b"))
            });
    FloeScan scan = scan("scan_filtered", SMALL_SPLITS, pruned, isB);
    FloeBatch batch = (FloeBatch) scan.toBatch();

    assertThat(scan.filter().toString()).contains("category").contains("b");
    assertThat(scan.projectedSchema().columns()).extracting(field -> field.name()).containsExactly("id", "category");
    assertTravels(scan, Rebuild::scan);
    assertTravels(batch.readerFactory(), Rebuild::readerFactory);

    List<List<Object>> expected = sqlRows("SELECT id, category FROM secure.db.scan_filtered WHERE category = 'b'");
    assertThat(expected).hasSize(3);
    assertThat(Travel.read(batch.readerFactory(), batch.partitions(), pruned)).isEqualTo(expected);
    assertThat(readThrough(batch, Travel::throughKryo, pruned)).isEqualTo(expected);
    assertThat(readThrough(batch, Rebuild::any, pruned)).isEqualTo(expected);
  }

  @Test
  void metadataTableScanPiecesTravelAndReadTheSameRows() {
    createTable("with_metadata");
    StructType fileColumns =
        new StructType().add("file_path", DataTypes.StringType).add("record_count", DataTypes.LongType);
    StructType snapshotColumns =
        new StructType().add("snapshot_id", DataTypes.LongType).add("operation", DataTypes.StringType);
    Map<String, StructType> metadataTables = Map.of("files", fileColumns, "snapshots", snapshotColumns);

    for (Map.Entry<String, StructType> metadataTable : metadataTables.entrySet()) {
      String name = "with_metadata." + metadataTable.getKey();
      StructType columns = metadataTable.getValue();
      FloeScan scan = scan(name, SMALL_SPLITS, columns, null);
      FloeBatch batch = (FloeBatch) scan.toBatch();
      assertTravels(scan, Rebuild::scan);
      assertTravels(batch.readerFactory(), Rebuild::readerFactory);
      for (FloeInputPartition partition : batch.partitions()) {
        assertTravels(partition, Rebuild::partition);
      }

      List<List<Object>> expected =
          sqlRows("SELECT " + String.join(", ", columns.fieldNames()) + " FROM secure.db." + name);
      assertThat(expected).as(name).hasSize(metadataTable.getKey().equals("files") ? 9 : 3);
      assertThat(Travel.read(batch.readerFactory(), batch.partitions(), columns)).as(name).isEqualTo(expected);
      assertThat(readThrough(batch, Travel::throughKryo, columns)).as(name).isEqualTo(expected);
      assertThat(readThrough(batch, Travel::throughJava, columns)).as(name).isEqualTo(expected);
      assertThat(readThrough(batch, Rebuild::any, columns)).as(name).isEqualTo(expected);
    }
  }

  @Test
  void writePiecesSurviveJavaAndKryoAndEqualTheirRebuilds() {
    createTable("write_pieces");
    FloeWrite write = write("write_pieces");
    FloeBatchWrite batchWrite = (FloeBatchWrite) write.toBatch();
    FloeDataWriterFactory factory = (FloeDataWriterFactory) batchWrite.createBatchWriterFactory(() -> 2);

    assertTravels(write.context(), Rebuild::context);
    assertTravels(write, original -> new FloeWrite(Rebuild.context(original.context())));
    assertTravels(
        batchWrite,
        original -> new FloeBatchWrite(Rebuild.context(original.context()), original.commitStats()));
    assertTravels(factory, Rebuild::writerFactory);

    assertThat(write.toBatch()).isEqualTo(batchWrite);
    assertThat(factory.commitId()).isEqualTo(write.context().commitId());
    assertThat(factory.settings().table().location()).isEqualTo(loadTable("write_pieces").table().location());
  }

  @Test
  void rebuiltWriterFactoryWritesFilesThatCommitAndReadBack() throws IOException {
    createTable("write_rows");
    FloeWrite write = write("write_rows");
    FloeBatchWrite batchWrite = (FloeBatchWrite) write.toBatch();
    FloeDataWriterFactory factory = (FloeDataWriterFactory) batchWrite.createBatchWriterFactory(() -> 1);
    FloeDataWriterFactory shipped = Travel.throughKryo(Rebuild.writerFactory(Travel.throughJava(factory)));

    FloeCommitMessage message;
    try (DataWriter<InternalRow> writer = shipped.createWriter(0, 7L)) {
      writer.write(row(100L, "x", "a"));
      writer.write(row(101L, "y", "c"));
      writer.write(row(102L, "z", "d"));
      message = (FloeCommitMessage) writer.commit();
    }
    assertThat(message.dataFiles()).extracting(DataFile::recordCount).containsExactlyInAnyOrder(1L, 1L, 1L);
    assertTravels(message, original -> new FloeCommitMessage(original.dataFiles()));
    DataFile file = message.dataFiles().get(0);
    assertThat(Travel.throughKryo(file)).satisfies(copy -> {
      assertThat(copy.location()).isEqualTo(file.location());
      assertThat(copy.recordCount()).isEqualTo(file.recordCount());
      assertThat(copy.partition().toString()).isEqualTo(file.partition().toString());
    });

    FloeBatchWrite committer =
        Travel.throughKryo(new FloeBatchWrite(Rebuild.context(batchWrite.context()), new CommitStats()));
    committer.commit(new WriterCommitMessage[] {Travel.throughKryo(Travel.throughJava(message))});

    assertThat(sqlRows("SELECT id, data, category FROM secure.db.write_rows WHERE id >= 100"))
        .containsExactly(List.of(100L, "x", "a"), List.of(101L, "y", "c"), List.of(102L, "z", "d"));
    assertThat(sqlRows("SELECT count(*) FROM secure.db.write_rows")).containsExactly(List.of(12L));
    assertThat(sqlRows("SELECT summary['floe.commit-id'] FROM secure.db.write_rows.snapshots"
            + " ORDER BY committed_at DESC LIMIT 1"))
        .containsExactly(List.of(write.context().commitId()));
  }

  @Test
  void piecesDescribeThemselvesWithoutSecrets() throws IOException {
    createTable("described");
    FloeScan scan = scan("described", SMALL_SPLITS, null, null);
    FloeBatch batch = (FloeBatch) scan.toBatch();
    FloeWrite write = write("described");
    FloeBatchWrite batchWrite = (FloeBatchWrite) write.toBatch();
    FloeDataWriterFactory factory = (FloeDataWriterFactory) batchWrite.createBatchWriterFactory(() -> 1);
    FloeCommitMessage message;
    try (DataWriter<InternalRow> writer = factory.createWriter(0, 1L)) {
      writer.write(row(1L, "a", "a"));
      message = (FloeCommitMessage) writer.commit();
    }
    assertThat(scan.io().properties()).containsEntry("s3.secret-access-key", SECRET);

    List<String> descriptions =
        List.of(
            scan.toString(), scan.description(), batch.toString(), batch.readerFactory().toString(),
            batch.partitions().get(0).toString(), write.toString(), write.description(),
            write.context().toString(), batchWrite.toString(), factory.toString(), message.toString());
    for (String description : descriptions) {
      assertThat(description).doesNotContain(SECRET).doesNotContain(TOKEN);
    }
    assertThat(scan.description()).contains("secure.db.described");
    assertThat(batch.readerFactory().toString()).contains("secure.db.described").contains("HadoopFileIO");
    assertThat(batch.partitions().get(0).toString()).contains(".parquet");
    assertThat(write.toString()).contains("secure.db.described").contains(write.context().commitId());
    assertThat(factory.toString()).contains("secure.db.described").contains("HadoopFileIO");
    assertThat(message.toString()).contains(message.dataFiles().get(0).location());
    batchWrite.abort(new WriterCommitMessage[] {message});
  }

  @Test
  void plannedScanStaysPinnedToItsSnapshotAndSchemaAfterOtherCommits() {
    createTable("pinned");
    FloeScan scan = scan("pinned", SMALL_SPLITS, null, null);
    FloeBatch planned = (FloeBatch) scan.toBatch();
    FloeBatch shipped = Travel.throughKryo(planned);

    sql("INSERT INTO secure.db.pinned VALUES (10, 'later', 'a'), (11, 'later', 'e')");
    sql("ALTER TABLE secure.db.pinned ADD COLUMN extra STRING");
    sql("INSERT INTO secure.db.pinned VALUES (12, 'latest', 'b', 'x')");

    List<List<Object>> before = sqlRows("SELECT id, data, category FROM secure.db.pinned WHERE id < 10");
    assertThat(before).hasSize(9);
    assertThat(Travel.read(planned.readerFactory(), planned.partitions(), SCHEMA)).isEqualTo(before);
    assertThat(Travel.read(shipped.readerFactory(), shipped.partitions(), SCHEMA)).isEqualTo(before);
    assertThat(planned.readerFactory().settings().readSchema().columns()).extracting(field -> field.name())
        .containsExactly("id", "data", "category");

    FloeScan fresh = scan("pinned", SMALL_SPLITS, null, null);
    assertThat(fresh.snapshotId()).isNotEqualTo(scan.snapshotId()).isEqualTo(currentSnapshotId("pinned"));
    FloeBatch freshBatch = (FloeBatch) fresh.toBatch();
    StructType widened = SCHEMA.add("extra", DataTypes.StringType);
    assertThat(Travel.read(freshBatch.readerFactory(), freshBatch.partitions(), widened)).hasSize(12);
  }

  // helpers

  /** Java, Kryo and a rebuild through the public constructor each give a piece equal to the original. */
  private static <T> void assertTravels(T piece, UnaryOperator<T> rebuild) {
    T rebuilt = rebuild.apply(piece);
    T viaJava = Travel.throughJava(piece);
    T viaKryo = Travel.throughKryo(piece);
    for (T copy : List.of(rebuilt, viaJava, viaKryo)) {
      assertThat(copy).isNotSameAs(piece).isEqualTo(piece).hasSameHashCodeAs(piece);
      assertThat(copy.toString()).isEqualTo(piece.toString());
    }
    assertThat(rebuild.apply(viaKryo)).isEqualTo(piece);
  }

  private static List<List<Object>> readThrough(
      FloeBatch batch, UnaryOperator<Object> travel, StructType schema) {
    FloeReaderFactory factory = (FloeReaderFactory) travel.apply(batch.readerFactory());
    List<FloeInputPartition> partitions = new ArrayList<>();
    for (FloeInputPartition partition : batch.partitions()) {
      partitions.add((FloeInputPartition) travel.apply(partition));
    }
    return Travel.read(factory, partitions, schema);
  }

  private static void createTable(String name) {
    sql("CREATE TABLE secure.db.%s (id BIGINT, data STRING, category STRING) USING iceberg"
        + " PARTITIONED BY (category)", name);
    sql("INSERT INTO secure.db.%s VALUES (1, 'one', 'a'), (2, 'two', 'b'), (3, 'three', 'c')", name);
    sql("INSERT INTO secure.db.%s VALUES (4, 'four', 'a'), (5, 'five', 'b'), (6, 'six', 'c')", name);
    sql("INSERT INTO secure.db.%s VALUES (7, 'seven', 'a'), (8, 'eight', 'b'), (9, null, 'c')", name);
  }

  private static FloeTable loadTable(String name) {
    try {
      FloeCatalog catalog =
          (FloeCatalog) ((SparkSession) spark).sessionState().catalogManager().catalog("secure");
      String[] parts = name.split("\\.");
      String[] namespace = new String[parts.length];
      namespace[0] = "db";
      System.arraycopy(parts, 0, namespace, 1, parts.length - 1);
      return (FloeTable) catalog.loadTable(Identifier.of(namespace, parts[parts.length - 1]));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static FloeScan scan(
      String name, CaseInsensitiveStringMap options, StructType columns, Predicate filter) {
    ScanBuilder builder = loadTable(name).newScanBuilder(options);
    if (filter != null) {
      ((SupportsPushDownV2Filters) builder).pushPredicates(new Predicate[] {filter});
    }
    if (columns != null) {
      ((SupportsPushDownRequiredColumns) builder).pruneColumns(columns);
    }
    return (FloeScan) builder.build();
  }

  private static FloeWrite write(String name) {
    FloeTable table = loadTable(name);
    LogicalWriteInfoImpl info =
        new LogicalWriteInfoImpl(
            "query-" + name, table.schema(), CaseInsensitiveStringMap.empty(), Optional.empty(), Optional.empty());
    return (FloeWrite) table.newWriteBuilder(info).build();
  }

  private static long currentSnapshotId(String name) {
    return loadTable(name).table().currentSnapshot().snapshotId();
  }

  private static InternalRow row(long id, String data, String category) {
    return new GenericInternalRow(
        new Object[] {id, UTF8String.fromString(data), UTF8String.fromString(category)});
  }

  private static List<List<Object>> sqlRows(String query) {
    return sql(query).stream()
        .map(PlanPiecesTravelTest::values)
        .sorted(Comparator.comparing(Object::toString))
        .collect(Collectors.toList());
  }

  private static List<Object> values(Row row) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < row.size(); i += 1) {
      values.add(row.get(i));
    }
    return values;
  }

  /** Rebuilds pieces from their accessors through their public constructors. */
  private static final class Rebuild {
    static FloeScan scan(FloeScan original) {
      return new FloeScan(
          original.tableName(), original.metadataLocation(), original.snapshotId(), original.io(),
          original.tableSchema(), original.projectedSchema(), original.filter(),
          original.partitions(), original.options(), original.layout(), original.metrics());
    }

    static FloeReaderFactory readerFactory(FloeReaderFactory original) {
      ReadSettings settings = original.settings();
      return new FloeReaderFactory(
          new ReadSettings(
              settings.tableName(), settings.io(), settings.tableSchema(), settings.readSchema(),
              settings.caseSensitive(), settings.batchSize(), settings.prefetchFiles(),
              settings.nameMapping()),
          original.vectorizationEnabled());
    }

    static FloeInputPartition partition(FloeInputPartition original) {
      return new FloeInputPartition(original.index(), original.tasks(), original.partitionKey());
    }

    static WriteContext context(WriteContext original) {
      return new WriteContext(
          original.loader(), original.table(), original.mode(), original.overwriteFilter(),
          original.commitId(), original.startingSnapshotId(), original.options());
    }

    static FloeDataWriterFactory writerFactory(FloeDataWriterFactory original) {
      DataWriterSettings settings = original.settings();
      return new FloeDataWriterFactory(
          new DataWriterSettings(
              settings.table(), settings.specId(), settings.targetFileSizeBytes(), settings.fanoutEnabled(),
              settings.recordSortOrder(), settings.writeProperties(), settings.maxOpenFiles(),
              settings.lineage()),
          original.commitId());
    }

    /** Rebuilds a reader factory or an input partition. */
    static Object any(Object piece) {
      if (piece instanceof FloeReaderFactory) {
        return readerFactory((FloeReaderFactory) piece);
      }
      return partition((FloeInputPartition) piece);
    }
  }
}
