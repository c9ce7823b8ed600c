package io.floe.spark.serialization;

import io.floe.spark.FloeCatalog;
import io.floe.spark.FloeKryoRegistrator;
import io.floe.spark.distributed.RecordingCatalog;
import io.floe.spark.read.FloeInputPartition;
import io.floe.spark.read.FloeReaderFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * How plan pieces travel in tests: through Java serialization, through Spark's {@link
 * KryoSerializer} with registration required and Floe's registrator, and by reading what a reader
 * factory and its partitions produce, the way an executor does.
 */
public final class Travel {
  private static final ClassTag<Object> ANY = ClassTag$.MODULE$.apply(Object.class);

  private Travel() {}

  /** The Spark conf that makes Kryo strict and registers Floe's classes. */
  public static SparkConf strictKryoConf() {
    return new SparkConf(false)
        .set("spark.serializer", KryoSerializer.class.getName())
        .set("spark.kryo.registrationRequired", "true")
        .set("spark.kryo.registrator", FloeKryoRegistrator.class.getName());
  }

  /**
   * {@link #strictKryoConf()} for a test session: {@code local[2]}, no UI, few shuffle partitions,
   * loopback driver, under the given application name.
   */
  public static SparkConf strictKryoLocalConf(String appName) {
    return strictKryoConf()
        .setMaster("local[2]")
        .setAppName(appName)
        .set("spark.ui.enabled", "false")
        .set("spark.sql.shuffle.partitions", "4")
        .set("spark.default.parallelism", "2")
        .set("spark.driver.host", "127.0.0.1");
  }

  /** Adds a Floe catalog {@code name} over a hadoop warehouse in {@code dir} to {@code conf}. */
  public static SparkConf withHadoopCatalog(SparkConf conf, String name, Path dir) {
    return conf.set("spark.sql.catalog." + name, FloeCatalog.class.getName())
        .set("spark.sql.catalog." + name + ".type", "hadoop")
        .set("spark.sql.catalog." + name + ".warehouse", dir.toUri().toString());
  }

  /**
   * Adds a Floe catalog {@code name} over a hadoop warehouse in {@code dir}, behind a {@link
   * RecordingCatalog} that appends every catalog call to {@code calls}.
   */
  public static SparkConf withRecordingCatalog(SparkConf conf, String name, Path calls, Path dir) {
    String prefix = "spark.sql.catalog." + name;
    return conf.set(prefix, FloeCatalog.class.getName())
        .set(prefix + ".catalog-impl", RecordingCatalog.class.getName())
        .set(prefix + "." + RecordingCatalog.DELEGATE_TYPE, "hadoop")
        .set(prefix + "." + RecordingCatalog.RECORD_TO, calls.toString())
        .set(prefix + ".warehouse", dir.toUri().toString());
  }

  /**
   * A test session with {@link #strictKryoLocalConf} and one Floe catalog, {@code floe}, over a
   * hadoop warehouse in {@code dir}; logs at WARN.
   */
  public static SparkSession strictKryoFloeSession(String appName, Path dir) {
    SparkSession spark =
        SparkSession.builder()
            .config(withHadoopCatalog(strictKryoLocalConf(appName), "floe", dir))
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  /** Stops a test's own session (if started) and deletes its warehouse folder. */
  public static void stopAndDelete(SparkSession spark, Path warehouse) throws IOException {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    if (warehouse != null && Files.exists(warehouse)) {
      try (Stream<Path> files = Files.walk(warehouse)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      }
    }
  }

  /** Writes the value with Java serialization and reads it back. */
  @SuppressWarnings("unchecked")
  public static <T> T throughJava(T value) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(value);
      }
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        return (T) in.readObject();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes the value with a strict Kryo serializer and reads it back with a fresh one. */
  @SuppressWarnings("unchecked")
  public static <T> T throughKryo(T value) {
    SerializerInstance writer = new KryoSerializer(strictKryoConf()).newInstance();
    ByteBuffer bytes = writer.serialize(value, ANY);
    SerializerInstance reader = new KryoSerializer(strictKryoConf()).newInstance();
    return (T) reader.deserialize(bytes, ANY);
  }

  /**
   * Reads every partition with the factory, as an executor would, and returns the rows as lists of
   * plain Java values (strings for Spark strings), sorted by their text.
   */
  public static List<List<Object>> read(
      FloeReaderFactory factory, List<FloeInputPartition> partitions, StructType schema) {
    List<List<Object>> rows = new ArrayList<>();
    for (FloeInputPartition partition : partitions) {
      try (PartitionReader<InternalRow> reader = factory.createReader(partition)) {
        while (reader.next()) {
          rows.add(values(reader.get(), schema));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    rows.sort(Comparator.comparing(Object::toString));
    return rows;
  }

  private static List<Object> values(InternalRow row, StructType schema) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < schema.fields().length; i += 1) {
      DataType type = schema.fields()[i].dataType();
      Object value = row.isNullAt(i) ? null : row.get(i, type);
      values.add(value instanceof UTF8String ? value.toString() : value);
    }
    return values;
  }
}
