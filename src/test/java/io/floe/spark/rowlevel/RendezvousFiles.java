package io.floe.spark.rowlevel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;

/**
 * A rendezvous of statements in different driver JVMs, through files in one folder: the function
 * {@code rendezvous(value, name)} returns the value; its first call for a name creates {@code
 * planned-<name>} and every call waits until the file {@code go} exists. A statement that calls it
 * for each row has planned (read its snapshot) before it waits, so statements started together
 * all read the same snapshot before any of them commits.
 */
final class RendezvousFiles {
  private RendezvousFiles() {}

  static void register(SparkSession spark, String folder) {
    UDF2<Integer, String, Integer> rendezvous =
        (value, name) -> {
          Path dir = Paths.get(folder);
          try {
            Files.createFile(dir.resolve("planned-" + name));
          } catch (FileAlreadyExistsException e) {
            // a later row of the same statement
          }
          long deadline = System.nanoTime() + 120_000_000_000L;
          while (!Files.exists(dir.resolve("go"))) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("Statement " + name + ": the go file never appeared");
            }
            Thread.sleep(10);
          }
          return value;
        };
    spark.udf().register("rendezvous", rendezvous, DataTypes.IntegerType);
  }

  /** Waits until every named statement has planned, then lets them all go on. */
  static void release(Path folder, Process other, String... names) throws InterruptedException {
    long deadline = System.nanoTime() + 180_000_000_000L;
    for (String name : names) {
      while (!Files.exists(folder.resolve("planned-" + name))) {
        if (System.nanoTime() > deadline || (other != null && !other.isAlive())) {
          throw new AssertionError("Statement " + name + " did not plan in time");
        }
        Thread.sleep(20);
      }
    }
    try {
      Files.createFile(folder.resolve("go"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
