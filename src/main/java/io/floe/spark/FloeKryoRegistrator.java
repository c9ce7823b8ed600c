package io.floe.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.floe.spark.catalog.CatalogTableLoader;
import io.floe.spark.procedures.FileGroupWriteTask;
import io.floe.spark.procedures.FooterMetricsTask;
import io.floe.spark.procedures.OrphanFileTasks;
import io.floe.spark.procedures.PositionDeleteWriteTask;
import io.floe.spark.procedures.TablePathTasks;
import io.floe.spark.procedures.ThetaSketchTask;
import io.floe.spark.procedures.ZOrderValue;
import io.floe.spark.read.ChangelogInputPartition;
import io.floe.spark.read.ChangelogRange;
import io.floe.spark.read.ChangelogReaderFactory;
import io.floe.spark.read.ChangelogScan;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeReaderFactory;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadOptions;
import io.floe.spark.read.exec.ReadSettings;
import io.floe.spark.read.plan.ChangeTask;
import io.floe.spark.read.plan.RuntimeFilteredTask;
import io.floe.spark.streaming.FloeStreamingWriterFactory;
import io.floe.spark.write.FloeBatchWrite;
import io.floe.spark.write.FloeCommitMessage;
import io.floe.spark.write.FloeDataWriterFactory;
import io.floe.spark.write.FloeWrite;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.WriteOptions;
import io.floe.spark.rowlevel.FloeDeltaWriterFactory;
import io.floe.spark.write.exec.DataWriterSettings;
import io.floe.spark.write.exec.DeltaTaskResult;
import io.floe.spark.write.exec.DeltaWriterSettings;
import io.floe.spark.write.exec.RowLineageSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.GenericManifestFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.ResolvingFileIO;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * Registers every class Floe ships between driver and executors with Kryo, so that {@code
 * spark.kryo.registrationRequired=true} works: {@code
 * spark.kryo.registrator=io.floe.spark.FloeKryoRegistrator}.
 *
 * <p>Registered are Floe's plan pieces (scan, batch, input partition, reader factory, the changelog
 * scan with its input partitions, change tasks and reader factory, write, batch
 * write, writer factories of batches and streams, commit message and the values they carry) and the Iceberg values that
 * travel inside them (data and delete files, file and metadata-table scan tasks, the delete-file
 * tasks of the {@code position_deletes} table, the serializable table copy, FileIO, schema,
 * partition spec). Iceberg defines the serialized form of its values
 * through Java serialization, so each class is written by Kryo's {@link JavaSerializer}, which
 * keeps the whole value intact without registering Iceberg's internals one by one.
 *
 * <p>Spark's own classes on the DataSource V2 path (task results such as {@code
 * DataWritingSparkTaskResult}, collected rows) are registered by Spark's {@code KryoSerializer}
 * itself.
 *
 * <p>Registration ids follow the order of {@link #CLASSES}, which is fixed, so a driver and its
 * executors agree on them. A class that cannot be loaded fails the registration loudly instead of
 * being skipped, because skipping it on one side only would shift every later id.
 */
public final class FloeKryoRegistrator implements KryoRegistrator {
  /** Iceberg classes that travel inside Floe's pieces but are not public. */
  private static final List<String> ICEBERG_INTERNAL_CLASSES =
      List.of(
          "org.apache.iceberg.GenericDataFile",
          "org.apache.iceberg.GenericDeleteFile",
          "org.apache.iceberg.BaseFileScanTask$SplitScanTask",
          "org.apache.iceberg.StaticDataTask",
          "org.apache.iceberg.BaseFilesTable$ManifestReadTask",
          "org.apache.iceberg.BaseEntriesTable$ManifestReadTask",
          "org.apache.iceberg.AllManifestsTable$ManifestListReadTask",
          "org.apache.iceberg.BasePositionDeletesScanTask",
          "org.apache.iceberg.SplitPositionDeletesScanTask");

  /** The classes registered, in registration order. */
  public static final List<Class<?>> CLASSES = classes();

  @Override
  public void registerClasses(Kryo kryo) {
    for (Class<?> type : CLASSES) {
      kryo.register(type, new JavaSerializer());
    }
  }

  private static List<Class<?>> classes() {
    List<Class<?>> classes =
        new ArrayList<>(
            List.of(
                FloeScan.class,
                FloeInputPartition.class,
                RuntimeFilteredTask.class,
                FloeReaderFactory.class,
                ReadSettings.class,
                FloeBatch.class,
                ReadOptions.class,
                FloeWrite.class,
                FloeBatchWrite.class,
                FloeDataWriterFactory.class,
                FloeCommitMessage.class,
                WriteContext.class,
                WriteOptions.class,
                DataWriterSettings.class,
                RowLineageSource.class,
                FloeDeltaWriterFactory.class,
                DeltaWriterSettings.class,
                DeltaTaskResult.class,
                CatalogTableLoader.class,
                FileGroupWriteTask.class,
                FooterMetricsTask.class,
                FooterMetricsTask.Source.class,
                OrphanFileTasks.ListDirectory.class,
                OrphanFileTasks.ManifestPaths.class,
                OrphanFileTasks.UriParts.class,
                ZOrderValue.class,
                PositionDeleteWriteTask.class,
                PositionDeleteWriteTask.Files.class,
                ThetaSketchTask.class,
                ThetaSketchTask.Sketches.class,
                TablePathTasks.OutsidePrefix.class,
                TablePathTasks.RewriteManifests.class,
                TablePathTasks.RewritePositionDeletes.class,
                TablePathTasks.Rewritten.class,
                GenericManifestFile.class,
                BaseFileScanTask.class,
                SerializableTable.class,
                SerializableTable.SerializableMetadataTable.class,
                HadoopFileIO.class,
                ResolvingFileIO.class,
                Schema.class,
                PartitionSpec.class,
                FloeStreamingWriterFactory.class,
                ChangelogScan.class,
                ChangelogInputPartition.class,
                ChangelogReaderFactory.class,
                ChangelogRange.class,
                ChangeTask.class));
    for (String name : ICEBERG_INTERNAL_CLASSES) {
      classes.add(load(name));
    }
    return Collections.unmodifiableList(classes);
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name, false, FloeKryoRegistrator.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "Cannot register " + name + " with Kryo: the class is not on the classpath", e);
    }
  }
}
