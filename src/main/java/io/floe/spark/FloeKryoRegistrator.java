package io.floe.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.floe.spark.read.FloeBatch;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeReaderFactory;
import io.floe.spark.read.FloeScan;
import io.floe.spark.read.ReadOptions;
import io.floe.spark.write.FloeBatchWrite;
import io.floe.spark.write.FloeCommitMessage;
import io.floe.spark.write.FloeDataWriterFactory;
import io.floe.spark.write.FloeWrite;
import io.floe.spark.write.WriteContext;
import io.floe.spark.write.WriteOptions;
import java.util.List;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * Registers every class Floe ships between driver and executors with Kryo, so that {@code
 * spark.kryo.registrationRequired=true} works: {@code
 * spark.kryo.registrator=io.floe.spark.FloeKryoRegistrator}.
 *
 * <p>Floe's pieces carry Iceberg values (data files, scan tasks, schemas, FileIO) whose own
 * serialization Iceberg defines through Java serialization; each Floe piece is therefore written by
 * Kryo's {@link JavaSerializer}, which keeps those values intact without registering Iceberg's
 * internals one by one.
 */
public final class FloeKryoRegistrator implements KryoRegistrator {
  /** The classes registered, in registration order. */
  public static final List<Class<?>> CLASSES =
      List.of(
          FloeScan.class,
          FloeInputPartition.class,
          FloeReaderFactory.class,
          FloeBatch.class,
          ReadOptions.class,
          FloeWrite.class,
          FloeBatchWrite.class,
          FloeDataWriterFactory.class,
          FloeCommitMessage.class,
          WriteContext.class,
          WriteOptions.class);

  @Override
  public void registerClasses(Kryo kryo) {
    for (Class<?> type : CLASSES) {
      kryo.register(type, new JavaSerializer());
    }
  }
}
