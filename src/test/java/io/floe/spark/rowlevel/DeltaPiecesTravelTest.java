package io.floe.spark.rowlevel;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.spark.FloeCatalog;
import io.floe.spark.SparkTestBase;
import io.floe.spark.catalog.FloeTable;
import io.floe.spark.serialization.Travel;
import io.floe.spark.write.exec.DeltaTaskResult;
import io.floe.spark.write.exec.DeltaWriterSettings;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.MetadataColumns;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.LogicalWriteInfoImpl;
import org.apache.spark.sql.connector.write.RowLevelOperation.Command;
import org.apache.spark.sql.connector.write.RowLevelOperationInfoImpl;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/**
 * The pieces a merge-on-read operation ships to executors, obtained from a real v3 table with a
 * deletion vector through the public connector API: the writer factory (with its settings and the
 * previous vectors) survives Java serialization and strict Kryo as an equal piece, a writer built
 * from the travelled copy deletes rows, and its task result travels back with its files.
 */
class DeltaPiecesTravelTest extends SparkTestBase {
  private static final String SECRET = "s3cr3t-Delta-4711";

  @Test
  void deltaWriterFactoryAndTaskResultSurviveJavaAndKryo() throws Exception {
    spark.conf().set("spark.sql.catalog.dsecure", FloeCatalog.class.getName());
    spark.conf().set("spark.sql.catalog.dsecure.type", "hadoop");
    spark.conf().set(
        "spark.sql.catalog.dsecure.warehouse", warehouse.resolve("dsecure").toUri().toString());
    spark.conf().set("spark.sql.catalog.dsecure.s3.secret-access-key", SECRET);
    sql("CREATE NAMESPACE IF NOT EXISTS dsecure.db");
    sql(
        "CREATE TABLE dsecure.db.t (id INT, data STRING) USING iceberg TBLPROPERTIES"
            + " ('format-version' = '3', 'write.delete.mode' = 'merge-on-read')");
    sql("INSERT INTO dsecure.db.t SELECT /*+ COALESCE(1) */ CAST(id AS INT), 'x' FROM range(10)");
    sql("DELETE FROM dsecure.db.t WHERE id = 1");

    FloeCatalog catalog = (FloeCatalog) spark.sessionState().catalogManager().catalog("dsecure");
    FloeTable table = (FloeTable) catalog.loadTable(Identifier.of(new String[] {"db"}, "t"));
    SupportsDelta operation =
        (SupportsDelta)
            table
                .newRowLevelOperationBuilder(
                    new RowLevelOperationInfoImpl(Command.DELETE, CaseInsensitiveStringMap.empty()))
                .build();
    ScanBuilder scanBuilder = operation.newScanBuilder(CaseInsensitiveStringMap.empty());
    StructType rowId =
        new StructType()
            .add(MetadataColumns.FILE_PATH.name(), DataTypes.StringType, false)
            .add(MetadataColumns.ROW_POSITION.name(), DataTypes.LongType, false);
    StructType metadata =
        new StructType()
            .add(MetadataColumns.SPEC_ID.name(), DataTypes.IntegerType, false)
            .add(MetadataColumns.PARTITION_COLUMN_NAME, new StructType(), true);
    ((SupportsPushDownRequiredColumns) scanBuilder).pruneColumns(table.schema().merge(rowId, true).merge(metadata, true));
    scanBuilder.build();
    DeltaWrite write =
        operation
            .newWriteBuilder(
                new LogicalWriteInfoImpl(
                    "q", table.schema(), CaseInsensitiveStringMap.empty(), Optional.of(rowId),
                    Optional.of(metadata)))
            .build();
    DeltaBatchWrite batch = write.toBatch();
    FloeDeltaWriterFactory factory = (FloeDeltaWriterFactory) batch.createBatchWriterFactory(null);
    DeltaWriterSettings settings = factory.settings();
    assertThat(settings.deletionVectors()).isTrue();
    assertThat(settings.previousDeletes()).hasSize(1);
    String dataFile = settings.previousDeletes().keySet().iterator().next();

    FloeDeltaWriterFactory viaJava = Travel.throughJava(factory);
    FloeDeltaWriterFactory viaKryo = Travel.throughKryo(factory);
    assertThat(viaJava).isEqualTo(factory).hasSameHashCodeAs(factory);
    assertThat(viaKryo).isEqualTo(factory).hasSameHashCodeAs(factory);
    assertThat(factory.toString()).doesNotContain(SECRET);
    assertThat(write.toString()).doesNotContain(SECRET);
    assertThat(write.description()).contains("merge-on-read DELETE").contains("deletion vectors");

    DeltaWriter<InternalRow> writer = viaKryo.createWriter(0, 1);
    writer.delete(
        new GenericInternalRow(new Object[] {0, new GenericInternalRow(new Object[0])}),
        new GenericInternalRow(new Object[] {UTF8String.fromString(dataFile), 4L}));
    DeltaTaskResult result = (DeltaTaskResult) writer.commit();
    assertThat(result.referencedDataFiles()).containsExactly(dataFile);
    // the new vector merges the previous one (position 1) with position 4
    assertThat(result.deleteFiles()).singleElement().satisfies(dv -> assertThat(dv.recordCount()).isEqualTo(2));
    assertThat(result.rewrittenDeleteFiles()).hasSize(1);
    for (DeltaTaskResult copy : List.of(Travel.throughJava(result), Travel.throughKryo(result))) {
      assertThat(copy.toString()).isEqualTo(result.toString());
      assertThat(copy.deleteFiles().get(0).location()).isEqualTo(result.deleteFiles().get(0).location());
    }
    batch.abort(new DeltaTaskResult[] {result});
    assertThat(new java.io.File(java.net.URI.create(result.deleteFiles().get(0).location()))).doesNotExist();
  }
}
