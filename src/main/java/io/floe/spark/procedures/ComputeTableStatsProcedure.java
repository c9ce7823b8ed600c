package io.floe.spark.procedures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.SetOperation;
import org.apache.datasketches.theta.Union;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinCompressionCodec;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code compute_table_stats(table [, snapshot_id, columns])}: writes a Puffin statistics file
 * with one {@code apache-datasketches-theta-v1} blob per column (the number of distinct values,
 * property {@code ndv}) for a snapshot (the current one by default) and sets it on the table, as
 * the official runtime does, so that either runtime reads the other's statistics. The sketches are
 * computed by a Spark job over Floe's scan of that snapshot, one partial sketch per task, unioned
 * on the driver ({@link ThetaSketchTask}). Without {@code columns} every top-level primitive column
 * is used. Setting statistics changes the table's metadata only; it adds no snapshot.
 */
final class ComputeTableStatsProcedure extends BaseProcedure {
  static final String NAME = "compute_table_stats";
  static final String NDV_PROPERTY = "ndv";

  private static final ProcedureParameter TABLE = Parameters.TABLE;
  private static final ProcedureParameter SNAPSHOT_ID =
      Parameters.optional("snapshot_id", DataTypes.LongType);
  private static final ProcedureParameter COLUMNS =
      Parameters.optional("columns", Parameters.STRING_ARRAY);
  private static final ProcedureParameter[] PARAMETERS = {TABLE, SNAPSHOT_ID, COLUMNS};

  private static final StructType OUTPUT =
      Parameters.output(Parameters.column("statistics_file", DataTypes.StringType, true));

  ComputeTableStatsProcedure(ProcedureContext context) {
    super(context, NAME, PARAMETERS, OUTPUT);
  }

  @Override
  InternalRow[] run(ProcedureArgs args) {
    TableIdentifier ident = tableArgument(args, TABLE);
    Long snapshotId = args.optionalLong(SNAPSHOT_ID);
    List<String> requested = args.optionalStringList(COLUMNS);
    SparkSession spark = context().spark();
    return modifyTable(
        ident,
        table -> {
          Snapshot snapshot =
              snapshotId == null ? table.currentSnapshot() : table.snapshot(snapshotId);
          if (snapshotId != null && snapshot == null) {
            throw args.invalid(SNAPSHOT_ID, "names no snapshot of " + table.name() + ": " + snapshotId);
          }
          if (snapshot == null) {
            return new InternalRow[] {row((Object) null)};
          }
          Schema schema = table.schemas().get(snapshot.schemaId());
          List<Types.NestedField> fields = columns(args, table, schema, requested);
          spark.sparkContext().setJobDescription(
              qualifiedName() + " on " + table.name() + " (snapshot " + snapshot.snapshotId() + ")");
          List<CompactSketch> sketches;
          try {
            sketches = sketches(spark, context().quoted(ident), snapshot, fields);
          } finally {
            spark.sparkContext().setJobDescription(null);
          }
          StatisticsFile file = write(table, snapshot, fields, sketches);
          table.updateStatistics().setStatistics(file).commit();
          return new InternalRow[] {row(UTF8String.fromString(file.path()))};
        });
  }

  private List<Types.NestedField> columns(
      ProcedureArgs args, Table table, Schema schema, List<String> requested) {
    List<Types.NestedField> fields = new ArrayList<>();
    if (requested == null) {
      schema.columns().stream().filter(f -> f.type().isPrimitiveType()).forEach(fields::add);
    } else {
      for (String name : requested) {
        Types.NestedField field = schema.findField(name);
        if (field == null) {
          throw args.invalid(COLUMNS, "names '" + name + "', not a column of " + table.name());
        }
        if (!field.type().isPrimitiveType()) {
          throw args.invalid(
              COLUMNS, "names '" + name + "' of type " + field.type() + "; only primitive columns "
                  + "have statistics");
        }
        fields.add(field);
      }
    }
    if (fields.isEmpty()) {
      throw args.invalid(COLUMNS, "selects no column to compute statistics for");
    }
    return fields;
  }

  private static List<CompactSketch> sketches(
      SparkSession spark, String quotedTable, Snapshot snapshot, List<Types.NestedField> fields) {
    Dataset<Row> rows =
        spark.read().option("snapshot-id", String.valueOf(snapshot.snapshotId())).table(quotedTable);
    Column[] columns =
        fields.stream().map(f -> org.apache.spark.sql.functions.col(quote(f.name())))
            .toArray(Column[]::new);
    Dataset<Row> selected = rows.select(columns);
    List<Type> icebergTypes = new ArrayList<>();
    List<DataType> sparkTypes = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      DataType sparkType = selected.schema().fields()[i].dataType();
      sparkTypes.add(sparkType);
      // the official runtime serializes values by the type Spark reads them as (a uuid as a string)
      icebergTypes.add(
          fields.get(i).type().typeId() == Type.TypeID.UUID
              ? Types.StringType.get()
              : fields.get(i).type());
    }
    List<ThetaSketchTask.Sketches> partial =
        ((org.apache.spark.sql.classic.Dataset<Row>) selected)
            .queryExecution().toRdd().toJavaRDD()
            .mapPartitions(new ThetaSketchTask(icebergTypes, sparkTypes))
            .collect();
    List<CompactSketch> result = new ArrayList<>();
    for (int i = 0; i < fields.size(); i++) {
      Union union = SetOperation.builder().buildUnion();
      for (ThetaSketchTask.Sketches sketches : partial) {
        union.union(CompactSketch.wrap(Memory.wrap(sketches.columns().get(i))));
      }
      result.add(union.getResult());
    }
    return result;
  }

  private static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  private StatisticsFile write(
      Table table, Snapshot snapshot, List<Types.NestedField> fields, List<CompactSketch> sketches) {
    String name = String.format("%s-%s.stats", snapshot.snapshotId(), UUID.randomUUID());
    OutputFile output =
        table.io().newOutputFile(((HasTableOperations) table).operations().metadataFileLocation(name));
    try (PuffinWriter writer = Puffin.write(output).createdBy("Floe on Spark " + context().spark().version()).build()) {
      for (int i = 0; i < fields.size(); i++) {
        writer.add(
            new Blob(
                StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1,
                List.of(fields.get(i).fieldId()),
                snapshot.snapshotId(),
                snapshot.sequenceNumber(),
                ByteBuffer.wrap(sketches.get(i).toByteArray()),
                PuffinCompressionCodec.ZSTD,
                Map.of(NDV_PROPERTY, String.valueOf((long) sketches.get(i).getEstimate()))));
      }
      writer.finish();
      return new GenericStatisticsFile(
          snapshot.snapshotId(), output.location(), writer.fileSize(), writer.footerSize(),
          GenericBlobMetadata.from(writer.writtenBlobsMetadata()));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write statistics of " + table.name(), e);
    }
  }
}
